// The calls a model makes that go wrong, written from a tool's listing alone, as a model writes them:
// no arguments at all, ids of the right form that name nothing, and values the listed schema refuses.
// Each call says which fields it got wrong, so a test can check that the answer names them.

type Json = Record<string, unknown>;

/** An id of the right form (a ULID's 26 characters) that no workspace holds. */
export const UNKNOWN_ID = '01ZZZZZZZZZZZZZZZZZZZZZZZZ';

export interface ErrorCall {
  tool: string;
  /** What goes wrong: `missing` (no arguments), `unknown ids`, `invalid values`. */
  kind: 'missing' | 'unknown ids' | 'invalid values' | 'script';
  args: Json;
  /** Fields the answer must name (one of them at least): the ones left out, or given wrong. */
  fields: string[];
}

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function typeOf(s: Json): string | undefined {
  const t = s.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) return t.find((x) => x !== 'null') as string | undefined;
  return undefined;
}

function isId(s: Json): boolean {
  return typeof s.pattern === 'string' && s.pattern.includes('{26}');
}

/** A value the schema admits, ids naming nothing. */
function sample(s: Json): unknown {
  if (Array.isArray(s.enum)) return s.enum.find((v) => v !== null);
  switch (typeOf(s)) {
    case 'string':
      if (isId(s)) return UNKNOWN_ID;
      if (typeof s.description === 'string' && s.description.startsWith('JSON object')) return '{}';
      if (s.format === 'date') return '2026-01-01';
      if (s.format === 'date-time') return '2026-01-01T00:00:00Z';
      if (s.format === 'email') return 'nobody@example.com';
      if (s.format === 'uri') return 'https://example.com/';
      return 'x';
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 1;
    case 'boolean':
      return false;
    case 'array': {
      const min = typeof s.minItems === 'number' ? s.minItems : 0;
      return Array.from({ length: Math.max(min, 1) }, () => (isObject(s.items) ? sample(s.items) : 'x'));
    }
    case 'object':
      return requiredSample(s);
    default:
      return 'x';
  }
}

function requiredOf(s: Json): string[] {
  return Array.isArray(s.required) ? (s.required as string[]) : [];
}

function propertiesOf(s: Json): Record<string, Json> {
  return isObject(s.properties) ? (s.properties as Record<string, Json>) : {};
}

/** An object with only its required properties, each a value the schema admits. */
function requiredSample(s: Json): Json {
  const props = propertiesOf(s);
  return Object.fromEntries(requiredOf(s).map((k) => [k, sample(props[k] ?? {})]));
}

/** Whether a value of this schema (or one nested in it that is required) is an id. */
function holdsId(s: Json): boolean {
  if (isId(s)) return true;
  if (typeOf(s) === 'array' && isObject(s.items)) return holdsId(s.items);
  if (typeOf(s) === 'object') {
    const props = propertiesOf(s);
    return requiredOf(s).some((k) => holdsId(props[k] ?? {}));
  }
  return false;
}

/** A value the schema refuses, of the kind a model gets wrong: an id that is not one, a word not in the list, text for a number. */
function wrong(s: Json): unknown {
  if (Array.isArray(s.enum)) return 'not_one_of_these';
  switch (typeOf(s)) {
    case 'string':
      if (isId(s)) return 'the-first-one';
      if (typeof s.maxLength === 'number') return 'x'.repeat(s.maxLength + 1);
      return { not: 'text' };
    case 'integer':
    case 'number':
      return 'many';
    case 'boolean':
      return 'perhaps';
    case 'array':
      return 42;
    default:
      return 42;
  }
}

/** The calls that go wrong for one listed tool. */
export function errorCalls(tool: { name: string; inputSchema: Json }): ErrorCall[] {
  const schema = tool.inputSchema;
  const props = propertiesOf(schema);
  const required = requiredOf(schema);
  const calls: ErrorCall[] = [];
  if (required.length) calls.push({ tool: tool.name, kind: 'missing', args: {}, fields: required });
  const ids = required.filter((k) => holdsId(props[k] ?? {}));
  if (ids.length) calls.push({ tool: tool.name, kind: 'unknown ids', args: requiredSample(schema), fields: ids });
  const wrongOnes = required.length ? required : Object.keys(props);
  if (wrongOnes.length) {
    const args = { ...requiredSample(schema), ...Object.fromEntries(wrongOnes.map((k) => [k, wrong(props[k] ?? {})])) };
    calls.push({ tool: tool.name, kind: 'invalid values', args, fields: wrongOnes });
  }
  return calls;
}

/** Scripts whose calls fail, uncaught: the script's own error answer. */
export function scriptErrorCalls(tools: readonly string[], engagement: string): ErrorCall[] {
  return tools
    .filter((t) => t === 'run_read_script' || t === 'run_write_script')
    .flatMap((t) => [
      {
        tool: t,
        kind: 'script' as const,
        args: { script: `return await api.get_finding({engagement: '${engagement}', finding: '${UNKNOWN_ID}'});` },
        fields: ['finding'],
      },
      { tool: t, kind: 'script' as const, args: { script: `return await api.list_findings({engagement: 'the-first-one'});` }, fields: ['engagement'] },
    ]);
}
