/** Text the model produced in one choice delta or message: content, reasoning and tool-call arguments. */
export function producedText(part: Record<string, unknown> | undefined): string {
  if (!part) return "";
  let text = "";
  if (typeof part.content === "string") text += part.content;
  if (typeof part.text === "string") text += part.text;
  if (typeof part.reasoning_content === "string") text += part.reasoning_content;
  if (Array.isArray(part.tool_calls)) {
    for (const call of part.tool_calls as Array<{ function?: { name?: string; arguments?: string } }>) {
      text += (call.function?.name ?? "") + (call.function?.arguments ?? "");
    }
  }
  return text;
}

/** Appends what one chat.completion.chunk (or legacy completion chunk) produced to `produced`. */
export function collectChunkText(chunk: Record<string, unknown>, produced: string[]): void {
  const choices = chunk.choices as Array<{ delta?: Record<string, unknown>; text?: string }> | undefined;
  if (!choices) return;
  for (const choice of choices) {
    const text = choice.delta ? producedText(choice.delta) : (choice.text ?? "");
    if (text) produced.push(text);
  }
}
