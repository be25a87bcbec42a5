// How the demo writes: a heading per job, one block per tool call (its name, its arguments, a short
// rendering of its result), a progress bar for followed jobs. Colours only when the terminal shows
// them (a TTY and no NO_COLOR); piped output is plain text that reads the same.

interface Style {
  bold(s: string): string;
  dim(s: string): string;
  cyan(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  red(s: string): string;
}

const wrap = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;
const COLOR: Style = { bold: wrap(1, 22), dim: wrap(2, 22), cyan: wrap(36, 39), green: wrap(32, 39), yellow: wrap(33, 39), red: wrap(31, 39) };
const id = (s: string) => s;
const PLAIN: Style = { bold: id, dim: id, cyan: id, green: id, yellow: id, red: id };

export function wantsColor(out: { isTTY?: boolean }, env: NodeJS.ProcessEnv, flag?: boolean): boolean {
  if (flag !== undefined) return flag;
  return Boolean(out.isTTY) && !env.NO_COLOR;
}

/** Shortens a value for one transcript line. */
export function clip(s: string, max = 100): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

export class Transcript {
  readonly s: Style;
  #barOpen = false;

  constructor(
    readonly out: { write(s: string): unknown; isTTY?: boolean },
    color: boolean,
  ) {
    this.s = color ? COLOR : PLAIN;
  }

  line(text = ''): void {
    this.#endBar();
    this.out.write(`${text}\n`);
  }

  title(text: string): void {
    this.line(this.s.bold(text));
  }

  job(n: number, text: string): void {
    this.line();
    this.line(this.s.bold(this.s.cyan(`${n}. ${text}`)));
  }

  /** A tool call about to be made: its name and its arguments as sent. */
  call(tool: string, args: Record<string, unknown>): void {
    this.line(`  ${this.s.bold('→')} ${this.s.bold(tool)} ${this.s.dim(clip(JSON.stringify(args), 140))}`);
  }

  result(text: string): void {
    this.line(`    ${text}`);
  }

  ok(text: string): void {
    this.result(`${this.s.green('✓')} ${text}`);
  }

  /** Something the reader must not miss about the result above, such as a list that was cut. */
  note(text: string): void {
    this.result(`${this.s.yellow('!')} ${text}`);
  }

  skipped(text: string): void {
    this.result(`${this.s.yellow('–')} ${text}`);
  }

  error(text: string): void {
    this.result(`${this.s.red('✗')} ${text}`);
  }

  /**
   * A progress bar for a followed job. On a terminal it redraws in place; piped, each change is its
   * own line so a log still shows the job advancing.
   */
  progress(done: number, total: number | undefined, message?: string): void {
    const ratio = total && total > 0 ? Math.max(0, Math.min(1, done / total)) : 0;
    const width = 24;
    const filled = Math.round(ratio * width);
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.round(ratio * 100)).padStart(3)}%`;
    const text = `    ${this.s.cyan(bar)}${message ? ` ${this.s.dim(clip(message, 60))}` : ''}`;
    if (this.out.isTTY) {
      this.out.write(`\r\u001b[2K${text}`);
      this.#barOpen = true;
    } else this.out.write(`${text}\n`);
  }

  #endBar(): void {
    if (this.#barOpen) {
      this.out.write('\n');
      this.#barOpen = false;
    }
  }
}
