// Token material in log output: every reliability test hands what its servers wrote (stderr of child
// processes, the in-process logger's sink) to one scanner, which fails the file if a secret leaked.

/** Pieces of `text` that look like a secret: a known token, a personal token, a bearer value, an OAuth field. */
export function findTokenMaterial(text: string, known: readonly string[] = []): string[] {
  const found: string[] = [];
  for (const t of known) if (t && text.includes(t)) found.push(`known token ${t.slice(0, 6)}...`);
  for (const m of text.matchAll(/pat_[A-Za-z0-9_-]{4,}/g)) found.push(m[0].slice(0, 10));
  for (const m of text.matchAll(/\b(?:wco|wcm)_(?:at|rt|ac)_(?!\[redacted\])[A-Za-z0-9._-]{8,}/g)) found.push(m[0].slice(0, 10));
  for (const m of text.matchAll(/Bearer\s+(?!\[redacted\])[A-Za-z0-9._~+/=-]{8,}/gi)) found.push(m[0].slice(0, 16));
  for (const m of text.matchAll(/"(access_token|refresh_token|id_token|code_verifier|client_secret)"\s*:\s*"(?!\[redacted\])[^"]+"/gi)) {
    found.push(m[1] as string);
  }
  return found;
}

/** Collects log output for one test file; `assertClean` runs in afterAll. */
export class LogScan {
  readonly #chunks: string[] = [];
  #bytes = 0;

  add(text: string): void {
    this.#chunks.push(text);
    this.#bytes += text.length;
  }

  /** A sink for a child's stderr stream. */
  tap(stream: NodeJS.ReadableStream): void {
    stream.on('data', (d: Buffer | string) => this.add(String(d)));
  }

  get bytes(): number {
    return this.#bytes;
  }

  leaks(known: readonly string[]): string[] {
    return findTokenMaterial(this.#chunks.join('\n'), known);
  }
}
