import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type AdapterChannel, adapterFor, type MappedUpstreamError, type ProviderAdapter, registerProviderAdapter, TranslationError } from "@tollgate/upstream";
import { type FakeServer, startFakeServer } from "../../../../test/helpers/fake-upstream-kit";
import { SETUP_TIMEOUT_MS } from "../../../../test/helpers/timeouts";
import type { Caller } from "../auth/authenticate";
import { chatCompletionsCodec } from "../codecs/openai-chat/chat-completions-codec";
import { GatewayError } from "../errors";
import { defaultGatewayOptions } from "../gateway-options";
import type { GatewayServices } from "../gateway-services";
import { silentLogger } from "../logger";
import type { RoutableChannel } from "../routing/channel-catalog";
import { ChannelHealth } from "../routing/channel-health";
import { forwardWithFailover } from "../routing/forward-with-failover";

/**
 * The exchange's failover decisions with a provider the gateway knows nothing about: a fake adapter whose
 * error mapper reads its verdict from the upstream's answer ({"verdict": "retry" | "fault" | "client"}),
 * whatever the status. So each test shows that failover asks the adapter (retryable, channelFault) and
 * never a status list, through the chat codec's parse and prepare as run-exchange calls them.
 */

const FAKE_TYPE = "fake-verdicts";
const KEY = "fake-key-1234";

/** What each channel's upstream answers: by the path's first segment (the channel's base URL ends with it). */
const answers = new Map<string, { status: number; body: unknown }>();
const seen: string[] = [];
let upstream: FakeServer;

function mapVerdict(status: number, bodyText: string, _channel: AdapterChannel): MappedUpstreamError {
  let verdict: unknown = null;
  try {
    verdict = (JSON.parse(bodyText) as { verdict?: unknown }).verdict;
  } catch {
    // No verdict: the client's error.
  }
  return {
    status,
    message: `fake upstream answered ${status}`,
    type: status >= 500 ? "server_error" : "invalid_request_error",
    code: `fake_${String(verdict)}`,
    param: null,
    retryable: verdict === "retry",
    channelFault: verdict === "fault",
  };
}

const fakeAdapter: ProviderAdapter = {
  type: FAKE_TYPE,
  description: { label: "Fake verdicts", defaultBaseUrl: null, settings: { preset: false, apiVersion: false, structuredOutput: false } },
  relaysOpenAIFormat: false,
  buildChatRequest(input) {
    if (input.body.seed !== undefined && input.channel.config.noSeed === true) {
      throw new TranslationError("This channel cannot carry a seed.", "seed", "unsupported_parameter");
    }
    return {
      url: `${input.channel.baseUrl}/answer`,
      headers: { "content-type": "application/json", "x-fake-key": input.channel.apiKey },
      body: JSON.stringify({ model: input.upstreamModel, said: input.body.messages }),
    };
  },
  translateChatResponse(upstreamBody, input) {
    const answer = upstreamBody as { text: string };
    const completion = {
      id: "chatcmpl-fake",
      object: "chat.completion",
      created: 0,
      model: String(input.body.model),
      choices: [{ index: 0, message: { role: "assistant", content: answer.text }, finish_reason: "stop" }],
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    };
    return { completion, usage: { promptTokens: 3, completionTokens: 1, cachedTokens: 0 } };
  },
  createChatStreamTransformer: () => new TransformStream(),
  mapError: mapVerdict,
};

let unregister: () => void;

beforeAll(() => {
  unregister = registerProviderAdapter(fakeAdapter);
  upstream = startFakeServer({
    async fetch(request) {
      const name = new URL(request.url).pathname.split("/")[1] ?? "";
      if (request.headers.get("x-fake-key") !== KEY) return Response.json({ verdict: "fault" }, { status: 403 });
      seen.push(name);
      const answer = answers.get(name) ?? { status: 200, body: { text: `hello from ${name}` } };
      return Response.json(answer.body, { status: answer.status });
    },
  });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  unregister?.();
  await upstream?.close();
}, SETUP_TIMEOUT_MS);

function setUp(channelNames: string[], config: Record<string, Record<string, unknown>> = {}) {
  answers.clear();
  seen.length = 0;
  const health = new ChannelHealth({ failureThreshold: 1, windowMs: 60_000, cooldownMs: 60_000, maxCooldownMs: 600_000 });
  const disabled: number[] = [];
  const services = {
    options: { ...defaultGatewayOptions, upstreamTimeoutMs: 5000 },
    health,
    metrics: null,
    log: silentLogger,
    disableChannel: (channel: RoutableChannel) => disabled.push(channel.id),
  };
  const channels = channelNames.map(
    (name, index) =>
      ({
        id: index + 1,
        name,
        type: FAKE_TYPE,
        baseUrl: `${upstream.origin}/${name}`,
        apiKey: KEY,
        models: ["fake-model"],
        modelMapping: {},
        config: config[name] ?? {},
        adapter: adapterFor(FAKE_TYPE),
      }) as unknown as RoutableChannel,
  );
  return { services, health, disabled, channels, call: { requestId: "req_fake", channelsTried: [] as number[] } };
}

