// Counting requests the way a server with a rolling window does, from timestamps a test recorded.

/** The most timestamps found in any rolling window of `windowMs` (a half-open interval [t, t + windowMs)). */
export function busiestWindow(times: number[], windowMs: number): number {
  const t = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < t.length; i++) {
    while ((t[i] as number) - (t[j] as number) >= windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/**
 * The most requests a server could count at once, wherever between its send and its answer it
 * stamped each one: the most intervals [sent, answered + windowMs) that overlap. Never below
 * busiestWindow of the sends, and what an exact budget must keep within its limit.
 */
export function mostCountable(requests: Array<{ sent: number; answered: number }>, windowMs: number): number {
  const events: Array<[number, number]> = [];
  for (const r of requests) events.push([r.sent, 1], [r.answered + windowMs, -1]);
  // At one instant an ending interval leaves before a starting one enters (half-open).
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 0;
  for (const [, d] of events) {
    open += d;
    most = Math.max(most, open);
  }
  return most;
}

/**
 * The share of the budget used while there was always more to send: `n` sends from the first to the
 * last, against the most a rolling window allows in that span (a full window at the start, then
 * `limit` per window length).
 */
export function budgetUse(times: number[], limit: number, windowMs: number): number {
  const t = [...times].sort((a, b) => a - b);
  const span = (t.at(-1) as number) - (t[0] as number);
  return t.length / (limit * (span / windowMs + 1));
}
