// Every message a client sends is checked here before the SDK sees it, on stdio and on HTTP alike, so a
// malformed one gets an answer (or, being a notification or a response, is dropped) by the rules of
// JSON-RPC, and nothing a client sends can end the process: a line nested thousands of levels deep
// (JSON.stringify of it overflows the stack), `_meta` or params that are not objects, a message that
// is both a request and a response. A response whose result or error is malformed reaches the SDK as
// an error answering its request, which fails at once instead of waiting out its time. Arguments are
// read as clients send them: `null` is none, and an object sent as JSON text is the object; prototype
// keys are marked so they reach the refusal that names them (src/mcp/pipeline/prototype-keys.ts).

import { argumentsShapeError } from '../pipeline/arguments.js';
import { MAX_DEPTH, nestingDepth } from '../pipeline/json-depth.js';
import { markPrototypeKeys } from '../pipeline/prototype-keys.js';

export { MAX_DEPTH };

/**
 * Longer than any name a client can mean (MCP tool names are at most 128 characters, this server's
 * resource URIs under 200). A longer one is refused with its length: answers cut the names they
 * repeat (shownName), but the SDK's own errors (an Mcp-Name header that disagrees with the body)
 * repeat them whole, so a megabyte name must not get that far.
 */
export const MAX_NAME_CHARS = 1_024;

/** The params field that names a request's target (as the Mcp-Name header mirrors it). */
const TARGETS: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'resources/subscribe': 'uri',
  'resources/unsubscribe': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
  'tasks/result': 'taskId',
};

type JsonRpcId = string | number;

export interface ErrorAnswer {
  jsonrpc: '2.0';
  id: JsonRpcId | null;
  error: { code: number; message: string };
}

type Guarded =
  /** Pass it on; `changed` when it was normalised (the text as sent no longer says the same). */
  | { kind: 'pass'; message: Record<string, unknown>; changed: boolean }
  /** Answer this instead; the SDK never sees the message. */
  | { kind: 'answer'; answer: ErrorAnswer }
  /** A malformed notification or response: JSON-RPC answers neither. */
  | { kind: 'drop'; why: string };

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;

function answer(id: JsonRpcId | null, code: number, message: string): Guarded {
  return { kind: 'answer', answer: { jsonrpc: '2.0', id, error: { code, message } } };
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isId = (v: unknown): v is JsonRpcId => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

/** Checks one message given as JSON text (a stdio line, an HTTP body). */
export function guardText(text: string): Guarded {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return answer(null, PARSE_ERROR, 'Parse error: the message is not JSON.');
  }
  if (nestingDepth(text) > MAX_DEPTH) {
    // Parsing is safe at any depth; serialising it back is not, so only the top-level id is read.
    const id = isObject(value) && isId(value.id) ? value.id : null;
    if (isObject(value) && typeof value.method === 'string' && id !== null) {
      return answer(id, INVALID_REQUEST, `Invalid Request: nested more than ${MAX_DEPTH} levels deep.`);
    }
    if (isObject(value) && value.method === undefined) return { kind: 'drop', why: 'a response nested too deep' };
    return isObject(value) && typeof value.method === 'string'
      ? { kind: 'drop', why: 'a notification nested too deep' }
      : answer(null, INVALID_REQUEST, `Invalid Request: nested more than ${MAX_DEPTH} levels deep.`);
  }
  return guardMessage(value);
}

