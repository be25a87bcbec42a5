// Ranked search over every operation, for find_operations. Consultants ask in English or French and
// in their own words ("les remarques du client", "make Julie an admin"), not in API nouns. The words
// live as data: each catalog entry says what people call it (its askedAs facet, both languages: the
// situations people are in when they need it), the API's specification says what each operation and
// area is (catalog/spec-prose.ts, generated from it), and catalog/vocabulary.ts holds what no entry
// owns (stop words, a word map to the API's words, expressions of several words, the readings of
// "client", what the API reserves to its web application). This module only folds and weighs:
// - words are stemmed by the Snowball stemmer of their language (@orama/stemmers), the same way on
//   both sides: proposed and proposing meet, and so do proposer, proposé and proposée; a word nothing
//   knows is heard, at half weight, as the words it begins like (intro, introduction);
// - a field-weighted BM25-like sum (name, title and askedAs count more than the description, the path,
//   parameters and the spec's prose less, what the spec says of the other operations on the same
//   resource least), plus the best phrase an entry is asked as: the share of its
//   words the request says and the pairs of words it says in the same order ("the client sent" is not
//   "sent the client");
// - then shaped by what the request is about: an operation whose name's nouns the request names beats
//   one that only shares a verb; a request that asks nothing to change prefers reads, one that asks for
//   a change prefers writes.
// When nothing matches strongly, the caller says so and shows every operation of the likeliest areas.
import { stemmer as english } from '@orama/stemmers/english';
import { stemmer as french } from '@orama/stemmers/french';
import { specProse } from '../../../catalog/spec-prose.js';
import { vocabulary } from '../../../catalog/vocabulary.js';
import { type WordRelations, wordRelations } from '../../../catalog/word-relations.js';
import { type Operation, pathParams, type SearchVocabulary, type SpecProse, type Toolset } from '../../operation.js';

