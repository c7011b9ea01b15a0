import { describe, expect, test } from "bun:test";
import { type Fuzz, forEachCaseAsync } from "@tollgate/shared/fuzz-support";
import { GatewayError } from "../errors";
import { countMultipartParts, multipartBoundaryOf } from "./count-multipart-parts";
import { MAX_MULTIPART_PARTS, readMultipartBody } from "./read-multipart-body";

const limits = { maxBytes: 256 * 1024, timeoutMs: 10_000 };
const encoder = new TextEncoder();

function part(boundary: string, name: string, value: string, file?: { filename: string; type: string }): string {
  const disposition = file ? `form-data; name="${name}"; filename="${file.filename}"` : `form-data; name="${name}"`;
  return `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${file ? `Content-Type: ${file.type}\r\n` : ""}\r\n${value}\r\n`;
}

/** A multipart body as clients send one, then (sometimes) damaged: truncated, bytes flipped, parts multiplied. */
function randomUpload(fuzz: Fuzz): { contentType: string; bytes: Uint8Array<ArrayBuffer> } {
  const boundary = fuzz.pick(["x", "----WebKitFormBoundary7MA4YWxkTrZu0gW", "b", "a'()+_,-./:=?"]);
  const names = ["model", "file", "prompt", "timestamp_granularities[]", "__proto__", "constructor", "toString", fuzz.string(6)];
  let text = "";
  const parts = fuzz.chance(0.1) ? MAX_MULTIPART_PARTS - 2 + fuzz.int(5) : fuzz.int(8);
  for (let index = 0; index < parts; index++) {
    const name = fuzz.pick(names);
    text += fuzz.chance(0.2) ? part(boundary, name, fuzz.string(200), { filename: fuzz.pick(["a.wav", "", "é.png"]), type: fuzz.pick(["audio/wav", "image/png", ""]) }) : part(boundary, name, fuzz.string(30));
  }
  text += fuzz.chance(0.9) ? `--${boundary}--\r\n` : "";
  let bytes = encoder.encode(text);
  if (fuzz.chance(0.2)) bytes = bytes.slice(0, fuzz.int(bytes.byteLength + 1));
  if (fuzz.chance(0.2)) for (let flips = 1 + fuzz.int(4); flips > 0 && bytes.byteLength > 0; flips--) bytes[fuzz.int(bytes.byteLength)] = fuzz.int(256);
  const contentType = fuzz.pick([
    `multipart/form-data; boundary=${boundary}`,
    `multipart/form-data; boundary="${boundary}"`,
    `multipart/form-data; charset=utf-8; boundary=${boundary}`,
    "multipart/form-data",
    "multipart/form-data; boundary=",
    `multipart/mixed; boundary=${boundary}`,
    "application/json",
  ]);
  return { contentType, bytes };
}

describe("readMultipartBody under fuzzing", () => {
  test("2,000 random and damaged uploads are parsed within the part cap or refused with a GatewayError", async () => {
    const outcomes = { ok: 0, refused: 0, tooManyParts: 0 };
    await forEachCaseAsync(2_000, 50_000, async (fuzz) => {
      const { contentType, bytes } = randomUpload(fuzz);
      const request = new Request("http://gateway.test/v1/audio/transcriptions", { method: "POST", headers: { "content-type": contentType }, body: bytes });
      try {
        const upload = await readMultipartBody(request, limits);
        expect(upload.upload.bytes.byteLength).toBe(bytes.byteLength);
        let parts = 0;
        for (const _ of upload.form.entries()) parts++;
        expect(parts).toBeLessThanOrEqual(MAX_MULTIPART_PARTS);
        // Every text field is a string or a list of strings, whatever its name.
        for (const name of Object.keys(upload.fields.value)) {
          const value = upload.fields.value[name];
          expect(typeof value === "string" || (Array.isArray(value) && value.every((entry) => typeof entry === "string"))).toBe(true);
        }
        expect(Object.getPrototypeOf(upload.fields.value)).toBe(Object.prototype);
        outcomes.ok++;
      } catch (error) {
        if (!(error instanceof GatewayError)) throw error;
        expect(error.status).toBe(400);
        expect(["invalid_multipart", "invalid_content_type"]).toContain(error.code ?? "");
        if (error.message.includes("parts")) outcomes.tooManyParts++;
        outcomes.refused++;
      }
    });
    expect(outcomes.ok).toBeGreaterThan(100);
    expect(outcomes.refused).toBeGreaterThan(100);
    expect(outcomes.tooManyParts).toBeGreaterThan(5);
  });
});

describe("countMultipartParts", () => {
  test("counts the parts of a body the runtime would serialise, without the closing delimiter", async () => {
    const form = new FormData();
    form.append("model", "whisper-1");
    form.append("file", new File([new Uint8Array(100)], "a.wav"));
    form.append("a", "1");
    const request = new Request("http://x", { method: "POST", body: form });
    const boundary = multipartBoundaryOf(request.headers.get("content-type")!)!;
    expect(countMultipartParts(new Uint8Array(await request.arrayBuffer()), boundary, 1_000)).toBe(3);
  });

  test("stops counting after the cap, so a body of millions of parts costs the cap's searches", () => {
    const bytes = encoder.encode("--b\r\n\r\n\r\n".repeat(2_000_000));
    expect(countMultipartParts(bytes, "b", 1_000)).toBe(1_001);
    expect(countMultipartParts(bytes.slice(0, 9 * 501), "b", 1_000)).toBe(500);
  });

  test("reads a quoted or bare boundary, and none from a type without one", () => {
    expect(multipartBoundaryOf('multipart/form-data; boundary="a b"')).toBe("a b");
    expect(multipartBoundaryOf("multipart/form-data; charset=utf-8; boundary=xyz")).toBe("xyz");
    expect(multipartBoundaryOf("multipart/form-data")).toBeNull();
    expect(multipartBoundaryOf("multipart/form-data; boundary=")).toBeNull();
  });
});
