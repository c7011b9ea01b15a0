import { type FakeOpenAIUpstream, startFakeOpenAIUpstream } from "./fake-openai-upstream";
import { type FreshDatabase, freshDatabase } from "./fresh-database";
import { type GatewayUnderTest, seeder, startGateway } from "./gateway-fixture";
import { onPostgresForBlock } from "./postgres-block";

/** Two gateway instances on one Postgres database (each with its own connections), and a fake upstream. */
export interface TwoGateways {
  database: FreshDatabase;
  upstream: FakeOpenAIUpstream;
  first: GatewayUnderTest;
  second: GatewayUnderTest;
  /** A seeder whose channel() and price() return once both instances route with the new row. */
  seed: ReturnType<typeof seeder>;
  stop(): Promise<void>;
}

/** Only on Postgres: embedded PGlite is one process's database. Both instances are built with `gatewayOptions`. */
export async function startTwoGateways(gatewayOptions: Parameters<typeof startGateway>[1] = {}): Promise<TwoGateways> {
  const database = await freshDatabase();
  const upstream = await startFakeOpenAIUpstream({ chunkDelayMs: 0 });
  const first = await startGateway(database.handle, gatewayOptions);
  const second = await startGateway(await database.openAnother(), gatewayOptions);
  return {
    database,
    upstream,
    first,
    second,
    seed: seeder(database.handle, first.secretBox, [first, second]),
    async stop() {
      await first.stop();
      await second.stop();
      await upstream.close();
      await database.drop();
    },
  };
}

/**
 * Two gateways for the tests of the calling file or describe block, started before them (on Postgres only:
 * elsewhere the tests skip) and stopped after them; read `.current` inside a test.
 */
export function twoGatewaysForBlock(gatewayOptions: Parameters<typeof startGateway>[1] = {}): { readonly current: TwoGateways } {
  return onPostgresForBlock(() => startTwoGateways(gatewayOptions));
}
