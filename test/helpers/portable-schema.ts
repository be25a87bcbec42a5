// What "portable" means for a listed input schema, as the client libraries and model providers we
// test against convert them: every object declares its
// properties or says additionalProperties (OpenAI's strict conversion falls back on an open object;
// Gemini refuses an object with no properties), objects nested in the arguments are closed (strict
// tool use that allows optional properties requires it), a type is one JSON type or one type and
// null (Gemini's subset refuses other unions), and no composition or reference keyword is used.
type Json = Record<string, unknown>;

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const UNPORTABLE = [
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  '$ref',
  '$defs',
  'definitions',
  'if',
  'then',
  'else',
  'patternProperties',
  'propertyNames',
  'prefixItems',
  'additionalItems',
  'dependentSchemas',
  'dependentRequired',
  'unevaluatedProperties',
];

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every portability problem of one input schema, as "path: problem". */
export function portabilityProblems(schema: unknown): string[] {
  const out: string[] = [];
  const walk = (node: unknown, path: string, root: boolean) => {
    if (!isObject(node)) {
      out.push(`${path}: not a schema object`);
      return;
    }
    for (const k of UNPORTABLE) if (k in node) out.push(`${path}: uses ${k}`);
    const type = node.type;
    const types = Array.isArray(type) ? type : [type];
    if (type === undefined) out.push(`${path}: no type`);
    else if (!types.every((t) => typeof t === 'string' && TYPES.has(t))) out.push(`${path}: unknown type ${JSON.stringify(type)}`);
    else if (Array.isArray(type) && !(type.length === 2 && type.includes('null') && type[0] !== type[1]))
      out.push(`${path}: a union of types ${JSON.stringify(type)}`);
    if (types.includes('object')) {
      const props = isObject(node.properties) ? node.properties : undefined;
      const declares = props !== undefined && Object.keys(props).length > 0;
      if (!declares && node.additionalProperties !== false) out.push(`${path}: an object with no declared property that is not closed`);
      if (declares && !root && node.additionalProperties !== false) out.push(`${path}: a nested object that is not closed`);
      if (node.additionalProperties !== undefined && node.additionalProperties !== false)
        out.push(`${path}: additionalProperties ${JSON.stringify(node.additionalProperties)}`);
      for (const [k, v] of Object.entries(props ?? {})) walk(v, `${path}.${k}`, false);
      const required = Array.isArray(node.required) ? node.required : [];
      for (const r of required) if (!props || !(String(r) in props)) out.push(`${path}: requires ${String(r)}, which it does not declare`);
    }
    if (types.includes('array')) {
      if (!isObject(node.items)) out.push(`${path}: an array without items`);
      else walk(node.items, `${path}[]`, false);
    }
    if (Array.isArray(node.enum) && !node.enum.every((v) => typeof v === 'string' || v === null)) out.push(`${path}: an enum of other values than text`);
  };
  walk(schema, '(input)', true);
  if (isObject(schema) && schema.type !== 'object') out.push('(input): the root is not an object');
  return out;
}

/** Problems of every tool of a listing, keyed "tool: path: problem". */
export function listingProblems(tools: ReadonlyArray<{ name: string; inputSchema: unknown }>): string[] {
  return tools.flatMap((t) => portabilityProblems(t.inputSchema).map((p) => `${t.name}: ${p}`));
}
