import { errors } from "../errors";

export interface JsonBody {
  text: string;
  value: Record<string, unknown>;
  bytes: number;
}

/** Reads and parses a JSON object body, refusing it with 413 past `limit` bytes and 400 when malformed. */
export async function readJsonBody(request: Request, limit: number): Promise<JsonBody> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) throw errors.bodyTooLarge(limit);
  const buffer = await request.arrayBuffer();
  if (buffer.byteLength > limit) throw errors.bodyTooLarge(limit);
  if (buffer.byteLength === 0) throw errors.invalidJson("the body is empty");
  const text = new TextDecoder().decode(buffer);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw errors.invalidJson((error as Error).message);
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) throw errors.invalidJson("expected a JSON object");
  return { text, value: value as Record<string, unknown>, bytes: buffer.byteLength };
}
