// Worker thread of ThreadedUsageWriter: a UsageWriter on a Postgres connection pool of its own, or on the
// embedded database through the port the PGlite thread serves it on. Messages are handled in the order they
// were posted, so a flush covers every record posted before it.
import { openPostgres, openSharedPglite } from "@tollgate/db/client";
import type { FromUsageWorker, ToUsageWorker } from "./usage-writer-thread";
import { usageRecordsOfText } from "./spool-line";
import { UsageWriter } from "./usage-writer";
import { describeDatabaseError } from "./write-usage-batch";

declare const self: Worker;

const DROPPED_REPORT_MS = 250;

let writer: UsageWriter | null = null;
let closeDatabase: (() => Promise<void>) | null = null;
let reportedDropped = 0;
let reportedFailingSince: number | null = null;

const send = (message: FromUsageWorker) => self.postMessage(message);
const describe = describeDatabaseError;

// Drops happen on record() while the database is away, and failures on the writer's timer; the main thread
// learns of them a little later.
const dropReporter = setInterval(() => {
  if (writer && (writer.droppedLogs !== reportedDropped || writer.failingSince !== reportedFailingSince)) {
    reportedDropped = writer.droppedLogs;
    reportedFailingSince = writer.failingSince;
    send({ type: "status", droppedLogs: reportedDropped, failingSince: reportedFailingSince });
  }
}, DROPPED_REPORT_MS);

self.addEventListener("message", (event: MessageEvent<ToUsageWorker>) => {
  const message = event.data;
  switch (message.type) {
    case "init": {
      const { intervalMs, maxBufferedLogs, instanceId, rowsPerInsert, writeAtLogs } = message.settings;
      const settings = message.settings.database;
      const database = "shared" in settings ? openSharedPglite(settings.shared) : openPostgres(settings.url, settings.poolSize);
      closeDatabase = () => database.close();
      const created: UsageWriter = new UsageWriter(database.db, {
        intervalMs,
        maxBufferedLogs,
        instanceId,
        rowsPerInsert,
        writeAtLogs,
        log: (text, fields) => send({ type: "log", message: text, fields }),
        onWritten: (written) => {
          reportedDropped = created.droppedLogs;
          reportedFailingSince = null;
          send({ type: "written", written, writtenLogs: created.writtenLogs, droppedLogs: created.droppedLogs, deadLetters: created.deadLetters });
        },
      });
      writer = created;
      writer.start();
      return;
    }
    case "lines":
      for (const record of usageRecordsOfText(message.text)) writer!.record(record);
      return;
    case "flush":
      writer!.flush().then(
        () => send({ type: "done", id: message.id }),
        (error) => send({ type: "done", id: message.id, error: describe(error) }),
      );
      return;
    case "stop":
      clearInterval(dropReporter);
      writer!
        .stop(message.graceMs)
        .then(() => closeDatabase?.())
        .then(
          () => send({ type: "done", id: message.id }),
          (error) => send({ type: "done", id: message.id, error: describe(error) }),
        );
      return;
  }
});