/** Lower case, no accents, no apostrophes or hyphens; re- joined to its word (re-analyse, ré-générer) reads as the word written whole. */
function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/œ/g, 'oe')
    .toLowerCase()
    .replace(/[’'‘]/g, ' ')
    .replace(/\bre-(?=[a-z])/g, 're')
    .replace(/-/g, ' ');
}

type Lang = 'en' | 'fr';
const STEMMERS: Record<Lang, (word: string) => string> = { en: english, fr: french };
/** The API's nouns a stemmer would fold into a verb that means something else ("find the engagement" asks for no finding). */
const WHOLE: Readonly<Record<string, string>> = { finding: 'finding', findings: 'finding' };

/**
 * Lower case, no accents, split on anything not a letter or digit, each word reduced to its stem by
 * the Snowball stemmer of the text's language (@orama/stemmers): generate, generated, generation meet,
 * and so do proposer, proposé, proposée. Applied to operations and requests alike, so a stem only has
 * to be the same on both sides. The text is folded before it is stemmed (expressions are matched on
 * folded text), so a French participle's lost accent is put back first (proposee, publiee: proposée, publiée).
 */
export function terms(text: string, lang: Lang = 'en'): string[] {
  return fold(text)
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .map((w) => stemOf(w, lang));
}

/**
 * Stems already computed, per language: the catalog's few thousand words repeat across operations and
 * the stemmers build their expressions at every call. Bounded, since requests bring words of their own.
 */
const STEMS = { en: new Map<string, string>(), fr: new Map<string, string>() };
const STEMS_KEPT = 20_000;

function stemOf(w: string, lang: Lang): string {
  const whole = WHOLE[w];
  if (whole) return whole;
  if (w.length < 3 || /\d/.test(w)) return w;
  const seen = STEMS[lang];
  let stem = seen.get(w);
  if (stem === undefined) {
    stem = fold(STEMMERS[lang](lang === 'fr' ? w.replace(/ee(s?)$/, 'ée$1').replace(/ie(s?)$/, 'ié$1') : w));
    if (seen.size >= STEMS_KEPT) seen.clear();
    seen.set(w, stem);
  }
  return stem;
}

/** A request's language: French when it says more of the French stop words (or accented words) than of the English ones. */
export function languageOf(text: string): Lang {
  const v = vocab();
  const accented = (text.match(/[àâçéèêëîïôûùüÿœ]/giu) ?? []).length;
  let fr = accented;
  let en = 0;
  for (const w of fold(text).split(/[^a-z0-9]+/)) {
    if (v.stopRaw.fr.has(w)) fr++;
    if (v.stopRaw.en.has(w)) en++;
  }
  return fr > en ? 'fr' : 'en';
}

/** The other language: its stem of a request's word is heard too, a little less (validation, analyse, export say the same in both). */
const other = (lang: Lang): Lang => (lang === 'en' ? 'fr' : 'en');
const OTHER_LANGUAGE = 0.8;

/** What a request's word means in the catalog's words, and whether only a word relation says so (heard less). */
interface Meaning {
  to: string;
  related: boolean;
}

/** The particles of a verb of several words, which may stand a few words after it (take Sophie off the workspace). */
const PARTICLES = new Set(['off', 'out', 'up', 'over', 'down', 'away', 'back', 'forward', 'in']);
/** How many words may stand between a verb and its particle. */
const PARTICLE_GAP = 3;

/** The vocabulary and the reviewed word relations, folded once, the way requests are. */
function compile(v: SearchVocabulary, relations: WordRelations) {
  const stopRaw = { en: new Set(fold(v.stopWords.en).split(/\s+/)), fr: new Set(fold(v.stopWords.fr).split(/\s+/)) };
  // A stop word and a vocabulary key are stemmed both ways: a request in either language finds them.
  const both = (w: string) => [...terms(w, 'en'), ...terms(w, 'fr')];
  const stop = new Set([...stopRaw.en, ...stopRaw.fr].flatMap(both));
  // Keys of one stem (change, changer, changement) mean what the shortest says: the base word.
  const words = new Map<string, Meaning>();
  const by = new Map<string, string>();
  for (const [k, to] of Object.entries(v.words)) {
    for (const t of both(k)) {
      const held = by.get(t);
      if (held !== undefined && held.length <= k.length) continue;
      by.set(t, k);
      words.set(t, { to, related: false });
    }
  }
  // A related word never overrides what the vocabulary says, and is heard in its own language only
  // (stemmed in the other, the English consult would read the French consultant). One of several
  // words is kept whole, as the stems it is said with (kick off: kick, off), and read as one word.
  const related = { en: new Map<string, Meaning>(), fr: new Map<string, Meaning>() };
  const joined = { en: [] as { stems: string[]; key: string }[], fr: [] as { stems: string[]; key: string }[] };
  for (const [group, g] of Object.entries(relations.groups)) {
    for (const lang of ['en', 'fr'] as const) {
      for (const w of g[lang] ?? []) {
        const stems = terms(w, lang);
        const key = stems.join(' ');
        if (words.has(key) || related[lang].has(key)) continue;
        related[lang].set(key, { to: relations.readAs[w] ?? g.means ?? group, related: true });
        if (stems.length > 1) joined[lang].push({ stems, key });
      }
    }
  }
  const phrases = v.phrases.map(([re, to]) => [new RegExp(re, 'g'), to] as const);
  return { stop, stopRaw, words, related, joined, phrases };
}
let compiled: ReturnType<typeof compile> | undefined;

/** The vocabulary, folded on the first search: a session that never searches never pays for it. */
function vocab(): ReturnType<typeof compile> {
  compiled ??= compile(vocabulary, wordRelations);
  return compiled;
}

/** The words the vocabulary and the relations of a language give a meaning to, of one stem each. */
const keysOf = { en: undefined as string[] | undefined, fr: undefined as string[] | undefined };
function meaningKeys(lang: Lang): string[] {
  keysOf[lang] ??= [...vocab().words.keys(), ...vocab().related[lang].keys()].filter((k) => !k.includes(' '));
  return keysOf[lang];
}

/** The letters two words begin with in common. */
function commonBeginning(t: string, u: string): number {
  let k = 0;
  while (k < t.length && k < u.length && t[k] === u[k]) k++;
  return k;
}

/** Two words that begin alike enough to be one word the stemmer left apart (LIKE_PREFIX letters, and LIKE_SHARE of the shorter). */
function sharesBeginning(t: string, u: string): boolean {
  const k = commonBeginning(t, u);
  return k >= LIKE_PREFIX && k >= LIKE_SHARE * Math.min(t.length, u.length);
}

/** What a request's word means, as the vocabulary says, or else a reviewed word relation of the request's language. */
function meaning(t: string, lang: Lang): Meaning | undefined {
  return vocab().words.get(t) ?? vocab().related[lang].get(t);
}

let reserved: Set<string>[] | undefined;
/** The words of each thing the API reserves to its web application, read as an entry's askedAs phrases are. */
function reservedToWebApp(): Set<string>[] {
  reserved ??= (vocabulary.reserved ?? []).map(
    (r) => new Set([...r.en.flatMap((p) => terms(rewrite(p), 'en')), ...r.fr.flatMap((p) => terms(rewrite(p), 'fr'))].filter((t) => !vocab().stop.has(t))),
  );
  return reserved;
}

/**
 * spec: what the API's specification says of the operation (its payload, the fields and values of
 * the body it takes: catalog/spec-prose.ts), weighed least, counted like the entry's own words but
 * adding nothing for being said in more fields (the spec repeats the entry's parameter names).
 * areaSpec: the spec's sentence about the operation's area, the same for every operation of the area:
 * it counts neither in how rare a word is nor in what a strong match accounts for, since counting it
 * there made every area's common words commoner and unrelated requests look answered.
 * resource: what the spec says of the other operations on the same resource (its path, with or
 * without the item's id): a read shares the fields its resource's write takes (the draft's
 * introduction and recommendations, a budget's warning ratio), which the spec lists on the write
 * only. Not the operation's own words, so kept out of how rare a word is and what a match accounts for.
 */
const FIELD_WEIGHTS = {
  name: 3,
  title: 2,
  asked: 2,
  path: 1.2,
  area: 1,
  params: 1,
  description: 1,
  values: 0.8,
  spec: 0.5,
  areaSpec: 0.3,
  resource: 0.3,
} as const;
/** The fields that say what an operation is (all but its area's sentence and its resource's other operations). */
const OWN_FIELDS = (Object.keys(FIELD_WEIGHTS) as (keyof typeof FIELD_WEIGHTS)[]).filter((f) => f !== 'areaSpec' && f !== 'resource');
/** Fields whose words add nothing for being said again elsewhere (the spec repeats the entry's parameter names). */
const ECHO_FIELDS: ReadonlySet<string> = new Set(['spec', 'areaSpec', 'resource']);
/** A resource: an operation's path without the item's id at its end (the findings and one finding are one resource). */
const resourceOf = (op: Operation) => op.path.replace(/\/\{[^}]+\}$/, '');
/** Weight of the best phrase the operation is asked as (title and askedAs), beside the word sum. */
const PHRASE_WEIGHT = 1.2;
/** For each pair of words the request says in the order one of the operation's phrases says them. */
const PAIR_WEIGHT = 0.6;
/** Up to this much more for an operation whose name's nouns the request all names. */
const OBJECT_WEIGHT = 0.5;
/** For an operation whose verb the request says. */
const VERB_BONUS = 1.15;
/** For a write when the request asks for no change, and a read when it asks for one. */
const UNASKED_CHANGE = 0.7;
const UNASKED_READ = 0.85;
/**
 * A match is strong when it accounts for at least this share of what the request says (its words'
 * weight, rare words counting more), and scores at least STRONG_SCORE per unit of that weight (a
 * match made only of words its description or parameters share is not); below either,
 * find_operations says it is unsure. Set on the tuned sets against both errors: a request no operation
 * answers left strong, and a request one does answer called weak.
 */
