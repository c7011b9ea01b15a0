import { isRecord } from "@tollgate/shared";

/** One entry of a chat chunk's `delta.tool_calls`, read defensively. */
export interface ToolCallDelta {
  /** The call's index in the answer (0 when the upstream leaves it out). */
  index: number;
  /** The call id, when this delta carries a non-empty one. */
  id: string | null;
  /** The function name, when this delta carries one. */
  name: string | null;
  /** The next piece of the arguments' JSON text, when this delta carries a non-empty one. */
  arguments: string | null;
}

/** A tool-call delta, or null for an entry that is not an object. */
export function readToolCallDelta(raw: unknown): ToolCallDelta | null {
  if (!isRecord(raw)) return null;
  const fn = isRecord(raw.function) ? raw.function : {};
  return {
    index: typeof raw.index === "number" ? raw.index : 0,
    id: typeof raw.id === "string" && raw.id !== "" ? raw.id : null,
    name: typeof fn.name === "string" ? fn.name : null,
    arguments: typeof fn.arguments === "string" && fn.arguments !== "" ? fn.arguments : null,
  };
}

/**
 * Whether the delta begins a call: the first at its index, or one with another id than the call open at its
 * index (some OpenAI-compatible upstreams send every call with index 0: a new id means a new call).
 */
export function beginsToolCall(delta: ToolCallDelta, openCallId: string | undefined): boolean {
  return openCallId === undefined || (delta.id !== null && delta.id !== openCallId);
}

/**
 * Each well-formed delta of a chunk's `tool_calls`, with the call open at its index, or undefined when the
 * delta begins a call (see beginsToolCall): the translator opens its own kind of item for it.
 */
export function* toolCallDeltas<Call>(toolCalls: readonly unknown[], open: ReadonlyMap<number, Call>, idOf: (call: Call) => string): Generator<[ToolCallDelta, Call | undefined]> {
  for (const raw of toolCalls) {
    const delta = readToolCallDelta(raw);
    if (!delta) continue;
    const call = open.get(delta.index);
    yield [delta, call === undefined || beginsToolCall(delta, idOf(call)) ? undefined : call];
  }
}
