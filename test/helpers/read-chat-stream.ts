import type OpenAI from "openai";

/**
 * What an OpenAI chat stream carried, joined as a client joins it: the text, the first tool call's name and
 * arguments, the last finish reason (and every one, in order), and the usage chunk's usage.
 */
export async function readChatStream(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) {
  let text = "";
  let toolName = "";
  let toolArguments = "";
  let finish: string | null = null;
  const finishReasons: string[] = [];
  let usage: OpenAI.CompletionUsage | undefined;
  for await (const chunk of stream) {
    const choice = chunk.choices[0];
    text += choice?.delta?.content ?? "";
    for (const toolCall of choice?.delta?.tool_calls ?? []) {
      toolArguments += toolCall.function?.arguments ?? "";
      toolName ||= toolCall.function?.name ?? "";
    }
    if (choice?.finish_reason) finishReasons.push(choice.finish_reason);
    finish = choice?.finish_reason ?? finish;
    if (chunk.usage) usage = chunk.usage;
  }
  return { text, toolName, toolArguments, finish, finishReasons, usage };
}