const STRONG_SHARE = 0.4;
const STRONG_SCORE = 1;
/**
 * What a word only a reviewed word relation connects (catalog/word-relations.ts) weighs in the words
 * it means: less than a word the vocabulary maps (0.8), since a thesaurus's sense, even reviewed, is
 * further from the request than a word someone wrote down for it.
 */
const RELATED_WEIGHT = 0.6;
/** An e-mail address or a web address. */
const ADDRESS = /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b|\bhttps?:\/\/\S+|\bwww\.\S+/giu;
/** Where a request starts saying what its object is about (or focuses on), and how much the words after count. */
const ABOUT =
  /\b(?:about|regarding|concerning|focus(?:ing|ed)? on|cent(?:er|re)d on|au sujet d|a propos d|concernant|axee?s? sur|centree?s? sur|portant sur)\b/;
const SUBJECT_WEIGHT = 0.5;
/**
 * Where a request, past its first word, starts a clause that says when ("their screen when they demoed
 * the ERP", "quand ils ont montré l'ERP") or where ("the moment where he shares the file"): its words
 * say when or where the thing was, not which thing, and weigh as the subject matter's do (the French
 * où folds into ou, "or", so only English says where). Not after a verb of telling or knowing, where the clause is what is
 * asked ("show me when the report was published").
 */
