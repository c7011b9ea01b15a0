import { anthropicMessagesCodec } from "./codecs/anthropic-messages/anthropic-messages-codec";
import { countTokensCodec } from "./codecs/anthropic-messages/count-tokens-codec";
import { speechCodec } from "./codecs/audio/speech-codec";
import { transcriptionsCodecs } from "./codecs/audio/transcriptions-codec";
import { embeddingsCodec } from "./codecs/embeddings-codec";
import { geminiBetaRows, geminiMethodRows } from "./codecs/gemini-api/gemini-api-rows";
import { imageEditsCodec, imageGenerationsCodec } from "./codecs/images/images-codec";
import { moderationsCodec } from "./codecs/moderations/moderations-codec";
import { chatCompletionsCodec, textCompletionsCodec } from "./codecs/openai-chat/chat-completions-codec";
import { rerankCodec } from "./codecs/rerank/rerank-codec";
import { responsesModule } from "./codecs/responses/responses-module";
import { mcpModule } from "./mcp/mcp-module";
import type { BackgroundJob, EndpointModule, EndpointRow } from "./pipeline/endpoint";
import { geminiModels, handleListModels, handleRetrieveModel, modelsErrorResponse } from "./routes/models";

/** Endpoint families that bring more than rows (state, background jobs): each adds its rows and its jobs. */
const MODULES = { responses: responsesModule, mcp: mcpModule } satisfies Record<string, EndpointModule>;

/**
 * Every endpoint the gateway serves under /v1 (and /mcp), one row each: app.ts registers exactly these (each inside the
 * one admission and CallRecord wrapper), and the 404 and 405 answers list them. The order is the order the
 * 404 lists them in. Adding an endpoint is a codec and a row here.
 */
export const ENDPOINT_TABLE: readonly EndpointRow[] = [
  { method: "POST", path: "/v1/chat/completions", codec: chatCompletionsCodec },
  { method: "POST", path: "/v1/completions", codec: textCompletionsCodec },
  ...MODULES.responses.rows,
  { method: "POST", path: "/v1/messages", codec: anthropicMessagesCodec },
  { method: "POST", path: "/v1/messages/count_tokens", codec: countTokensCodec },
  { method: "POST", path: "/v1/embeddings", codec: embeddingsCodec },
  { method: "POST", path: "/v1/images/generations", codec: imageGenerationsCodec },
  { method: "POST", path: "/v1/images/edits", codec: imageEditsCodec },
  { method: "POST", path: "/v1/audio/transcriptions", codec: transcriptionsCodecs.transcriptions },
  { method: "POST", path: "/v1/audio/translations", codec: transcriptionsCodecs.translations },
  { method: "POST", path: "/v1/audio/speech", codec: speechCodec },
  { method: "POST", path: "/v1/moderations", codec: moderationsCodec },
  { method: "POST", path: "/v1/rerank", codec: rerankCodec },
  { method: "GET", path: "/v1/models", endpoint: "models.list", handler: handleListModels, errorResponse: modelsErrorResponse },
  { method: "GET", path: "/v1/models/{id*}", endpoint: "models.retrieve", handler: handleRetrieveModel, errorResponse: modelsErrorResponse },
  // The Gemini API (@google/genai, Gemini CLI): /v1beta, and /v1, where @google/genai sends it by default.
  ...geminiMethodRows("/v1"),
  ...geminiBetaRows(geminiModels),
  // The MCP gateway (not under /v1): Streamable HTTP, sessions of its own.
  ...MODULES.mcp.rows,
];

/** The background jobs of the table's modules, started and stopped with the gateway's services. */
export const ENDPOINT_JOBS: readonly BackgroundJob[] = Object.values(MODULES).flatMap((module: EndpointModule) => module.jobs ?? []);