/** The chat codec's facts for a client's body, as run-exchange gets them after admission. */
async function parsedChat(extra: Record<string, unknown> = {}) {
  const value = { model: "fake-model", messages: [{ role: "user", content: "Hi" }], ...extra };
  const text = JSON.stringify(value);
  const admission = { caller: {} as Caller, body: { value, text, bytes: text.length }, model: "fake-model" };
  const parsed = await chatCompletionsCodec.parse(admission, {} as GatewayServices, new Request("http://gateway.test/v1/chat/completions"));
  return parsed.request;
}

async function forward(setup: ReturnType<typeof setUp>, extra: Record<string, unknown> = {}) {
  const chat = await parsedChat(extra);
  return forwardWithFailover(setup.services, setup.call, setup.channels, undefined, (channel, adapter) => chatCompletionsCodec.prepare(channel, adapter, chat));
}

describe("failover with an adapter the gateway knows only through its contract", () => {
  test("the registered adapter is the one routing finds for its type", () => {
    expect(adapterFor(FAKE_TYPE)).toBe(fakeAdapter);
  });

  test("an answer the adapter calls retryable goes to the next channel, and the first is charged a failure but not disabled", async () => {
    const setup = setUp(["first", "second"]);
    answers.set("first", { status: 418, body: { verdict: "retry" } });
    const forwarded = await forward(setup);
    expect(forwarded.channel.name).toBe("second");
    expect(forwarded.upstreamError).toBeNull();
    expect(seen).toEqual(["first", "second"]);
    expect(setup.call.channelsTried).toEqual([1, 2]);
    expect(setup.health.isAvailable(1)).toBe(false);
    expect(setup.health.isAvailable(2)).toBe(true);
    expect(setup.disabled).toEqual([]);
    const answer = chatCompletionsCodec.readWhole(await forwarded.response.text(), forwarded, await parsedChat());
    expect(JSON.parse(answer!.body).choices[0].message.content).toBe("hello from second");
  });

  test("an answer the adapter calls the channel's fault disables that channel and goes to the next", async () => {
    const setup = setUp(["refused", "spare"]);
    answers.set("refused", { status: 400, body: { verdict: "fault" } });
    const forwarded = await forward(setup);
    expect(forwarded.channel.name).toBe("spare");
    expect(setup.disabled).toEqual([1]);
    expect(seen).toEqual(["refused", "spare"]);
  });

  test("an answer the adapter calls the client's error is relayed as it mapped it, and no other channel is tried", async () => {
    const setup = setUp(["picky", "unused"]);
    answers.set("picky", { status: 503, body: { verdict: "client" } });
    const forwarded = await forward(setup);
    expect(forwarded.channel.name).toBe("picky");
    expect(forwarded.upstreamError).toBeInstanceOf(GatewayError);
    expect(forwarded.upstreamError).toMatchObject({ status: 503, code: "fake_client" });
    expect(seen).toEqual(["picky"]);
    expect(setup.call.channelsTried).toEqual([1]);
    expect(setup.health.isAvailable(1)).toBe(true);
    expect(setup.disabled).toEqual([]);
  });

  test("when every channel's answer is retryable, the last mapped error is thrown", async () => {
    const setup = setUp(["busy", "busier"]);
    answers.set("busy", { status: 429, body: { verdict: "retry" } });
    answers.set("busier", { status: 502, body: { verdict: "retry" } });
    const error = await forward(setup).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 502, code: "fake_retry" });
    expect(seen).toEqual(["busy", "busier"]);
  });

  test("a channel whose adapter cannot carry the request is passed over untried and unblamed; the next one serves it", async () => {
    const setup = setUp(["no-seed", "with-seed"], { "no-seed": { noSeed: true } });
    const forwarded = await forward(setup, { seed: 7 });
    expect(forwarded.channel.name).toBe("with-seed");
    expect(seen).toEqual(["with-seed"]);
    expect(setup.call.channelsTried).toEqual([2]);
    expect(setup.health.isAvailable(1)).toBe(true);
  });

  test("when no channel can carry the request, the answer is the capability gap's 400, whatever the order", async () => {
    for (const order of [["gap-a", "gap-b"], ["gap-b", "gap-a"]]) {
      const setup = setUp(order, { "gap-a": { noSeed: true }, "gap-b": { noSeed: true } });
      const error = await forward(setup, { seed: 7 }).catch((thrown: unknown) => thrown);
      expect(error).toMatchObject({ status: 400, code: "unsupported_parameter", param: "seed" });
      expect(seen).toEqual([]);
    }
  });
});
