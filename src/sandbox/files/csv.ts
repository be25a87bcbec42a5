// RFC 4180 CSV, as spreadsheets read it: CRLF line ends, every field quoted, and a UTF-8 byte order
// mark so Excel shows accents (é, è, ç) instead of mojibake.

const BOM = '\uFEFF';

function field(value: unknown): string {
  if (value === null || value === undefined) return '""';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return `"${text.replace(/"/g, '""')}"`;
}

/** A CSV file: the header row, then one row per record (values picked by `header` order). */
export function csv(header: string[], rows: unknown[][]): Buffer {
  const lines = [header, ...rows].map((r) => r.map(field).join(','));
  return Buffer.from(`${BOM}${lines.join('\r\n')}\r\n`, 'utf8');
}
