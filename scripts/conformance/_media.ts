// The smallest valid media the content scenarios ask for, built here instead of
// pasted as opaque base64: a 1×1 red PNG and a short silent WAV.

import { concatBytes } from "../../internal/concat_bytes.ts";

/** A 1×1 red PNG, base64. */
export async function redPixelPng(): Promise<string> {
  const header = chunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]);
  // One scanline: filter byte 0, then R G B.
  const pixels = await deflate(new Uint8Array([0, 255, 0, 0]));
  const png = concatBytes([
    new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]),
    header,
    chunk("IDAT", [...pixels]),
    chunk("IEND", []),
  ]);
  return png.toBase64();
}

/** 8 samples of 8-bit mono silence at 8 kHz, as a WAV file, base64. */
export function silentWav(): string {
  const samples = 8;
  const bytes = new Uint8Array(44 + samples);
  const view = new DataView(bytes.buffer);
  const ascii = (at: number, text: string) => [...text].forEach((c, i) => bytes[at + i] = c.charCodeAt(0));
  ascii(0, "RIFF");
  view.setUint32(4, 36 + samples, true);
  ascii(8, "WAVEfmt ");
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, 8000, true); // sample rate
  view.setUint32(28, 8000, true); // byte rate
  view.setUint16(32, 1, true); // block align
  view.setUint16(34, 8, true); // bits per sample
  ascii(36, "data");
  view.setUint32(40, samples, true);
  bytes.fill(128, 44); // 8-bit PCM silence is the midpoint
  return bytes.toBase64();
}

function chunk(type: string, data: number[]): Uint8Array {
  const body = new Uint8Array([...type].map((c) => c.charCodeAt(0)).concat(data));
  const out = new Uint8Array(8 + data.length + 4);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(body, 4);
  view.setUint32(8 + data.length, crc32(body));
  return out;
}

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

async function deflate(data: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const stream = new Blob([data]).stream().pipeThrough(new CompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
