import { errors, GatewayError } from "../errors";
import { type BodyLimits, type JsonBody, readBody } from "../routes/read-json-body";
import { countMultipartParts, multipartBoundaryOf } from "./count-multipart-parts";

/**
 * Most parts an upload may hold. An audio or image upload has a file and a handful of fields; a body of
 * hundreds of thousands of tiny parts (16 MiB holds 320,000) is refused before the runtime parses it.
 */
export const MAX_MULTIPART_PARTS = 1_000;

/** A multipart/form-data upload as admitted: its text fields (as a body for the checks), and the whole form to relay. */
export interface MultipartBody {
  /** The text fields, for the checks and routing every call goes through (`bytes`: the whole upload's size). */
  fields: JsonBody;
  form: FormData;
  /** The upload as it came, relayed byte for byte when nothing in it must change. */
  upload: { bytes: Uint8Array<ArrayBuffer>; contentType: string };
}

/** `fields[name] = value`, a field named `__proto__` included (kept a field, never made the prototype). */
function setField(fields: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(fields, name, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Reads a multipart/form-data upload within `limits` (413/408 as for JSON bodies) and parses it. The body
 * is read whole, up to the limit, before anything is sent upstream: the `model` part that routing needs
 * comes after the file in what the usual clients send (the `openai` client writes `file` first), so a
 * streamed relay would have to hold the file until then anyway; a whole body can also be replayed to
 * the next channel on failover.
 */
export async function readMultipartBody(request: Request, limits: BodyLimits): Promise<MultipartBody> {
  const contentType = request.headers.get("content-type") ?? "";
  const boundary = /^multipart\/form-data\s*;/i.test(contentType) ? multipartBoundaryOf(contentType) : null;
  if (boundary === null) {
    throw new GatewayError("This endpoint takes a multipart/form-data body (with a boundary); send the file and fields as form parts.", {
      status: 400,
      code: "invalid_content_type",
    });
  }
  const buffer = await readBody(request, limits);
  if (buffer.byteLength > limits.maxBytes) throw errors.bodyTooLarge(limits.maxBytes);
  if (countMultipartParts(buffer, boundary, MAX_MULTIPART_PARTS) > MAX_MULTIPART_PARTS) {
    throw new GatewayError(`The multipart/form-data body holds more than ${MAX_MULTIPART_PARTS} parts; send the file and its fields only.`, {
      status: 400,
      code: "invalid_multipart",
    });
  }
  let form: FormData;
  try {
    form = await new Response(buffer, { headers: { "content-type": contentType } }).formData();
  } catch {
    throw new GatewayError("We could not parse the multipart/form-data body of your request.", { status: 400, code: "invalid_multipart" });
  }
  const value: Record<string, unknown> = {};
  for (const [name, part] of form.entries()) {
    if (typeof part !== "string") continue;
    // Repeated fields (e.g. `timestamp_granularities[]`) keep every value, pushed in place (linear).
    const previous = Object.hasOwn(value, name) ? value[name] : undefined;
    if (previous === undefined) setField(value, name, part);
    else if (Array.isArray(previous)) previous.push(part);
    else setField(value, name, [previous, part]);
  }
  return { fields: { text: "", value, bytes: buffer.byteLength }, form, upload: { bytes: buffer, contentType } };
}
