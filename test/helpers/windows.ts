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
 * The share of the budget used while there was always more to send: a rolling window lets the
 * (i + limit)-th send go no sooner than a window after the i-th, so the mean of those gaps against
 * the window is how fast each unit of budget was spent again once it came back (1: at once). Only
 * meaningful when every send was already asked for a window before it went (a standing backlog).
 */
export function budgetUse(times: number[], limit: number, windowMs: number): number {
  const t = [...times].sort((a, b) => a - b);
  let sum = 0;
  let n = 0;
  for (let i = 0; i + limit < t.length; i++, n++) sum += (t[i + limit] as number) - (t[i] as number);
  return n === 0 ? Number.NaN : windowMs / (sum / n);
}
