import { describe, expect, test } from "bun:test";
import { openPostgres } from "@tollgate/db";
import { sql } from "drizzle-orm";
import { connectionFault, DatabaseCircuit, DatabaseUnreachableError } from "./database-circuit";

function failure(code: string): Error {
  return Object.assign(new Error(`failed: ${code}`), { code });
}

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await Bun.sleep(1);
}

/** A loopback port nothing listens on: connections to it are refused at once. */
function closedPort(): number {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}

const quiet = { probeIntervalMs: 5, log: () => {} };

describe("database circuit", () => {
  test("postgres.js's error for a refused connection, wrapped by drizzle, reads as unreachable", async () => {
    const handle = openPostgres(`postgres://postgres@127.0.0.1:${closedPort()}/none`, 1);
    const error = await handle.db.execute(sql`select 1`).then(
      () => null,
      (caught: unknown) => caught,
    );
    await handle.close();
    expect(connectionFault(error)).toBe("unreachable");
    expect(connectionFault(failure("57P01"))).toBe("lost");
    expect(connectionFault(failure("23505"))).toBeNull();
  });

  test("a refused connection opens it: later runs fail without a query until a probe succeeds", async () => {
    let probes = 0;
    let databaseUp = false;
    const circuit = new DatabaseCircuit(async () => {
      probes++;
      if (!databaseUp) throw failure("ECONNREFUSED");
    }, quiet);
    let queries = 0;
    const refused = () => {
      queries++;
      return Promise.reject(failure("ECONNREFUSED"));
    };
    await expect(circuit.run(refused)).rejects.toThrow("ECONNREFUSED");
    // Not retried: the server said it is not there.
    expect([queries, circuit.isOpen]).toEqual([1, true]);
    await expect(circuit.run(async () => queries++)).rejects.toBeInstanceOf(DatabaseUnreachableError);
    expect(queries).toBe(1);
    await waitFor(() => probes >= 2);
    expect(circuit.isOpen).toBe(true);
    databaseUp = true;
    await waitFor(() => !circuit.isOpen);
    expect(await circuit.run(async () => "answered")).toBe("answered");
    circuit.stop();
  });

  test("a lost connection is retried on a new one and opens nothing when the retry works; it opens when the retry fails too", async () => {
    const circuit = new DatabaseCircuit(async () => {}, { ...quiet, probeIntervalMs: 60_000 });
    let attempts = 0;
    const once = await circuit.run(async () => {
      if (++attempts === 1) throw failure("CONNECTION_CLOSED");
      return "second";
    }, [0]);
    expect([once, attempts, circuit.isOpen]).toEqual(["second", 2, false]);
    await expect(circuit.run(() => Promise.reject(failure("57P01")), [0])).rejects.toThrow("57P01");
    expect(circuit.isOpen).toBe(true);
    circuit.succeeded();
    expect(circuit.isOpen).toBe(false);
    // Reported from outside run() (nothing retried it): only a server that cannot be reached opens it.
    circuit.failed(failure("CONNECTION_CLOSED"));
    expect(circuit.isOpen).toBe(false);
    circuit.failed(failure("ECONNREFUSED"));
    expect(circuit.isOpen).toBe(true);
    circuit.stop();
  });

  test("an error that is not the connection's never opens it", async () => {
    const circuit = new DatabaseCircuit(async () => {}, quiet);
    await expect(circuit.run(() => Promise.reject(failure("23505")), [0])).rejects.toThrow("23505");
    expect(circuit.isOpen).toBe(false);
    circuit.stop();
  });
});