const WHEN = /(?<!\b(?:me|us|moi|nous|know|savoir|check|see|voir|out|dire|dis) )\b(?:when|while|whenever|where|quand|lorsqu|lorsque|pendant qu|pendant que)\b/;
/**
 * A request's word that neither the operations nor the vocabulary know weighs what the rarest word
 * weighs: unseen, it is as rare as a word can be, and a request made mostly of such words ("book a
 * meeting room") asks for something no operation does.
 */
const UNKNOWN_WORD = 1;
/**
 * A word no operation holds and the vocabulary does not map is heard as the operations' words that
 * begin as it does, at this weight: a stem the stemmer left apart (intro and introduction,
 * administratrice and administrator, a cognate of the other language). At least LIKE_PREFIX letters in
 * common, and LIKE_SHARE of the shorter word's. Such a word asks for no change, and what a match
 * accounts for still counts it as unknown.
 */
const LIKE_WEIGHT = 0.5;
const LIKE_PREFIX = 5;
const LIKE_SHARE = 0.75;
/**
 * A word read as a word the vocabulary or a relation knows must begin as it does more closely: it is
 * then heard whole, as that word (détruis, détruire), where LIKE_* only adds a little weight
 * (approches must not be read as approuver).
 */
const ALIAS_PREFIX = 6;
const ALIAS_SHARE = 0.8;
type Field = keyof typeof FIELD_WEIGHTS;

interface Doc {
  op: Operation;
  fields: Record<Field, Set<string>>;
  /** The phrases the operation is asked as (its title and askedAs), as folded words in order. */
  phrases: string[][];
  /** The name's first word: what the operation does. */
  verb: string;
  /** The name's other words: what it acts on. */
  object: string[];
  writes: boolean;
}

interface Match {
  op: Operation;
  score: number;
}

interface SearchResult {
  matches: Match[];
  /** The best match accounts for most of what the request says. */
  strong: boolean;
  /** The areas the request most likely means, most likely first (from the matches' scores). */
  areas: Toolset[];
}

interface Query {
  /** Each word at full weight, the words it maps to at a lower one. */
  weights: Map<string, number>;
  /** Words said only as an English past participle ("the roadmap we published"): a state, not a change asked for. */
  participles: Set<string>;
  /** The request's own words in order (after its expressions are rewritten), for pair matches. */
  sequence: string[];
  /** Words written with a capital inside the request: names of people, companies, products. */
  names: Set<string>;
  /** The words that say what the object is about (after "about"). */
  subject: Set<string>;
  /** The request's language (its words are stemmed, and related words heard, in it). */
  lang: Lang;
}

/** The folded text with its expressions of several words rewritten (requests and askedAs phrases alike). */
function rewrite(text: string): string {
  let out = fold(text);
  for (const [re, to] of vocab().phrases) out = out.replace(re, to);
  return out;
}

/**
 * A related verb of several words said in the request (kick off, call the run off) read as one word:
 * its first word becomes the whole, its other words a stop word (the sequence keeps its length, so
 * each word still meets its stem in the other language).
 */
