// Draws icon.png (512x512, the size Claude Desktop recommends; the MCP Bundle's icon): a rounded teal square with a white "W" over a
// rising line of three points, the audit's findings. Written by hand with node:zlib so the icon is
// reproducible from the repository: `npx tsx scripts/make-icon.ts`.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const SIZE = 512;
/** Shapes are drawn in a 256-unit square, scaled to SIZE. */
const UNIT = 256 / SIZE;
type Point = [number, number];

/** Distance from p to the segment a-b. */
function segmentDistance(p: Point, a: Point, b: Point): number {
  const [dx, dy] = [b[0] - a[0], b[1] - a[1]];
  const t = Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(p[0] - (a[0] + t * dx), p[1] - (a[1] + t * dy));
}

/** Coverage (0..1) of a pixel by a shape at signed distance d in units (negative inside): one pixel of anti-aliasing. */
const cover = (d: number) => Math.max(0, Math.min(1, 0.5 - d / UNIT));

/** Signed distance to a rounded square filling the canvas with a small margin. */
function roundedSquare(p: Point): number {
  const half = 128 - 8;
  const r = 48;
  const q = [Math.abs(p[0] - 128) - (half - r), Math.abs(p[1] - 128) - (half - r)] as const;
  return Math.hypot(Math.max(q[0], 0), Math.max(q[1], 0)) + Math.min(Math.max(q[0], q[1]), 0) - r;
}

const W: Point[] = [
  [52, 62],
  [90, 176],
  [128, 96],
  [166, 176],
  [204, 62],
];
const DOTS: Point[] = [
  [82, 224],
  [128, 218],
  [174, 212],
];

export function drawIcon(): Buffer {
  const rows: Buffer[] = [];
  for (let y = 0; y < SIZE; y++) {
    const row = Buffer.alloc(1 + SIZE * 4); // filter byte 0, then RGBA
    for (let x = 0; x < SIZE; x++) {
      const p: Point = [(x + 0.5) * UNIT, (y + 0.5) * UNIT];
      const bg = cover(roundedSquare(p));
      // Vertical gradient, deep blue at the top to teal at the bottom.
      const t = y / SIZE;
      let [r, g, b] = [18 + 10 * t, 52 + 80 * t, 96 + 40 * t];
      let stroke = 0;
      for (let i = 0; i + 1 < W.length; i++) stroke = Math.max(stroke, cover(segmentDistance(p, W[i] as Point, W[i + 1] as Point) - 13));
      for (const d of DOTS) stroke = Math.max(stroke, cover(Math.hypot(p[0] - d[0], p[1] - d[1]) - 8));
      r += (255 - r) * stroke;
      g += (255 - g) * stroke;
      b += (255 - b) * stroke;
      row.set([Math.round(r), Math.round(g), Math.round(b), Math.round(255 * bg)], 1 + x * 4);
    }
    rows.push(row);
  }
  return png(SIZE, SIZE, Buffer.concat(rows));
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const byte of buf) c = (CRC_TABLE[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A PNG of 8-bit RGBA rows, each already prefixed with its filter byte. */
function png(width: number, height: number, raw: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // bit depth 8, colour type RGBA, deflate, no filter method, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const target = fileURLToPath(new URL('../icon.png', import.meta.url));
  writeFileSync(target, drawIcon());
  process.stderr.write(`wrote ${target}\n`);
}
