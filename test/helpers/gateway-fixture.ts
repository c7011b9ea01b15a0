import Anthropic from "@anthropic-ai/sdk";
import { createApp } from "@tollgate/gateway/app";
import { type GatewayOptions, type GatewayServices } from "@tollgate/gateway/gateway-services";
import { createGatewayServices } from "../../apps/server/src/compose-gateway-services";
import { silentLogger } from "@tollgate/gateway/logger";
import { channels, type DatabaseHandle, modelPrices, requestLogs, tokens, users } from "@tollgate/db";
import { channelKeyBinding, createSecretBox, displayPrefix, generateTokenSecret, hashTokenSecret, type SecretBox } from "@tollgate/shared";
import { asc, eq } from "drizzle-orm";
import OpenAI from "openai";
import { type FakeOpenAIUpstream, type FakeOpenAIUpstreamOptions, startFakeOpenAIUpstream } from "./fake-openai-upstream";
import { type FreshDatabase, freshDatabase } from "./fresh-database";
import { nextChannelId } from "./next-channel-id";

type CatalogSnapshot = Awaited<ReturnType<GatewayServices["catalog"]["get"]>>;

export const TEST_SECRET = "test-secret-for-tollgate-suite";

export interface SeedTokenOptions {
  userId: number;
  name?: string;
  quotaLimit?: number | null;
  allowedModels?: string[];
  allowedIps?: string[];
  rpmLimit?: number | null;
  tpmLimit?: number | null;
  expiresAt?: Date | null;
  status?: "enabled" | "disabled";
  group?: string | null;
  budgetPeriod?: "none" | "daily" | "weekly" | "monthly";
  budgetTimeZone?: string;
  alertThresholds?: number[] | null;
  /** The team the token belongs to; omitted: a personal token. */
  teamId?: number | null;
}

/**
 * Rows written the way the CLI and console write them, for tests that need a populated database.
 * Channels and prices reach a running gateway's catalog by NOTIFY, which can arrive after the test's first
 * call: with `gateways`, channel() and price() return only once every one of them routes with the new row.
 */
