// Cursor pagination. A cursor is opaque to clients: base64url of the offset and a fingerprint of the
// list it was issued for, so a cursor of another list, or one edited by hand, is refused (422 on the
// field `cursor`) instead of silently paging something else.

import type { HandlerResult, Locale } from './types.js';
import { fieldError } from './validate.js';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;

function fingerprint(list: string): string {
  let h = 2166136261;
  for (let i = 0; i < list.length; i++) h = Math.imul(h ^ list.charCodeAt(i), 16777619);
  return (h >>> 0).toString(36);
}

function encodeCursor(list: string, offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset, l: fingerprint(list) })).toString('base64url');
}

const badCursor = (locale: Locale) =>
  fieldError('cursor', locale, {
    en: 'The cursor is invalid: pass meta.next_cursor of the previous page unchanged.',
    fr: 'Le curseur est invalide : transmettez meta.next_cursor de la page précédente sans le modifier.',
  });

function decodeCursor(list: string, cursor: string, locale: Locale): number {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o?: unknown; l?: unknown };
    if (Number.isSafeInteger(v.o) && (v.o as number) >= 0 && v.l === fingerprint(list) && encodeCursor(list, v.o as number) === cursor) {
      return v.o as number;
    }
  } catch {
    // fall through to the 422
  }
  throw badCursor(locale);
}

/**
 * One page of `items`. `list` names the list (operation and path parameters): it binds the cursor.
 * `limit` has been validated by the operation schema (1..200) when present.
 */
export function paginate(items: unknown[], list: string, input: { cursor?: unknown; limit?: unknown }, locale: Locale): HandlerResult {
  const limit = typeof input.limit === 'number' ? input.limit : DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw fieldError('limit', locale, {
      en: `The limit must be an integer between 1 and ${MAX_LIMIT}.`,
      fr: `La limite doit être un entier entre 1 et ${MAX_LIMIT}.`,
    });
  }
  const offset = typeof input.cursor === 'string' ? decodeCursor(list, input.cursor, locale) : 0;
  const data = items.slice(offset, offset + limit);
  const next = offset + limit < items.length ? encodeCursor(list, offset + limit) : null;
  const prev = offset > 0 ? encodeCursor(list, Math.max(0, offset - limit)) : null;
  return { data, meta: { next_cursor: next, prev_cursor: prev, limit } };
}
