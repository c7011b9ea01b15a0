import type { MeteredUnits } from "@tollgate/shared";
import { DEFAULT_UPSTREAM_MAX_BODY_BYTES, UpstreamResponseTooLargeError } from "@tollgate/upstream";
import { countTextTokens } from "../../accounting/count-tokens";
import { errorResponse, errors } from "../../errors";
import type { Codec, ParsedCall, WholeAnswer } from "../../pipeline/codec";
import { relayStream } from "../../streaming/relay-stream";
import { type MediaRequest, mediaRequest, prepareMediaAttempt, requiredParameter, servesOperation } from "../relay-media/media-request";

interface SpeechRequest extends MediaRequest {
  input: string;
  /** Characters of input (code points, as OpenAI counts them for tts pricing). */
  characters: number;
}

/**
 * POST /v1/audio/speech: JSON in, the upstream's audio (mp3, opus, aac, flac, wav, pcm, or its SSE stream
 * with `stream_format: "sse"`) relayed to the client as it comes, in the upstream's content type. Billed
 * per 1M characters of input, or by the input's tokens (counted locally) for a model priced per token.
 */
export const speechCodec: Codec<SpeechRequest, null> = {
  endpoint: "audio.speech",
  identifiers: "openai",
  serves: servesOperation("audio/speech"),

  parse(admission): ParsedCall<SpeechRequest> {
    const input = requiredParameter(admission.body.value, "input");
    if (typeof input !== "string") throw errors.invalidParameter("input", "'input' must be a string.");
    const characters = [...input].length;
    const units: MeteredUnits = { unit: "character", count: characters };
    return {
      request: { ...mediaRequest("audio/speech", admission), input, characters },
      maxOutputTokens: 0,
      stream: false,
      worstCaseUnits: units,
    };
  },

  prepare: prepareMediaAttempt,

  passThrough(forwarded, speech, sink) {
    const units: MeteredUnits = { unit: "character", count: speech.characters };
    const maxBytes = sink.maxBodyBytes ?? DEFAULT_UPSTREAM_MAX_BODY_BYTES;
    let relayedBytes = 0;
    return relayStream(forwarded.response.body!, {
      frame: (bytes) => {
        // Relayed as it comes, but an answer is still bounded: audio that never ends is cut at the body cap.
        relayedBytes += bytes.byteLength;
        if (relayedBytes > maxBytes) throw new UpstreamResponseTooLargeError(maxBytes);
        return bytes;
      },
      // Audio has no in-band error: a cut stream is errored so that the client never takes it for a whole file.
      errorFrame: () => null,
      onFirstItem: () => sink.firstByte(),
      // The upstream bills the whole input once it started answering, so the call is billed so too, even if cut.
      onFinish: (outcome) => sink.end(outcome, null, () => "", units),
      abortUpstream: forwarded.abort,
      idleTimeoutMs: sink.idleTimeoutMs,
    });
  },

  readWhole: (text): WholeAnswer => ({ usage: null, body: text }),

  producedText: () => "",

  async estimateUsage(speech) {
    return { promptTokens: await countTextTokens(speech.input), completionTokens: 0, cachedTokens: 0 };
  },

  errorResponse,
};
