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
