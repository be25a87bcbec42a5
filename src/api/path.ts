// Turning a path template and arguments into the path that is requested. Every parameter is encoded
// as one segment, so no argument ('../../workspace', 'x?y', 'a#b') can change which endpoint is hit.
import { splitTemplate } from '../path-template.js';
import { InvalidArgumentError } from './errors.js';

/**
 * `segmented` names the one parameter that may hold slashes (the media `{path}`, a stored file's
 * path: the operation's `segmentedParam` facet): each of its segments is encoded, the slashes kept.
 */
export function buildPath(template: string, params: Record<string, string>, segmented?: string): string {
  const { text, names } = splitTemplate(template);
  let out = text[0] as string;
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    const value = params[name];
    if (value === undefined || value === null) {
      throw new InvalidArgumentError(name, `Missing path parameter "${name}" for ${template}.`);
    }
    const v = String(value);
    out +=
      name === segmented
        ? v
            .split('/')
            .map((s) => encodeSegment(name, s))
            .join('/')
        : encodeSegment(name, v);
    out += text[i + 1] as string;
  }
  return out;
}

// '.' and '..' survive encodeURIComponent and are resolved by servers and proxies as "here" and
// "parent"; an empty segment makes '//', which some routers collapse. None names a resource.
function encodeSegment(field: string, segment: string): string {
  if (segment === '' || segment === '.' || segment === '..') {
    throw new InvalidArgumentError(field, `"${field}" has an empty, "." or ".." segment, which cannot name a resource.`);
  }
  try {
    return encodeURIComponent(segment);
  } catch {
    // A lone UTF-16 surrogate cannot be encoded as UTF-8.
    throw new InvalidArgumentError(field, `"${field}" is not valid Unicode text.`);
  }
}