function joinRelated(words: string[], lang: Lang): string[] {
  const stopWord = terms('the')[0] as string;
  for (const { stems, key } of vocab().joined[lang]) {
    for (let i = 0; i + stems.length <= words.length; i++) {
      if (words[i] !== stems[0]) continue;
      const at = [i];
      for (let k = 1; k < stems.length; k++) {
        const last = k === stems.length - 1 && PARTICLES.has(stems[k] as string);
        const prev = at[k - 1] as number;
        const limit = last ? Math.min(words.length - 1, prev + 1 + PARTICLE_GAP) : prev + 1;
        let found = -1;
        for (let j = prev + 1; j <= limit; j++) {
          if (words[j] === stems[k]) {
            found = j;
            break;
          }
        }
        if (found < 0) break;
        at.push(found);
      }
      if (at.length < stems.length) continue;
      words[i] = key;
      for (const j of at.slice(1)) words[j] = stopWord;
    }
  }
  return words;
}

/**
 * The expanded request. A word made with "re" of a known one (regenerate, relancer, régénérer) also
 * says the word itself.
 */
function expand(said: string, known: (t: string) => boolean): Query {
  // An address names someone or somewhere; its words (jane, client, com) are not the request's.
  const query = said.replace(ADDRESS, ' ');
  const weights = new Map<string, number>();
  // A stop word heard at less than full weight (another language's stem) says nothing, but one the
  // vocabulary gives as a meaning does: show and voir mean get as much as list.
  const add = (t: string, w: number, meant = false) => {
    if (vocab().stop.has(t) && w < 1 && !meant) return;
    weights.set(t, Math.max(weights.get(t) ?? 0, w));
  };
  const lang = languageOf(query);
  const text = rewrite(query);
  const words = joinRelated(terms(text, lang), lang);
  const sequence = words.filter((t) => !vocab().stop.has(t));
  const raw = text.split(/[^a-z0-9]+/).filter(Boolean);
  const participles = new Set(raw.filter((w) => w.length > 4 && w.endsWith('ed')).map((w) => stemOf(w, 'en')));
  for (const w of raw) if (!(w.length > 4 && w.endsWith('ed'))) participles.delete(stemOf(w, 'en'));
  // A word the stemmer leaves apart from a word the vocabulary or a relation knows (reconstruis and
  // reconstruire, an imperative and its infinitive) is read as that word, when it is neither a word
  // of the operations nor a name.
  for (const [i, t] of words.entries()) {
    if (t.length < LIKE_PREFIX || known(t) || meaning(t, lang) || vocab().stop.has(t)) continue;
    const like = meaningKeys(lang).find((k) => {
      const n = commonBeginning(t, k);
      return n >= ALIAS_PREFIX && n >= ALIAS_SHARE * Math.max(t.length, k.length);
    });
    if (like !== undefined) words[i] = like;
  }
  // Written with a hyphen (re-analyse), re- is the prefix for sure, even of a word the operations know.
  const redone = new Set([...fold(query.replace(/-/g, '_')).matchAll(/\bre_([a-z]+)/g)].flatMap((m) => terms(m[1] as string, lang)));
  for (const t of [...words]) {
    const again = t.length > 5 && t.startsWith('re') ? t.slice(2) : '';
    if (again && (!known(t) || redone.has(again)) && (known(again) || meaning(again, lang))) words.push(again);
  }
  // The words after "about" say what the thing is about (the subject matter: "the conclusion about
  // supplier onboarding"), and those of a clause that says when, when it was: not which thing, so
  // they weigh less.
  const when = text.slice(1).search(WHEN);
  const from = Math.min(...[text.search(ABOUT), when < 0 ? -1 : when + 1].filter((i) => i >= 0));
  const subject = new Set(Number.isFinite(from) ? terms(text.slice(from), lang) : []);
  // What a participle means is said as a state too ("the data imported": import means upload, not asked for).
  const changeSaid = new Set<string>();
  const stateSaid = new Set<string>();
  for (const t of words) {
    const said = meaning(t, lang);
    const w = subject.has(t) ? SUBJECT_WEIGHT : 1;
    if (!vocab().stop.has(t)) add(t, w);
    if (said) {
      const mapped = said.to;
      for (const m of terms(mapped)) {
        add(m, (said.related ? RELATED_WEIGHT : mapped.startsWith(t) ? 1 : 0.8) * w, true);
        (participles.has(t) ? stateSaid : changeSaid).add(m);
      }
    }
  }
  for (const m of stateSaid) if (!changeSaid.has(m) && !words.includes(m)) participles.add(m);
  for (const [i, t] of terms(text, other(lang)).entries()) {
    const own = words[i] as string;
    if (t !== own && !vocab().stop.has(own)) add(t, OTHER_LANGUAGE * (subject.has(own) ? SUBJECT_WEIGHT : 1));
  }
  const names = new Set(
    query
      .split(/\s+/)
      .slice(1)
      .filter((w) => /^\p{Lu}/u.test(w))
      .flatMap((w) => terms(w, lang)),
  );
  return { weights, participles, sequence, names, subject, lang };
}

