// A successful API answer as a tool result: the records whole in structuredContent (for clients that
// use it), and for the model a text copy in the response format asked for (concise by default for
// reads), bounded by the response budget, with the next-page hint, and a note for anything the text
// leaves out: cut records with the exact call that gets them, fields the concise form omits and how
// to see them. Nothing is left out silently.

import type { ApiResponse } from '../../api/client.js';
import type { Operation } from '../../operation.js';
import { aboutTokens, boundList, boundObject } from './budget.js';
import { type CallOrigin, originLabel } from './call-origin.js';
import { COUNT_SUFFIX, DEFAULT_RESPONSE_FORMAT, type ResponseFormat } from './concise.js';
import { type CallHint, hintText } from './hints.js';
import { pickFields } from './omissions.js';
import type { LeftOut, TextForm } from './text.js';
import type { ResourceLink, ToolResult } from './tool-result.js';

/** The response budget when none is configured: o200k tokens of text in one tool result. */
export const DEFAULT_RESPONSE_BUDGET_TOKENS = 6_000;

interface RenderOptions {
  /** Tokens (o200k, estimated) of text the result may carry: WORKSPACE_RESPONSE_BUDGET. */
  budget: number;
  /** Keep only these fields of each record (the `fields` argument). */
  fields?: readonly string[];
  /** The `response_format` argument; reads default to concise, writes always answer in full. */
  format?: ResponseFormat;
  /** Who called, for the continuation hints: the operation's own tool (absent), call_operation or a script. */
  via?: CallOrigin;
  /** Resources to link to (the records shown, readable in full as resources). */
  links?: ResourceLink[];
  /** Ids the reader already has (the call's path arguments): not repeated in the text copy. */
  known?: readonly string[];
  /** The call's arguments as sent (validated), for the exact continuation call after a cut. */
  args?: Record<string, unknown>;
  /** Writes a call to this operation as the assistant would make it (its tool, or call_operation). */
  again?: (args: Record<string, unknown>) => CallHint;
  /**
   * The cursor right after the first `shown` records of this page (one more request to the API),
   * so a cut's continuation gets exactly the records left out. Without it, or if it fails, the note
   * gives the two calls that do (the page again with limit `shown`, then its next cursor).
   */
  cursorAfter?: (shown: number) => Promise<string | null | undefined>;
}

export type { ResourceLink };

function text(t: string): { type: 'text'; text: string } {
  return { type: 'text', text: t };
}

/** The format a call's answer is written in: concise by default for reads, in full for writes. */
function formatFor(op: Pick<Operation, 'method'>, asked: ResponseFormat | undefined): ResponseFormat {
  return op.method === 'GET' ? (asked ?? DEFAULT_RESPONSE_FORMAT) : 'detailed';
}

/** `list_findings` lists `findings`; `list_session_frames` lists `session_frames`. */
export function listNameOf(opName: string): string {
  const rest = opName.replace(/^(list|get|search|find)_/, '');
  return rest && rest !== opName ? rest : 'items';
}

/**
 * The note after a concise text: what it left out and how to see it. `how` writes the call that
 * shows them given the arguments to add (a string: "call X again with the same arguments", to which
 * they are added in words). Empty when the text left out nothing.
 */
export function conciseNote(left: LeftOut, how?: string | ((extra: Record<string, unknown>) => string), offerFields = true): string {
  if (!left.fields.length && !left.counted.length) return '';
  const parts: string[] = [];
  if (left.fields.length) parts.push(`left out ${left.fields.join(', ')}`);
  if (left.counted.length)
    parts.push(`${left.counted.map((c) => `${c}${COUNT_SUFFIX}`).join(', ')} ${left.counted.length === 1 ? 'counts' : 'count'} nested records`);
  const example = JSON.stringify(['id', ...(left.counted.length ? left.counted : left.fields).slice(0, 2)]);
  const orFields = offerFields ? `, or fields naming them (e.g. ${example})` : '';
  const see =
    typeof how === 'function'
      ? ` To see them, ${how({ response_format: 'detailed' })}${orFields}.`
      : how
        ? ` To see them, ${how} and response_format "detailed"${orFields}.`
        : '';
  return `Concise form: ${parts.join('; ')}.${see}`;
}

function withExtras(args: Record<string, unknown>, opts: RenderOptions): Record<string, unknown> {
  return {
    ...args,
    ...(opts.fields?.length ? { fields: opts.fields } : {}),
    ...(opts.format && opts.format !== DEFAULT_RESPONSE_FORMAT ? { response_format: opts.format } : {}),
  };
}