export function seeder(database: DatabaseHandle, secretBox: SecretBox, gateways: ReadonlyArray<{ services: GatewayServices }> = []) {
  const db = database.db;
  const untilEveryCatalog = async (holds: (catalog: CatalogSnapshot) => boolean, what: string) => {
    for (const gateway of gateways) await waitFor(async () => holds(await gateway.services.catalog.get()), what);
  };
  return {
    async user(
      values: {
        name?: string;
        balance?: number;
        balanceUnlimited?: boolean;
        group?: string;
        budgetLimit?: number | null;
        budgetPeriod?: "none" | "daily" | "weekly" | "monthly";
        budgetTimeZone?: string;
        alertThresholds?: number[] | null;
      } = {},
    ) {
      const [row] = await db
        .insert(users)
        .values({
          name: values.name ?? `user-${crypto.randomUUID().slice(0, 8)}`,
          balance: values.balance ?? 0,
          balanceUnlimited: values.balanceUnlimited ?? true,
          group: values.group ?? "default",
          budgetLimit: values.budgetLimit ?? null,
          budgetPeriod: values.budgetPeriod ?? "none",
          budgetTimeZone: values.budgetTimeZone ?? "UTC",
          alertThresholds: values.alertThresholds ?? null,
        })
        .returning();
      return row!;
    },
    async channel(values: {
      baseUrl: string;
      models: string[];
      apiKey?: string;
      name?: string;
      type?: "openai-compatible" | "anthropic" | "gemini" | "azure-openai" | "bedrock" | "vertex";
      config?: Record<string, unknown>;
      modelMapping?: Record<string, string>;
      groups?: string[];
      priority?: number;
      weight?: number;
      status?: "enabled" | "disabled";
    }) {
      const id = await nextChannelId(db);
      const [row] = await db
        .insert(channels)
        .values({
          id,
          name: values.name ?? "fake",
          type: values.type ?? "openai-compatible",
          baseUrl: values.baseUrl,
          config: values.config ?? {},
          apiKeyEncrypted: await secretBox.encrypt(values.apiKey ?? "sk-upstream-test-key", channelKeyBinding(id)),
          models: values.models,
          modelMapping: values.modelMapping ?? {},
          groups: values.groups ?? ["default"],
          priority: values.priority ?? 0,
          weight: values.weight ?? 1,
          status: values.status ?? "enabled",
        })
        .returning();
      await untilEveryCatalog(
        (catalog) => row!.models.every((model) => catalog.channelsByModel.get(model)?.some((channel) => channel.id === row!.id)),
        `channel ${row!.id} in the gateways' catalogs`,
      );
      return row!;
    },
    /** USD per 1M tokens; `cacheWrite` and `cacheWrite1h` price prompt-cache writes of 5 minutes and 1 hour (unset: the input price). */
    async price(
      model: string,
      inputUsdPerMillion: number,
      outputUsdPerMillion: number,
      cachedUsdPerMillion?: number,
      cacheWrites: { cacheWrite?: number; cacheWrite1h?: number } = {},
    ) {
      const micros = (usd: number | undefined) => (usd === undefined ? null : Math.round(usd * 1_000_000));
      await db
        .insert(modelPrices)
        .values({
          model,
          inputPrice: Math.round(inputUsdPerMillion * 1_000_000),
          outputPrice: Math.round(outputUsdPerMillion * 1_000_000),
          cachedInputPrice: micros(cachedUsdPerMillion),
          cacheWritePrice: micros(cacheWrites.cacheWrite),
          cacheWrite1hPrice: micros(cacheWrites.cacheWrite1h),
        })
        .onConflictDoNothing();
      await untilEveryCatalog((catalog) => catalog.prices.has(model), `the price of ${model} in the gateways' catalogs`);
    },
    async token(options: SeedTokenOptions) {
      const secret = generateTokenSecret();
      const [row] = await db
        .insert(tokens)
        .values({
          userId: options.userId,
          name: options.name ?? "test token",
          keyHash: hashTokenSecret(secret),
          keyPrefix: displayPrefix(secret),
          quotaLimit: options.quotaLimit ?? null,
          allowedModels: options.allowedModels ?? [],
          allowedIps: options.allowedIps ?? [],
          rpmLimit: options.rpmLimit ?? null,
          tpmLimit: options.tpmLimit ?? null,
          expiresAt: options.expiresAt ?? null,
          status: options.status ?? "enabled",
          group: options.group ?? null,
          budgetPeriod: options.budgetPeriod ?? "none",
          budgetTimeZone: options.budgetTimeZone ?? "UTC",
          alertThresholds: options.alertThresholds ?? null,
          teamId: options.teamId ?? null,
        })
        .returning();
      return { row: row!, secret };
    },
    async tokenRow(id: number) {
      const [row] = await db.select().from(tokens).where(eq(tokens.id, id));
      return row!;
    },
  };
}

export interface GatewayUnderTest {
  services: GatewayServices;
  app: ReturnType<typeof createApp>;
  secretBox: SecretBox;
  /** Sends a request through app.handle() as if from `address`. */
  handle(request: Request): Promise<Response>;
  /** Starts listening on port 0; returns the base URL with /v1. */
  listen(): Promise<string>;
  stop(): Promise<void>;
}

/** A gateway around an existing database, the way index.ts builds one (without the process wiring). */
export async function startGateway(
  database: DatabaseHandle,
  options: Partial<GatewayOptions> & { socketAddress?: string } = {},
): Promise<GatewayUnderTest> {
  const secretBox = await createSecretBox(TEST_SECRET);
  const services = createGatewayServices({
    database,
    secretBox,
    log: silentLogger,
    options: { usageFlushIntervalMs: 50, ...options },
  });
  await services.start();
  const fixedAddress = options.socketAddress;
  const app = createApp({
    services,
    socketAddress: fixedAddress === undefined ? undefined : () => fixedAddress,
  });
  let listening = false;
  return {
    services,
    app,
    secretBox,
    handle: (request) => app.handle(request),
    async listen() {
      app.listen({ port: 0, hostname: "127.0.0.1", idleTimeout: 0 });
      listening = true;
      return `http://127.0.0.1:${app.server!.port}/v1`;
    },
    async stop() {
      if (listening) await app.stop(true);
      await services.stop();
    },
  };
}

/**
 * The official OpenAI and Anthropic clients on one key, pointed at a listening gateway: `baseURL` is what
 * listen() returned (with /v1), which Anthropic's client appends itself. No retries: a test sees each answer.
 */