function enumValues(op: Operation): string[] {
  const out: string[] = [];
  for (const field of Object.values(op.input.shape)) {
    let s: unknown = field;
    // Unwrap optional/nullable to reach an enum.
    for (let i = 0; i < 3 && s && typeof s === 'object' && 'unwrap' in s && typeof (s as { unwrap: unknown }).unwrap === 'function'; i++) {
      s = (s as { unwrap: () => unknown }).unwrap();
    }
    const options = (s as { options?: unknown }).options;
    if (Array.isArray(options)) out.push(...options.filter((o): o is string => typeof o === 'string'));
  }
  return out;
}

export class OperationIndex {
  private docs: Doc[] = [];
  private df = new Map<string, number>();
  /** The operations indexed so far, by resource. */
  private byResource = new Map<string, Operation[]>();
  // Indexed on the first search: a session that never searches never pays for it.
  private pending: Operation[] = [];

  private readonly prose: SpecProse;

  /** prose: what the spec says of each operation (the generated catalog/spec-prose.ts unless given). */
  constructor(ops: readonly Operation[] = [], opts: { prose?: SpecProse } = {}) {
    this.prose = opts.prose ?? specProse;
    this.add(ops);
  }

  add(ops: readonly Operation[]): void {
    this.pending.push(...ops);
  }

