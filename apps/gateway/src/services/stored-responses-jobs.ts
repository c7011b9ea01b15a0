import type { Database } from "@tollgate/db";
import { purgeExpiredResponses } from "../codecs/responses/stored-response-store";
import type { DatabaseCircuit } from "../database-circuit";
import type { Logger } from "../logger";
import type { Job } from "./jobs";

/** How often each instance deletes expired stored responses (expired ones are never served in between). */
export const RESPONSES_PURGE_INTERVAL_MS = 60 * 60 * 1000;

/** The background work of the stored responses (POST /v1/responses with store). */
export function storedResponsesJobs(input: { db: Database; circuit: DatabaseCircuit; log: Logger }): Job[] {
  const { db, circuit, log } = input;
  return [
    {
      name: "stored-responses-purge",
      intervalMs: RESPONSES_PURGE_INTERVAL_MS,
      run() {
        if (circuit.isOpen) return;
        purgeExpiredResponses(db).catch((error) => log("warn", "could not purge expired stored responses", { error: String(error) }));
      },
    },
  ];
}
