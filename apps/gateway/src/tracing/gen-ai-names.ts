/** gen_ai.operation.name for a Tollgate endpoint (OpenTelemetry GenAI semantic conventions' well-known values). */
export function genAiOperationOf(endpoint: string): string {
  switch (endpoint) {
    case "chat.completions":
    case "messages":
    case "responses":
      return "chat";
    case "completions":
      return "text_completion";
    case "embeddings":
    case "gemini.embedContent":
      return "embeddings";
    default:
      return endpoint.startsWith("gemini.") && endpoint.includes("enerate") ? "generate_content" : endpoint;
  }
}

/** gen_ai.provider.name for an adapter type (the conventions' well-known values where one exists). */
export function genAiProviderOf(providerType: string): string {
  switch (providerType) {
    case "openai-compatible":
      return "openai";
    case "azure-openai":
      return "azure.ai.openai";
    case "gemini":
      return "gcp.gemini";
    case "vertex":
      return "gcp.vertex_ai";
    case "bedrock":
      return "aws.bedrock";
    default:
      return providerType;
  }
}

/**
 * The response model and finish reasons of a whole answer in any client format: chat completions'
 * choices[].finish_reason, Messages' stop_reason, Responses' status, Gemini's candidates[].finishReason.
 */
export function answerFacts(body: string): { model: string | null; finishReasons: string[] } {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { model: null, finishReasons: [] };
  }
  if (typeof value !== "object" || value === null) return { model: null, finishReasons: [] };
  const answer = value as Record<string, unknown>;
  const model = typeof answer.model === "string" ? answer.model : typeof answer.modelVersion === "string" ? answer.modelVersion : null;
  const finishReasons: string[] = [];
  const lists = [answer.choices, answer.candidates];
  for (const list of lists) {
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      const reason = (item as Record<string, unknown> | null)?.finish_reason ?? (item as Record<string, unknown> | null)?.finishReason;
      if (typeof reason === "string") finishReasons.push(reason);
    }
  }
  if (typeof answer.stop_reason === "string") finishReasons.push(answer.stop_reason);
  if (finishReasons.length === 0 && answer.object === "response" && typeof answer.status === "string") finishReasons.push(answer.status);
  return { model, finishReasons };
}

const FINISH_REASON = /"(?:finish_reason|stop_reason|finishReason|stopReason)"\s*:\s*"([A-Za-z_]{1,40})"/g;

/**
 * Bytes passed through unchanged, with the finish reasons they name (chat's finish_reason, Messages'
 * stop_reason, Gemini's finishReason, Bedrock's stopReason) added to `reasons`; `changed` is called when
 * one is new. The last 64 characters are kept so that a reason split between two chunks is still read.
 */
export function streamedFinishReasons(
  reasons: Set<string>,
  changed: () => void,
  /** With content capture: receives the stream's text as it passes (the trace keeps a bounded copy). */
  onText?: (text: string) => void,
): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  let tail = "";
  return new TransformStream({
    transform(chunk, controller) {
      controller.enqueue(chunk);
      const decoded = decoder.decode(chunk, { stream: true });
      onText?.(decoded);
      const text = tail + decoded;
      const before = reasons.size;
      for (const match of text.matchAll(FINISH_REASON)) reasons.add(match[1]!);
      if (reasons.size !== before) changed();
      tail = text.slice(-64);
    },
  });
}

/**
 * The text a streamed answer carried, from its SSE events in the upstream's format: chat's delta.content,
 * Messages' delta.text, Gemini's candidates' parts' text. Events that are not JSON are skipped.
 */
export function streamedText(events: string): string {
  let text = "";
  for (const line of events.split("\n")) {
    if (!line.startsWith("data:")) continue;
    let event: unknown;
    try {
      event = JSON.parse(line.slice(5));
    } catch {
      continue;
    }
    const value = event as {
      choices?: { delta?: { content?: unknown } }[];
      delta?: { text?: unknown };
      candidates?: { content?: { parts?: { text?: unknown }[] } }[];
    };
    for (const choice of value.choices ?? []) if (typeof choice.delta?.content === "string") text += choice.delta.content;
    if (typeof value.delta?.text === "string") text += value.delta.text;
    for (const candidate of value.candidates ?? []) for (const part of candidate.content?.parts ?? []) if (typeof part.text === "string") text += part.text;
  }
  return text;
}
