// The apps' tools answer the model with a list of lines (a finding, a block each): kept whole within
// the response budget, like every result, cut at a line with the count of what was left out.
import { estimateTokens } from '../render/tokens.js';

/** The lines that fit in `budget` tokens (with room for the note), and how many were left out. */
export function linesWithin(lines: readonly string[], budget: number): { kept: string[]; left: number } {
  const room = Math.max(0, budget - 200);
  const kept: string[] = [];
  let used = 0;
  for (const line of lines) {
    used += estimateTokens(line) + 1;
    if (used > room) break;
    kept.push(line);
  }
  return { kept, left: lines.length - kept.length };
}