export function sdkClients(baseURL: string, apiKey: string): { openai: OpenAI; anthropic: Anthropic } {
  return {
    openai: new OpenAI({ apiKey, baseURL, maxRetries: 0 }),
    anthropic: new Anthropic({ apiKey, baseURL: baseURL.replace(/\/v1$/, ""), maxRetries: 0 }),
  };
}

/** Polls `condition` until it holds (conditions, not sleeps of a guessed length). */
export async function waitFor<T>(condition: () => Promise<T | undefined | null | false> | T | undefined | null | false, what = "condition", limitMs = 10_000): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await condition();
    if (value) return value as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

type RequestLogRow = typeof requestLogs.$inferSelect;

/** A token's request-log rows, oldest first, once the gateway's write-behind has written what it holds. */
export async function requestLogsOf(database: DatabaseHandle, gateway: GatewayUnderTest, tokenId: number): Promise<RequestLogRow[]> {
  await gateway.services.usage.flush();
  return database.db.select().from(requestLogs).where(eq(requestLogs.tokenId, tokenId)).orderBy(asc(requestLogs.id));
}

/** A fake a stack starts and closes: an upstream, a token endpoint. */
export interface Closable {
  close(): Promise<void>;
}

/** What integration files start in beforeAll: a fresh database, the fakes of `Fakes`, a gateway on them, a
 * seeder and one user whose tokens the tests create. */
export interface StackWith<Fakes> {
  database: FreshDatabase;
  fakes: Fakes;
  gateway: GatewayUnderTest;
  seed: ReturnType<typeof seeder>;
  userId: number;
  /** A token's request-log rows, oldest first (requestLogsOf). */
  logsOf(tokenId: number): Promise<RequestLogRow[]>;
  /** A token's last request-log row. */
  lastLog(tokenId: number): Promise<RequestLogRow>;
  /** Stops the gateway, closes the fakes (last started first) and drops the database. */
  stop(): Promise<void>;
}

export interface StackOptions {
  gateway?: Parameters<typeof startGateway>[1];
  user?: Parameters<ReturnType<typeof seeder>["user"]>[0];
}

/**
 * Starts a stack whose fakes `startFakes` starts, passing each one through `keep` so that the stack closes it
 * (and so that a set-up failing halfway closes those already started).
 */
export async function startStackWith<Fakes>(
  startFakes: (keep: <Fake extends Closable>(fake: Promise<Fake>) => Promise<Fake>) => Promise<Fakes>,
  options: StackOptions = {},
): Promise<StackWith<Fakes>> {
  let database: FreshDatabase | undefined;
  const started: Closable[] = [];
  let gateway: GatewayUnderTest | undefined;
  const stop = async () => {
    await gateway?.stop();
    for (const fake of [...started].reverse()) await fake.close();
    await database?.drop();
  };
  try {
    database = await freshDatabase();
    const fakes = await startFakes(async (fake) => {
      const running = await fake;
      started.push(running);
      return running;
    });
    gateway = await startGateway(database.handle, options.gateway);
    const seed = seeder(database.handle, gateway.secretBox, [gateway]);
    const userId = (await seed.user(options.user)).id;
    const { handle } = database;
    const running = gateway;
    const logsOf = (tokenId: number) => requestLogsOf(handle, running, tokenId);
    const lastLog = async (tokenId: number) => (await logsOf(tokenId)).at(-1)!;
    return { database, fakes, gateway, seed, userId, logsOf, lastLog, stop };
  } catch (error) {
    // A set-up that fails halfway leaves nothing running (afterAll has no stack to stop).
    await stop().catch(() => {});
    throw error;
  }
}

/** The stack most integration files start: one fake OpenAI upstream. */
export interface GatewayStack extends StackWith<{ upstream: FakeOpenAIUpstream }> {
  upstream: FakeOpenAIUpstream;
}

export async function startGatewayStack(options: StackOptions & { upstream?: FakeOpenAIUpstreamOptions } = {}): Promise<GatewayStack> {
  const stack = await startStackWith(async (keep) => ({ upstream: await keep(startFakeOpenAIUpstream(options.upstream)) }), options);
  return { ...stack, upstream: stack.fakes.upstream };
}
