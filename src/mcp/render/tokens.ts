// How many o200k tokens a text costs, estimated: the response budget is counted in tokens, the unit
// a context window is paid in, but the real tokenizer is not worth carrying at run time.
//
// bench/token-estimate.ts measures the trade: gpt-tokenizer's o200k takes longer to import, and holds
// more resident memory, than much of the server, and is slower per answer; this estimator loads
// nothing. On the API answers it bounds (every readable GET of the sandbox, concise and detailed; the
// weights were fitted on half of them) it stays close to the real count, and on English prose it
// counts high, the safe side for a budget. A character count (characters / 4) is far off: an id of
// 26 characters costs more tokens than its length suggests, French sentences fewer.
//
// The estimate is a sum over the text's pieces as the tokenizer's pre-split sees them: words, digit
// groups (numbers split every three digits), punctuation runs, newlines and runs of spaces; long
// words, accented letters and capital letters (ULIDs) cost more. Weights fitted by least squares on
// half of the corpus above.
const W = {
  word: 0.97,
  /** Each letter of a word beyond its fifth. */
  longLetter: 0.136,
  /** Each non-ASCII letter (é, ç: often a token boundary). */
  accented: 1.24,
  /** Each capital of a run of capitals (ULIDs: 01M2FEW76J… is 17 tokens for 26 characters). */
  capital: 0.367,
  /** Each group of up to three digits. */
  digits: 0.73,
  punctuation: -0.047,
  punctuationRun: 1.11,
  newline: 0.447,
  /** A run of two spaces or more (indentation). */
  spaces: 1.87,
} as const;

/** What run of characters the estimate is in. Plain numbers (not an enum): a comparison, no lookup. */
const NONE = 0;
const LETTER = 1;
const DIGIT = 2;
const PUNCT = 3;
type Kind = typeof NONE | typeof LETTER | typeof DIGIT | typeof PUNCT;

function isLetter(c: number): boolean {
  // Latin-1 punctuation (NBSP, «, ») and general punctuation (’, –, …) are not letters.
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 0xc0 && c !== 0xd7 && c !== 0xf7 && (c < 0x2000 || c > 0x206f));
}

/** `total` with a finished run of one kind added (in the order the weights were fitted with). */
function addRun(total: number, kind: Kind, run: number, caps: number, lower: boolean, afterDigit: boolean): number {
  if (kind === LETTER) {
    total += W.word + W.longLetter * Math.max(0, run - 5);
    if (caps > 0 && !lower && (run > 1 || afterDigit)) total += W.capital * caps;
    else if (caps > 0 && lower && caps < run) total += caps > 1 ? W.capital : 0;
  } else if (kind === DIGIT) {
    total += W.digits * Math.ceil(run / 3);
  } else if (kind === PUNCT) {
    total += W.punctuationRun + W.punctuation * run;
  }
  return total;
}

/**
 * Estimated o200k tokens of `text`. Run on every answer's text: the state lives in locals and a run
 * is added by a plain function (a closure over the state made each character's step slower).
 */
export function estimateTokens(text: string): number {
  let total = 0;
  let kind: Kind = NONE;
  let run = 0; // length of the current run
  let caps = 0; // capitals in the current letter run
  let lower = false; // the current letter run has a lower-case letter
  let afterDigit = false; // the current letter run follows a digit with no space
  let spaceRun = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 32 || c === 9 || c === 13) {
      // A run ends at any space.
      total = addRun(total, kind, run, caps, lower, afterDigit);
      kind = NONE;
      run = 0;
      caps = 0;
      lower = false;
      afterDigit = false;
      if (c === 10) {
        if (spaceRun > 1) total += W.spaces;
        spaceRun = 0;
        total += W.newline;
      } else {
        spaceRun++;
      }
      continue;
    }
    if (spaceRun > 1) total += W.spaces;
    spaceRun = 0;
    if (isLetter(c)) {
      if (kind !== LETTER) {
        afterDigit = kind === DIGIT;
        total = addRun(total, kind, run, caps, lower, afterDigit);
        kind = LETTER;
        run = 0;
        caps = 0;
        lower = false;
      }
      run++;
      if (c >= 65 && c <= 90) caps++;
      else if (c >= 97 && c <= 122) lower = true;
      else {
        lower = true;
        total += W.accented;
      }
    } else if (c >= 48 && c <= 57) {
      if (kind !== DIGIT) {
        total = addRun(total, kind, run, caps, lower, afterDigit);
        run = 0;
        caps = 0;
        lower = false;
      }
      kind = DIGIT;
      run++;
    } else {
      if (kind !== PUNCT) {
        total = addRun(total, kind, run, caps, lower, afterDigit);
        run = 0;
        caps = 0;
        lower = false;
      }
      kind = PUNCT;
      run++;
      afterDigit = false;
    }
  }
  total = addRun(total, kind, run, caps, lower, afterDigit);
  if (spaceRun > 1) total += W.spaces;
  return Math.ceil(total);
}

/**
 * The most the estimate can say per character (UTF-16 code unit), and what it may add at the end.
 * A run's cost is paid once it ends: a letter run of n costs at most 0.97 + 1.24n (+0.136 a letter
 * past the fifth; capitals cost less than accents), a digit run 0.73 a character at most, a
 * punctuation run 1.11 - 0.047n, spaces and newlines under 1 a character; runs of one kind end at a
 * character of another kind. The dearest text alternates one accented letter and one punctuation
 * mark: 3.273 every two characters, 1.6365 each. Ending on the letter adds 2.21 - 1.6365, and the
 * rounding up below under 1. So estimateTokens(t) <= 1.6365 * length + 1.5735; rounded outwards
 * here (float sums of the weights must not reach the bound). Checked on every text of up to 7
 * characters of each kind, and on long random and adversarial texts, in test/mcp/render/tokens.test.ts.
 */
export const MAX_TOKENS_PER_CHAR = 1.64;
const MAX_TOKENS_AT_END = 1.6;

/** A bound no text of `length` characters exceeds in estimated tokens. */
export function maxTokensFor(length: number): number {
  return Math.ceil(length * MAX_TOKENS_PER_CHAR + MAX_TOKENS_AT_END);
}

/**
 * Whether `text` fits `budget` estimated tokens: the same answer as estimateTokens(text) <= budget,
 * without walking the text when its length alone says it fits (most answers: a page of five records
 * is a tenth of the default budget).
 */
export function fitsBudget(text: string, budget: number): boolean {
  return maxTokensFor(text.length) <= budget || estimateTokens(text) <= budget;
}
