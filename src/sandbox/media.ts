// Media the sandbox serves without storing it: PNG frames and thumbnails, WAV recordings and a small
// PDF, all generated from a few numbers. A 100 MB recording costs nothing until it is downloaded, and
// then streams through a fixed-size buffer.
import { Readable } from 'node:stream';
import { crc32, deflateSync } from 'node:zlib';

// ---------------------------------------------------------------------------------------------- PNG

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  // The CRC covers the chunk type and data, not the length.
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** A small deterministic number from a text, so each path draws a different picture. */
function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/**
 * A valid RGB PNG of `width` x `height` that looks like a screen capture: a title bar, a grid of
 * "table rows", and a tint chosen by `seed` (typically the media path).
 */
export function png(width: number, height: number, seed: string): Buffer {
  const h = hash(seed);
  const tint = [80 + (h & 0x7f), 80 + ((h >> 8) & 0x7f), 80 + ((h >> 16) & 0x7f)] as const;
  const rowBytes = width * 3 + 1;
  const raw = Buffer.alloc(rowBytes * height);
  const bar = Math.max(2, Math.round(height / 10));
  const line = Math.max(3, Math.round(height / 18));
  for (let y = 0; y < height; y++) {
    raw[y * rowBytes] = 0; // filter type None
    for (let x = 0; x < width; x++) {
      const o = y * rowBytes + 1 + x * 3;
      let rgb: readonly [number, number, number];
      if (y < bar) rgb = tint;
      else if (y % line === 0 || x % Math.max(4, Math.round(width / 6)) === 0) rgb = [200, 200, 205];
      else rgb = ((y / line) | 0) % 2 === 0 ? [250, 250, 250] : [238, 241, 245];
      raw[o] = rgb[0];
      raw[o + 1] = rgb[1];
      raw[o + 2] = rgb[2];
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type RGB
  ihdr[10] = 0; // compression
  ihdr[11] = 0; // filter
  ihdr[12] = 0; // interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

export const FRAME_SIZE = { width: 640, height: 360 } as const;
export const THUMBNAIL_SIZE = { width: 160, height: 90 } as const;

// ---------------------------------------------------------------------------------------------- WAV

const WAV_SAMPLE_RATE = 16_000;
const BYTES_PER_SAMPLE = 2; // 16-bit mono
const WAV_HEADER_BYTES = 44;

export function wavSize(durationMs: number): number {
  return WAV_HEADER_BYTES + wavSamples(durationMs) * BYTES_PER_SAMPLE;
}

function wavSamples(durationMs: number): number {
  return Math.floor((durationMs * WAV_SAMPLE_RATE) / 1000);
}

function wavHeader(dataBytes: number): Buffer {
  const b = Buffer.alloc(WAV_HEADER_BYTES);
  b.write('RIFF', 0, 'latin1');
  b.writeUInt32LE(36 + dataBytes, 4);
  b.write('WAVE', 8, 'latin1');
  b.write('fmt ', 12, 'latin1');
  b.writeUInt32LE(16, 16); // PCM fmt chunk size
  b.writeUInt16LE(1, 20); // PCM
  b.writeUInt16LE(1, 22); // mono
  b.writeUInt32LE(WAV_SAMPLE_RATE, 24);
  b.writeUInt32LE(WAV_SAMPLE_RATE * BYTES_PER_SAMPLE, 28); // byte rate
  b.writeUInt16LE(BYTES_PER_SAMPLE, 32); // block align
  b.writeUInt16LE(16, 34); // bits per sample
  b.write('data', 36, 'latin1');
  b.writeUInt32LE(dataBytes, 40);
  return b;
}

// A quiet 400 Hz tone: 40 samples per period at 16 kHz, so a block of whole periods repeats seamlessly.
const TONE_BLOCK = (() => {
  const samples = 32_000; // two seconds, 800 whole periods
  const b = Buffer.alloc(samples * BYTES_PER_SAMPLE);
  for (let i = 0; i < samples; i++) b.writeInt16LE(Math.round(Math.sin((2 * Math.PI * i) / 40) * 2000), i * 2);
  return b;
})();

/**
 * A WAV file of `durationMs` as a stream: the header, then the tone block repeated. Only one block
 * is ever held in memory, whatever the duration.
 */
export function wavStream(durationMs: number): Readable {
  const dataBytes = wavSamples(durationMs) * BYTES_PER_SAMPLE;
  let sent = -1; // -1: header not sent yet
  return new Readable({
    read() {
      if (sent < 0) {
        sent = 0;
        this.push(wavHeader(dataBytes));
        return;
      }
      if (sent >= dataBytes) {
        this.push(null);
        return;
      }
      const n = Math.min(TONE_BLOCK.length, dataBytes - sent);
      sent += n;
      this.push(n === TONE_BLOCK.length ? TONE_BLOCK : TONE_BLOCK.subarray(0, n));
    },
  });
}

// ---------------------------------------------------------------------------------------------- PDF

/** PDF string literal in WinAnsi (Latin-1 covers the French accents used in the demo). */
function pdfText(s: string): string {
  return `(${s.replace(/[\\()]/g, (c) => `\\${c}`)})`;
}

/** A valid one-page PDF (Helvetica, WinAnsi) with a title and lines of text; byte-exact xref. */
export function pdf(title: string, lines: string[]): Buffer {
  const content = [
    'BT',
    '/F1 14 Tf',
    '56 790 Td',
    `${pdfText(title)} Tj`,
    '/F1 10 Tf',
    '0 -24 Td',
    ...lines.flatMap((l) => [`${pdfText(l)} Tj`, '0 -14 Td']),
    'ET',
  ].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`,
    `<< /Title ${pdfText(title)} /Producer (Workspace Consulting sandbox) >>`,
  ];
  let out = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
