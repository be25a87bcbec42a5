// Escaping shared by the XML and HTML writers.

/** Escape text for XML/HTML element content and double-quoted attributes. */
export function esc(text: unknown): string {
  return (
    String(text ?? '')
      // Characters XML 1.0 forbids outright (control characters other than tab, LF, CR).
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  );
}

export const XML_DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
