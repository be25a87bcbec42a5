// How deep JSON text nests, told without parsing or recursing, and how deep is too deep: shared by
// the message guard (a whole message) and the arguments reader (a value sent as JSON text), so a
// structure nested thousands of levels deep is refused before code that recurses over it (the SDK's
// JSON.stringify, the prototype-key check, validation, a request's serialisation) overflows the
// stack or spends quadratic time on it. Imports nothing.

/** Deeper than any real MCP message or argument (tool arguments nest a handful of levels). */
export const MAX_DEPTH = 64;

/** How deep the text nests (brackets outside strings), stopping once it passes `limit`. */
export function nestingDepth(text: string, limit = MAX_DEPTH): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return max;
}