  private build(): void {
    const ops = this.pending;
    this.pending = [];
    this.idfs.clear();
    for (const op of ops) this.byResource.set(resourceOf(op), [...(this.byResource.get(resourceOf(op)) ?? []), op]);
    // The spec's prose belongs to documented operations, which the catalog gives first: operations
    // learnt later from the live description bring none for those indexed before them.
    const proseOf = (o: Operation) => terms(this.prose.operations[o.name] ?? '').filter((t) => !vocab().stop.has(t));
    for (const op of ops) {
      const params = Object.keys(op.input.shape);
      const [verb = '', ...object] = terms(op.name);
      const asked: [string, Lang][] = [
        ...(op.askedAs?.en ?? []).map((p): [string, Lang] => [p, 'en']),
        ...(op.askedAs?.fr ?? []).map((p): [string, Lang] => [p, 'fr']),
      ];
      const doc: Doc = {
        op,
        verb,
        object,
        writes: op.method !== 'GET',
        phrases: [[op.title, 'en'] as [string, Lang], ...asked]
          .map(([p, l]) => terms(rewrite(p), l).filter((t) => !vocab().stop.has(t)))
          .filter((p) => p.length),
        fields: {
          name: new Set(terms(op.name)),
          title: new Set(terms(op.title)),
          asked: new Set(asked.flatMap(([p, l]) => terms(rewrite(p), l)).filter((t) => !vocab().stop.has(t))),
          path: new Set(terms(op.path.replace(/\{[^}]+\}/g, ' '))),
          area: new Set(terms(op.toolset)),
          params: new Set(terms(params.filter((p) => !pathParams(op.path).includes(p)).join(' '))),
          description: new Set(terms(op.description)),
          // Enumerated argument values ("executive_summary", "validated") are words people use.
          values: new Set(terms(enumValues(op).join(' '))),
          // What the API's specification says of it and of its area, in its own words.
          spec: new Set(proseOf(op)),
          areaSpec: new Set(terms(this.prose.areas[op.toolset] ?? '').filter((t) => !vocab().stop.has(t))),
          resource: new Set((this.byResource.get(resourceOf(op)) ?? []).filter((o) => o !== op).flatMap(proseOf)),
        },
      };
      const seen = new Set<string>();
      for (const f of OWN_FIELDS) for (const t of doc.fields[f]) seen.add(t);
      for (const t of seen) this.df.set(t, (this.df.get(t) ?? 0) + 1);
      this.docs.push(doc);
    }
    // Verbs that only ever change something (a request that says one asks for a change), and words
    // that say neither for sure: a verb of reads that writes act on or also use (export: export_usage
    // reads, create_export writes one).
    const readVerbs = new Set(this.docs.filter((d) => !d.writes).map((d) => d.verb));
    const writeVerbs = new Set(this.docs.filter((d) => d.writes).map((d) => d.verb));
    const writeWords = new Set(this.docs.filter((d) => d.writes).flatMap((d) => d.object));
    this.changeVerbs = new Set([...writeVerbs].filter((v) => !readVerbs.has(v)));
    this.eitherVerbs = new Set([...readVerbs].filter((v) => writeVerbs.has(v) || writeWords.has(v)));
  }

  private changeVerbs = new Set<string>();
  private eitherVerbs = new Set<string>();

  get size(): number {
    return this.docs.length + this.pending.length;
  }

  // Memoised: every search weighs the same few hundred words again. Cleared when operations are added.
  private idfs = new Map<string, number>();
  private idf(t: string): number {
    let v = this.idfs.get(t);
    if (v === undefined) {
      const n = this.docs.length || 1;
      v = Math.log(1 + n / (this.df.get(t) ?? n));
      this.idfs.set(t, v);
    }
    return v;
  }

  /** The operations' words that begin as an unknown word does (LIKE_PREFIX, LIKE_SHARE). */
  private alike(t: string): string[] {
    return [...this.df.keys()].filter((u) => sharesBeginning(t, u));
  }

  /** The best phrase the operation is asked as: the weight of its words the request says, times their share, plus pairs in order. */
  private phraseScore(doc: Doc, q: Query, pairs: ReadonlySet<string>): number {
    let best = 0;
    for (const phrase of doc.phrases) {
      let said = 0;
      let total = 0;
      let inOrder = 0;
      for (let i = 0; i < phrase.length; i++) {
        const t = phrase[i] as string;
        const idf = this.idf(t);
        total += idf;
        said += (q.weights.get(t) ?? 0) * idf;
        if (i > 0 && pairs.has(`${phrase[i - 1]} ${t}`)) inOrder += (this.idf(phrase[i - 1] as string) + idf) / 2;
      }
      const s = (total ? (said * said) / total : 0) + PAIR_WEIGHT * inOrder;
      if (s > best) best = s;
    }
    return best;
  }

  search(query: string, opts: { limit?: number; filter?: (op: Operation) => boolean } = {}): Match[] {
    return this.find(query, opts).matches;
  }

  find(query: string, opts: { limit?: number; filter?: (op: Operation) => boolean } = {}): SearchResult {
    if (this.pending.length) this.build();
    const q = expand(query, (t) => this.df.has(t));
    // The words that say what is asked: the subject matter's words ("about supplier onboarding") ask for no change.
    const said = [...q.weights].filter(([, w]) => w > SUBJECT_WEIGHT).map(([t]) => t);
    for (const t of q.sequence) {
      if (t.length < LIKE_PREFIX || this.df.has(t) || meaning(t, q.lang) || q.names.has(t)) continue;
      for (const u of this.alike(t)) q.weights.set(u, Math.max(q.weights.get(u) ?? 0, LIKE_WEIGHT));
    }
    const asksChange = said.some((t) => this.changeVerbs.has(t) && !q.participles.has(t));
    const undecided = !asksChange && said.some((t) => this.eitherVerbs.has(t));
    // What the request says, weighed: its own words only (not what they map to), rare ones counting
    // more. A word only the vocabulary knows weighs what the words it means weigh; a word nothing knows
    // (not a name) weighs as a rare word: a request made mostly of such words ("book a meeting room")
    // asks for something no operation does, and must not get a confident list.
    const own = q.sequence.filter((t) => !q.names.has(t) || this.df.has(t) || meaning(t, q.lang));
    const weightOf = (t: string) => {
      if (this.df.has(t)) return this.idf(t) * (q.subject.has(t) ? SUBJECT_WEIGHT : 1);
      const mapped = terms(meaning(t, q.lang)?.to ?? '').filter((m) => this.df.has(m));
      return (
        (mapped.length ? Math.max(...mapped.map((m) => this.idf(m))) : UNKNOWN_WORD * Math.log(1 + this.docs.length)) * (q.subject.has(t) ? SUBJECT_WEIGHT : 1)
      );
    };
    const ownWeight = own.reduce((sum, t) => sum + weightOf(t), 0);
    const pairs = new Set<string>();
    for (let i = 1; i < q.sequence.length; i++) pairs.add(`${q.sequence[i - 1]} ${q.sequence[i]}`);
    const scored: Match[] = [];
    for (const doc of this.docs) {
      if (opts.filter && !opts.filter(doc.op)) continue;
      let score = 0;
      for (const [t, w] of q.weights) {
        let best = 0;
        let spread = 0;
        for (const f of Object.keys(FIELD_WEIGHTS) as Field[]) {
          if (doc.fields[f].has(t)) {
            best = Math.max(best, FIELD_WEIGHTS[f]);
            if (!ECHO_FIELDS.has(f)) spread += 0.15;
          }
        }
        if (best > 0) score += w * this.idf(t) * (best + spread);
      }
      score += PHRASE_WEIGHT * this.phraseScore(doc, q, pairs);
      // The object: the share of the name's nouns the request names.
      if (doc.object.length) score *= 1 + OBJECT_WEIGHT * (doc.object.filter((t) => q.weights.has(t)).length / doc.object.length);
      // The action: the verb said, and a change asked for or not.
      if (q.weights.has(doc.verb)) score *= VERB_BONUS;
      if (!undecided && doc.writes !== asksChange) score *= doc.writes ? UNASKED_CHANGE : UNASKED_READ;
      if (score <= 0) continue;
      // Among equals, the generic list/get of a resource beats its rarer relatives.
      scored.push({ op: doc.op, score: score - doc.op.name.length * 0.001 });
    }
    scored.sort((a, b) => b.score - a.score);
    const matches = scored.slice(0, opts.limit ?? 8);
    const top = matches[0];
    let strong = false;
    if (top && ownWeight > 0) {
      const doc = this.docs.find((d) => d.op === top.op) as Doc;
      // A word of the request counts as accounted for when the operation has it or a word it maps to.
      // A word only a reviewed word relation connects accounts for less than one said or mapped.
      const accounted = (holds: (t: string) => boolean) =>
        own.reduce((sum, t) => {
          if (holds(t)) return sum + weightOf(t);
          const said = meaning(t, q.lang);
          return terms(said?.to ?? '').some(holds) ? sum + weightOf(t) * (said?.related ? RELATED_WEIGHT : 1) : sum;
        }, 0);
      const covered = accounted((t) => OWN_FIELDS.some((f) => doc.fields[f].has(t)));
      // What the API reserves to its web application, when it accounts for more of the request than
      // the best operation does, is what is asked: no operation does it ("a new AI key for the workspace").
      const reserved = Math.max(0, ...reservedToWebApp().map((words) => accounted((t) => words.has(t))));
      strong = covered / ownWeight >= STRONG_SHARE && top.score / ownWeight >= STRONG_SCORE && reserved <= covered;
    }
    // The likeliest areas: the areas of the best few matches, by their summed scores.
    const byArea = new Map<Toolset, number>();
    for (const m of scored.slice(0, 10)) byArea.set(m.op.toolset, (byArea.get(m.op.toolset) ?? 0) + m.score);
    const areas = [...byArea.entries()].sort((a, b) => b[1] - a[1]).map(([a]) => a);
    return { matches, strong, areas };
  }
}
