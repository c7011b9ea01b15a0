import type { TokenUsage } from "@tollgate/shared";
import { countTextTokens } from "../../accounting/count-tokens";
import { errorResponse, errors } from "../../errors";
import type { Codec, ParsedCall } from "../../pipeline/codec";
import { type MediaRequest, perRequestCall, prepareMediaAttempt, readResultsAnswer, requiredParameter, servesOperation } from "../relay-media/media-request";

/** A document as Cohere (v1: string or `{text}`) and Jina (string or `{text}`) accept it. */
function documentText(document: unknown): string | null {
  if (typeof document === "string") return document;
  if (document && typeof document === "object" && typeof (document as { text?: unknown }).text === "string") {
    return (document as { text: string }).text;
  }
  return null;
}

/**
 * Jina reports `usage.total_tokens` (jina.ai/reranker API); Cohere reports `meta.billed_units.search_units`
 * (docs.cohere.com/reference/rerank), which is one search per up to 100 documents: a request, not tokens.
 */
function rerankTokenUsage(json: Record<string, unknown>): TokenUsage | null {
  const usage = json.usage as Record<string, unknown> | undefined;
  const total = usage && typeof usage === "object" ? (usage.prompt_tokens ?? usage.total_tokens) : undefined;
  return typeof total === "number" ? { promptTokens: total, completionTokens: 0, cachedTokens: 0 } : null;
}

/**
 * POST /v1/rerank in the Cohere/Jina shape (model, query, documents, top_n, return_documents), relayed to
 * the `/rerank` of OpenAI-compatible channels serving the model (Jina, vLLM, Xinference, LocalAI and
 * others serve it there). Billed per request, or by the tokens the upstream reports (else counted locally).
 */
export const rerankCodec: Codec<MediaRequest, null> = {
  endpoint: "rerank",
  identifiers: "openai",
  serves: servesOperation("rerank"),

  parse(admission): ParsedCall<MediaRequest> {
    const body = admission.body.value;
    if (typeof requiredParameter(body, "query") !== "string") throw errors.invalidParameter("query", "'query' must be a string.");
    if (body.documents === undefined || body.documents === null) throw errors.missingParameter("documents");
    if (!Array.isArray(body.documents) || body.documents.length === 0) {
      throw errors.invalidParameter("documents", "'documents' must be a non-empty array of strings or {text} objects.");
    }
    body.documents.forEach((document, index) => {
      if (documentText(document) === null) {
        throw errors.invalidParameter("documents", `'documents[${index}]' must be a string or an object with a 'text' string.`);
      }
    });
    const topN = body.top_n;
    if (topN !== undefined && topN !== null && (typeof topN !== "number" || !Number.isInteger(topN) || topN < 1)) {
      throw errors.invalidParameter("top_n", "'top_n' must be a positive integer.");
    }
    return perRequestCall("rerank", admission);
  },

  prepare: prepareMediaAttempt,

  readWhole: (text) => readResultsAnswer(text, rerankTokenUsage),

  producedText: () => "",

  async estimateUsage(rerank) {
    const documents = (rerank.body.documents as unknown[]).map((document) => documentText(document) ?? "");
    return { promptTokens: await countTextTokens([String(rerank.body.query), ...documents].join("\n")), completionTokens: 0, cachedTokens: 0 };
  },

  errorResponse,
};