/** Checks one parsed message and normalises what clients are known to send loosely. */
function guardMessage(value: unknown): Guarded {
  if (!isObject(value)) {
    return answer(
      null,
      INVALID_REQUEST,
      Array.isArray(value) ? 'Invalid Request: batches are not supported; send one message at a time.' : 'Invalid Request: a message is a JSON object.',
    );
  }
  const { id, method } = value;
  const hasId = 'id' in value;
  if (hasId && !isId(id)) {
    // A response to an unusable id cannot be answered; a request with one cannot be answered either.
    return method === undefined
      ? { kind: 'drop', why: 'a response with an invalid id' }
      : answer(null, INVALID_REQUEST, 'Invalid Request: id must be a string or a number.');
  }
  const isResponse = 'result' in value || 'error' in value;
  if (value.jsonrpc !== '2.0') {
    if (method === undefined && isResponse) return { kind: 'drop', why: 'a response that is not JSON-RPC 2.0' };
    return answer(hasId && method !== undefined ? (id as JsonRpcId) : null, INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0".');
  }
  if (method === undefined) {
    // A response to one of the server's requests (an elicitation answer): the SDK matches it.
    if (isResponse && !hasId) return { kind: 'drop', why: 'a response without an id' };
    if (isResponse) return { kind: 'pass', ...wellFormedResponse(value, id as JsonRpcId) };
    return answer(hasId ? (id as JsonRpcId) : null, INVALID_REQUEST, 'Invalid Request: a request needs a method.');
  }
  if (typeof method !== 'string' || isResponse) {
    const why = typeof method !== 'string' ? 'method must be a string' : 'a message cannot be both a request and a response';
    // Not a valid notification either: answered, with the id when it has a usable one.
    return answer(hasId ? (id as JsonRpcId) : null, INVALID_REQUEST, `Invalid Request: ${why}.`);
  }
  // A request (id) or a notification (no id).
  const fail = (why: string): Guarded =>
    hasId ? answer(id as JsonRpcId, INVALID_PARAMS, `Invalid params: ${why.replace(/\.$/, '')}.`) : { kind: 'drop', why };
  if ('params' in value && value.params !== undefined) {
    const params = value.params;
    // JSON-RPC's params are structured (an object or an array); MCP's are always an object.
    if (!isObject(params) && !Array.isArray(params))
      return hasId ? answer(id as JsonRpcId, INVALID_REQUEST, 'Invalid Request: params must be an object.') : { kind: 'drop', why: 'params not structured' };
    if (!isObject(params)) return fail('params must be an object');
    if ('_meta' in params && params._meta !== undefined) {
      if (!isObject(params._meta)) return fail('params._meta must be an object');
      const token = params._meta.progressToken;
      if (token !== undefined && !isId(token)) return fail('params._meta.progressToken must be a string or a number');
    }
    const field = Object.hasOwn(TARGETS, method) ? TARGETS[method] : undefined;
    const target = field === undefined ? undefined : params[field];
    if (typeof target === 'string' && target.length > MAX_NAME_CHARS) {
      return fail(`params.${field} is ${target.length} characters long; no ${field === 'uri' ? 'URI' : 'name'} here is longer than ${MAX_NAME_CHARS}`);
    }
    if (method === 'tools/call') {
      if (typeof params.name !== 'string' || params.name === '') return fail('params.name must be the name of a tool');
      const args = readArguments(params.arguments);
      if (args === INVALID) return fail(argumentsShapeError(params.arguments) ?? 'tools/call arguments must be an object of named arguments');
      const marked = args === undefined ? undefined : (markPrototypeKeys(args) as Record<string, unknown>);
      if (marked === params.arguments) return { kind: 'pass', message: value, changed: false };
      const normalised = { ...params };
      if (marked === undefined) delete normalised.arguments;
      else normalised.arguments = marked;
      return { kind: 'pass', message: { ...value, params: normalised }, changed: true };
    }
  } else if (method === 'tools/call') {
    return fail('params.name must be the name of a tool');
  }
  return { kind: 'pass', message: value, changed: false };
}

/**
 * A response as the SDK can match it to the request it answers. One whose result is no object, or
 * whose error has no code and message, would be dropped by the SDK as no message at all, and the
 * server's request (a question to the user) would wait for its answer until its time ran out: it is
 * passed on as an error answering that request, which then fails at once.
 */
function wellFormedResponse(value: Record<string, unknown>, id: JsonRpcId): { message: Record<string, unknown>; changed: boolean } {
  const { result, error } = value;
  const malformed =
    'result' in value
      ? !isObject(result) && 'a result that is not an object'
      : !(isObject(error) && Number.isInteger(error.code) && typeof error.message === 'string') && 'an error without a code and a message';
  if (!malformed) return { message: value, changed: false };
  return { message: { jsonrpc: '2.0', id, error: { code: INVALID_REQUEST, message: `Invalid response: ${malformed}.` } }, changed: true };
}

const INVALID = Symbol('invalid');

/** Tool arguments as clients send them: absent or null is none; JSON text of an object is the object. */
function readArguments(args: unknown): Record<string, unknown> | undefined | typeof INVALID {
  if (args === undefined || args === null) return undefined;
  if (isObject(args)) return args;
  if (typeof args === 'string') {
    const t = args.trim();
    if (t === '') return undefined;
    if (t.startsWith('{')) {
      try {
        const parsed: unknown = JSON.parse(t);
        if (isObject(parsed) && nestingDepth(t) <= MAX_DEPTH) return parsed;
      } catch {
        // not JSON after all: refused below
      }
    }
  }
  return INVALID;
}
