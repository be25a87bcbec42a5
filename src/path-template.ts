// A path or URI template (`/engagements/{engagement}`, `workspace://engagements/{engagement}`) split
// once into the text between its variables and their names: the API client builds a path on every
// request and every list answer links each of its records, and a regex match each time added up.

const VARIABLE = /\{([A-Za-z_]+)\}/g;

/** A template split once: the text between variables (one more than the names), and the names in order. */
interface SplitTemplate {
  text: string[];
  names: string[];
}

/** Templates seen so far: the catalog's paths and resource templates, a few hundred at most. */
const splitTemplates = new Map<string, SplitTemplate>();

export function splitTemplate(template: string): SplitTemplate {
  let t = splitTemplates.get(template);
  if (t === undefined) {
    t = { text: [], names: [] };
    let last = 0;
    for (const m of template.matchAll(VARIABLE)) {
      t.text.push(template.slice(last, m.index));
      t.names.push(m[1] as string);
      last = m.index + m[0].length;
    }
    t.text.push(template.slice(last));
    splitTemplates.set(template, t);
  }
  return t;
}
