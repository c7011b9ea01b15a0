import { describe, expect, test } from "bun:test";
import { sizeBoundDurationMs, wavDurationMs } from "./audio-duration";

/** A PCM WAV header: 16 kHz, mono, 16 bit (32,000 bytes a second), then `dataBytes` of silence. */
function wav(dataBytes: number, declared = dataBytes): Uint8Array {
  const bytes = new Uint8Array(44 + dataBytes);
  const view = new DataView(bytes.buffer);
  const ascii = (offset: number, text: string) => [...text].forEach((char, index) => view.setUint8(offset + index, char.charCodeAt(0)));
  ascii(0, "RIFF");
  view.setUint32(4, 36 + dataBytes, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, 16_000, true);
  view.setUint32(28, 32_000, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  ascii(36, "data");
  view.setUint32(40, declared, true);
  return bytes;
}

describe("audio duration", () => {
  test("a WAV file's duration is its data size over its byte rate", () => {
    const file = wav(80_000);
    expect(wavDurationMs(file, file.byteLength)).toBe(2_500);
  });

  test("a WAV written as a stream, its data size unset, plays for the rest of the file", () => {
    const file = wav(16_000, 0xffffffff);
    expect(wavDurationMs(file, file.byteLength)).toBe(500);
  });

  test("a file that is not a WAV has no header duration, and its size gives an upper bound", () => {
    expect(wavDurationMs(new TextEncoder().encode("ID3\u0004 not a wav at all"), 1000)).toBeNull();
    expect(sizeBoundDurationMs(1_000_000)).toBe(250_000);
  });
});

describe("a WAV header's byte rate field", () => {
  test("is not trusted: the duration comes from the sample rate and frame size decoders play at", () => {
    const file = new Uint8Array(44 + 64_000);
    const view = new DataView(file.buffer);
    const ascii = (offset: number, text: string) => [...text].forEach((char, index) => view.setUint8(offset + index, char.charCodeAt(0)));
    ascii(0, "RIFF");
    ascii(8, "WAVE");
    ascii(12, "fmt ");
    view.setUint32(16, 16, true);
    view.setUint16(22, 1, true);
    view.setUint32(24, 16_000, true);
    // A byte rate a hundred times too high would bill a hundredth of the audio.
    view.setUint32(28, 3_200_000, true);
    view.setUint16(32, 2, true);
    ascii(36, "data");
    view.setUint32(40, 64_000, true);
    expect(wavDurationMs(file, file.byteLength)).toBe(2_000);
  });
});
