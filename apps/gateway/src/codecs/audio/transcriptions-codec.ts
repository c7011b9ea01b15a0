import type { MeteredUnits, TokenUsage } from "@tollgate/shared";
import { errorResponse, errors } from "../../errors";
import type { Codec, ParsedCall, WholeAnswer } from "../../pipeline/codec";
import { type MediaRequest, mediaRequest, parseJsonAnswer, prepareMediaAttempt, servesOperation } from "../relay-media/media-request";
import { HEADER_BYTES, sizeBoundDurationMs, wavDurationMs } from "./audio-duration";

interface TranscriptionRequest extends MediaRequest {
  /** The file's duration from its header (WAV), or null. */
  headerDurationMs: number | null;
  /** An upper bound of the duration: the header's, else the size bound (audio-duration.ts). */
  worstCaseDurationMs: number;
}

const noTokens: TokenUsage = { promptTokens: 0, completionTokens: 0, cachedTokens: 0 };

/**
 * The audio seconds and tokens an upstream reported (platform.openai.com/docs/api-reference/audio/json-object):
 * `duration` in verbose_json, and `usage` as `{type: "duration", seconds}` (whisper-1) or `{type: "tokens",
 * input_tokens, output_tokens}` (gpt-4o-transcribe). text, srt and vtt answers report neither.
 */
function reported(json: Record<string, unknown> | null): { durationMs: number | null; tokens: TokenUsage | null } {
  if (!json) return { durationMs: null, tokens: null };
  const usage = (json.usage && typeof json.usage === "object" ? json.usage : {}) as Record<string, unknown>;
  const seconds = typeof json.duration === "number" ? json.duration : usage.type === "duration" && typeof usage.seconds === "number" ? usage.seconds : null;
  const tokens =
    usage.type === "tokens" && typeof usage.input_tokens === "number" && typeof usage.output_tokens === "number"
      ? { promptTokens: usage.input_tokens, completionTokens: usage.output_tokens, cachedTokens: 0 }
      : null;
  return { durationMs: seconds === null || !Number.isFinite(seconds) || seconds < 0 ? null : Math.round(seconds * 1000), tokens };
}

/**
 * POST /v1/audio/transcriptions and /translations (multipart: file, model, response_format, ...), relayed
 * as a form to channels that serve OpenAI's audio API. Billed per audio second: the duration the upstream
 * reports (verbose_json's `duration`, or `usage.seconds`), else the WAV header's, else the upper bound
 * from the file's size (the tokens then marked estimated); or by tokens when the model is priced so.
 */
function transcriptionsCodec(endpoint: string, operation: "audio/transcriptions" | "audio/translations"): Codec<TranscriptionRequest, null> {
  return {
    endpoint,
    identifiers: "openai",
    bodyFormat: "multipart",
    serves: servesOperation(operation),

    async parse(admission, services): Promise<ParsedCall<TranscriptionRequest>> {
      const file = admission.form?.get("file");
      if (file === undefined || file === null) throw errors.missingParameter("file");
      if (typeof file === "string") throw errors.invalidParameter("file", "'file' must be a file part (with a filename), not a text field.");
      const stream = admission.body.value.stream;
      if (stream === "true" || stream === true) {
        throw errors.invalidParameter("stream", "Streamed transcription is not supported by this gateway; leave 'stream' unset.");
      }
      const header = new Uint8Array(await file.slice(0, HEADER_BYTES).arrayBuffer());
      const headerDurationMs = wavDurationMs(header, file.size);
      const worstCaseDurationMs = headerDurationMs ?? sizeBoundDurationMs(file.size);
      return {
        request: { ...mediaRequest(operation, admission), headerDurationMs, worstCaseDurationMs },
        // For a model priced per token (gpt-4o-transcribe): the transcript's bound; the audio is bounded by the upload's size.
        maxOutputTokens: null,
        stream: false,
        worstCaseUnits: { unit: "audio_second", milliseconds: worstCaseDurationMs },
      };
    },

    prepare: prepareMediaAttempt,

    readWhole(text, { response }, transcription): WholeAnswer {
      const format = transcription.body.response_format;
      const json = format === "text" || format === "srt" || format === "vtt" ? null : parseJsonAnswer(text);
      const { durationMs, tokens } = reported(json);
      const measuredMs = durationMs ?? transcription.headerDurationMs;
      const units: MeteredUnits = { unit: "audio_second", milliseconds: measuredMs ?? transcription.worstCaseDurationMs };
      // Null usage marks the row estimated: the seconds billed are then the size's upper bound.
      const contentType = response.headers.get("content-type") ?? (json ? "application/json" : "text/plain; charset=utf-8");
      return { usage: tokens ?? (measuredMs === null ? null : noTokens), units, body: text, contentType };
    },

    producedText: () => "",

    estimateUsage: async () => noTokens,

    errorResponse,
  };
}

export const transcriptionsCodecs = {
  transcriptions: transcriptionsCodec("audio.transcriptions", "audio/transcriptions"),
  translations: transcriptionsCodec("audio.translations", "audio/translations"),
};
