import { describe, expect, test } from "bun:test";
import type { EventSourceMessage } from "eventsource-parser";
import { chunkFrame, eventFrame, exceptionFrame, joinFrames } from "../../../../test/helpers/bedrock-event-stream";
import { UpstreamResponseTooLargeError } from "../fetch-upstream";
import { ChannelCredentialError } from "../provider-adapter";
import { authorizeBedrock } from "./authorize";
import { bedrockCredentialProblem } from "./credentials";
import { createBedrockStreamDecoder } from "./event-stream-decoder";
import { mapBedrockError } from "./map-error";
import { buildBedrockMessagesRequest } from "./native-messages";

async function decode(pieces: Uint8Array[], maxEventBytes?: number): Promise<EventSourceMessage[]> {
  const events: EventSourceMessage[] = [];
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(piece);
      controller.close();
    },
  });
  const reader = body.pipeThrough(createBedrockStreamDecoder({ maxEventBytes })).getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) events.push(read.value);
  return events;
}

describe("the Bedrock event-stream decoder", () => {
  test("decodes frames however the bytes are cut: one byte at a time gives the same events", async () => {
    const bytes = joinFrames([eventFrame("messageStart", { role: "assistant" }), eventFrame("contentBlockDelta", { delta: { text: "hé" } })]);
    const whole = await decode([bytes]);
    const byteByByte = await decode([...bytes].map((byte) => new Uint8Array([byte])));
    expect(whole.map((event) => [event.event, JSON.parse(event.data)])).toEqual([
      ["messageStart", { role: "assistant" }],
      ["contentBlockDelta", { delta: { text: "hé" } }],
    ]);
    expect(byteByByte).toEqual(whole);
  });

  test("an InvokeModel chunk is the model's own event; an exception is an Anthropic-shaped error event", async () => {
    const events = await decode([chunkFrame({ type: "message_stop" }), exceptionFrame("throttlingException", "Slow down")]);
    expect(events[0]).toMatchObject({ event: "message_stop", data: '{"type":"message_stop"}' });
    expect(events[1]!.event).toBe("error");
    expect(JSON.parse(events[1]!.data)).toEqual({ type: "error", error: { type: "rate_limit_error", message: "throttlingException: Slow down" } });
  });

  test("a frame longer than the event cap is refused from its prelude, before it is buffered", async () => {
    const prelude = new Uint8Array([0x7f, 0xff, 0xff, 0xff]);
    await expect(decode([prelude], 1024)).rejects.toBeInstanceOf(UpstreamResponseTooLargeError);
  });

  test("a damaged checksum and a stream cut inside a frame are errors", async () => {
    const frame = eventFrame("messageStop", { stopReason: "end_turn" });
    const damaged = frame.slice();
    damaged[damaged.length - 1]! ^= 0xff;
    await expect(decode([damaged])).rejects.toThrow("does not decode");
    await expect(decode([frame.subarray(0, frame.length - 3)])).rejects.toThrow("ended inside a frame");
  });
});

describe("Bedrock credentials", () => {
  test("an access key JSON or an API key is accepted; anything else is refused without quoting it", () => {
    expect(bedrockCredentialProblem('{"accessKeyId":"AKIAEXAMPLE000000001","secretAccessKey":"s3cr3t"}')).toBeNull();
    expect(bedrockCredentialProblem('{"accessKeyId":"ASIAEXAMPLE000000001","secretAccessKey":"s","sessionToken":"token"}')).toBeNull();
    expect(bedrockCredentialProblem("ABSKZXhhbXBsZQ==")).toBeNull();
    for (const key of ["{broken-s3cr3t", '{"accessKeyId":"lower","secretAccessKey":"s3cr3t"}', '{"accessKeyId":"AKIAEXAMPLE000000001"}', "two words-s3cr3t x"]) {
      const problem = bedrockCredentialProblem(key);
      expect(problem, key).toBeString();
      expect(problem!).not.toContain("s3cr3t");
    }
  });

  test("authorize signs with SigV4 for the channel's region, and refuses a channel without a region as a credential fault", async () => {
    const channel = { baseUrl: "https://bedrock-runtime.us-west-2.amazonaws.com", apiKey: '{"accessKeyId":"AKIAEXAMPLE000000001","secretAccessKey":"s3cr3t"}', config: { region: "us-west-2" } };
    const signed = await authorizeBedrock({ method: "POST", url: `${channel.baseUrl}/model/x/converse`, headers: { "content-type": "application/json" }, body: "{}" }, channel);
    expect(signed.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAEXAMPLE000000001\/\d{8}\/us-west-2\/bedrock\/aws4_request, SignedHeaders=.*host.*, Signature=[0-9a-f]{64}$/);
    expect(signed.headers.host).toBeUndefined();
    expect(JSON.stringify(signed)).not.toContain("s3cr3t");
    await expect(authorizeBedrock({ method: "POST", url: channel.baseUrl, headers: {} }, { ...channel, config: {} })).rejects.toBeInstanceOf(ChannelCredentialError);
  });
});

describe("Bedrock's errors and native Messages", () => {
  const channel = { baseUrl: "https://b.example", apiKey: "k", config: {} };

  test("the error type in the body or the status decides: throttling retryable, validation the caller's, access denied the channel's", () => {
    expect(mapBedrockError(429, '{"message":"Too many requests"}', channel)).toMatchObject({ status: 429, retryable: true, channelFault: false, code: "rate_limit_exceeded" });
    expect(mapBedrockError(400, '{"__type":"com.amazon.coral#ServiceQuotaExceededException","message":"quota"}', channel)).toMatchObject({ status: 429, retryable: true });
    expect(mapBedrockError(400, '{"message":"bad field"}', channel)).toMatchObject({ status: 400, retryable: false, channelFault: false });
    expect(mapBedrockError(403, '{"message":"no access"}', channel)).toMatchObject({ status: 502, channelFault: true });
    expect(mapBedrockError(424, '{"message":"model failed"}', channel)).toMatchObject({ retryable: true, code: "model_error" });
  });

  test("only Claude model ids take the Messages body through InvokeModel; others are translated", () => {
    const input = { channel, body: { model: "c", max_tokens: 5, messages: [], stream: true }, text: "", version: null, beta: "a, b" };
    const request = buildBedrockMessagesRequest({ ...input, upstreamModel: "eu.anthropic.claude-3-haiku-20240307-v1:0" })!;
    expect(request.url).toBe("https://b.example/model/eu.anthropic.claude-3-haiku-20240307-v1%3A0/invoke-with-response-stream");
    expect(JSON.parse(request.body)).toEqual({ max_tokens: 5, messages: [], anthropic_version: "bedrock-2023-05-31", anthropic_beta: ["a", "b"] });
    expect(buildBedrockMessagesRequest({ ...input, upstreamModel: "mistral.mistral-large-2407-v1:0" })).toBeNull();
  });
});