export async function renderSuccess(op: Operation, res: ApiResponse, opts: RenderOptions = { budget: DEFAULT_RESPONSE_BUDGET_TOKENS }): Promise<ToolResult> {
  if (res.alreadyGone) {
    const said = `Done: ${op.title}: deleted (it was already gone when checked again: an earlier attempt's answer was lost, and the retry found nothing left to delete).`;
    return { content: [text(said)], structuredContent: { ok: true, status: res.status, already_gone: true } };
  }
  if (res.status === 204 || (res.data === undefined && !res.file)) {
    return { content: [text(`Done: ${op.title} (HTTP ${res.status}).`)], structuredContent: { ok: true, status: res.status } };
  }
  const via = originLabel(opts.via, op.name);
  const links = opts.links ?? [];
  const format = formatFor(op, opts.format);
  const again = (args: Record<string, unknown>) => hintText(opts.again ? opts.again(withExtras(args, opts)) : { tool: via, arguments: withExtras(args, opts) });
  const data = opts.fields?.length ? pickFields(res.data, opts.fields) : res.data;
  const form: TextForm = {
    format,
    listName: listNameOf(op.name),
    ...(op.render ? { render: op.render } : {}),
    ...(opts.known ? { known: opts.known } : {}),
    ...(opts.fields?.length ? { requested: opts.fields } : {}),
  };
  const how = `call ${via} again with the same arguments`;
  // Through call_operation, "the same arguments" is ambiguous (inside `arguments` or beside it): the exact call.
  const seeHow = opts.via?.kind === 'gateway' && opts.args ? (extra: Record<string, unknown>) => again({ ...opts.args, ...extra }) : how;

  if (Array.isArray(data)) {
    const next = typeof res.meta?.next_cursor === 'string' ? res.meta.next_cursor : null;
    const cut = boundList(data, opts.budget, form);
    const records = (n: number) => `${n} record${n === 1 ? '' : 's'}`;
    const notes: string[] = [];
    let continueAt: string | null = next;
    if (cut.omitted > 0) {
      // The page cursor would skip the records left out: the continuation starts right after the last one shown.
      let after: string | null | undefined;
      try {
        after = opts.cursorAfter && op.paginated ? await opts.cursorAfter(cut.shown.length) : undefined;
      } catch {
        after = undefined;
      }
      continueAt = after ?? null;
      const args = opts.args ?? {};
      const rest = { ...args };
      delete rest.cursor;
      const get = after
        ? again({ ...rest, cursor: after })
        : op.paginated
          ? `${again({ ...args, limit: cut.shown.length })}, then again with the next_cursor it returns`
          : `${how} and fields naming fewer fields`;
      notes.push(
        `Cut to stay within the response budget (${opts.budget} tokens): ${cut.shown.length} of the ${data.length} records of this page shown, ${cut.omitted} left out (${aboutTokens(cut.omittedTokens)}). To get them, ${get}.`,
      );
    } else if (next) {
      notes.push(`${records(data.length)}; more exist: ${how} and cursor "${next}".`);
    } else {
      notes.push(`${records(data.length)}${op.paginated ? '; this is the last page' : ''}.`);
    }
    const note = form.format === 'concise' ? conciseNote(cut, seeHow) : '';
    if (note) notes.push(note);
    return {
      content: [text(`${cut.text}\n${notes.join('\n')}`), ...links],
      structuredContent: {
        items: cut.shown,
        next_cursor: continueAt,
        ...(cut.omitted > 0 ? { truncated: { shown: cut.shown.length, omitted: cut.omitted, retry_with_limit: cut.shown.length } } : {}),
        ...(res.meta ? { meta: res.meta } : {}),
      },
    };
  }

  const bounded = boundObject(data, opts.budget, form);
  let body = bounded.text;
  if (bounded.cut) {
    const c = bounded.cut;
    const where = c.path ? `"${c.path}": ${c.kept} of ${c.total} items shown` : `text cut after ${c.kept} of ${c.total} characters`;
    const rest = links.length ? `read the resource ${links[0]?.uri} for all of it` : `${how} and fields naming fewer fields`;
    body += `\n(Cut to stay within the response budget of ${opts.budget} tokens: ${where}; ${aboutTokens(c.omittedTokens)} left out. To get the rest, ${rest}.)`;
  }
  if (res.fromCache) body += '\n(from cache)';
  const note = form.format === 'concise' ? conciseNote(bounded, seeHow) : '';
  if (note) body += `\n${note}`;
  const v = bounded.value;
  const structured = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v };
  return { content: [text(body), ...links], structuredContent: structured };
}
