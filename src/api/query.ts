// Query strings from tool arguments, by the rules the sandbox and the MCP layer share:
// undefined and null are dropped (an omitted filter), arrays repeat their key, objects travel as JSON,
// booleans as 1 and 0 (Laravel's `boolean` rule refuses the strings "true" and "false").

export function appendQuery(path: string, query: Record<string, unknown> | undefined): string {
  if (query === undefined) return path;
  let qs = '';
  for (const key in query) {
    const value = query[key];
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      for (const item of value) {
        if (item !== undefined && item !== null) qs += `&${encodeURIComponent(key)}=${encodeValue(item)}`;
      }
    } else {
      qs += `&${encodeURIComponent(key)}=${encodeValue(value)}`;
    }
  }
  return qs === '' ? path : `${path}?${qs.slice(1)}`;
}

function encodeValue(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return encodeURIComponent(value);
    case 'boolean':
      return value ? '1' : '0';
    case 'object':
      return encodeURIComponent(JSON.stringify(value));
    default:
      return encodeURIComponent(String(value));
  }
}
