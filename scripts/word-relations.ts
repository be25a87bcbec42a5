// Prints, for a person to review, the words that data packages relate to each verb and noun of the
// catalog's operation names (delete, reject, finding, comment...), in English and French:
// - WordNet 3.0 (Debian wordnet-base, plain text): for each sense of the word, its synonyms, its
//   troponyms (verbs: ways of doing it) or hyponyms (nouns: kinds of it), its verb group, the words
//   derived from it, and its hypernyms (what it is a way or a kind of);
// - the mythes thesauri (Debian mythes-en-us, mythes-fr): synonyms by sense, and the entries that list
//   the word among theirs. French words are looked up from the vocabulary's French keys for the
//   catalog's word (supprimer for delete, constat for finding), and English ones from its English
//   keys too (approve for review, erase for delete: their synonyms and troponyms).
// Most candidates are other senses (a finding as a court's verdict, an engagement as a battle): a
// person reads them and keeps, in catalog/word-relations.ts, those that mean the operation's action or
// object in this product. Nothing here runs at server start: find_operations reads that file only.
//
// Run: `npx tsx scripts/word-relations.ts [word...]` prints candidates (every seed, or the words
// given); `npx tsx scripts/word-relations.ts --check` checks that every word the file keeps is a
// candidate some package gives (a relation found, not one made up), and says which.
// WORDNET_DIR and MYTHES_DIR say where the packages put their files (Debian's paths by default).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { catalog } from '../catalog/index.js';
import { vocabulary } from '../catalog/vocabulary.js';
import { wordRelations } from '../catalog/word-relations.js';
import { terms } from '../src/mcp/operations/search.js';

const WORDNET = process.env.WORDNET_DIR ?? '/usr/share/wordnet';
const MYTHES = process.env.MYTHES_DIR ?? '/usr/share/mythes';

type Pos = 'verb' | 'noun';
const POS_CHAR: Record<string, Pos> = { v: 'verb', n: 'noun' };

const fold = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();

/** Words of operation names that are no English verb or noun (abbreviations, the API's own coinages). */
const NOT_WORDS = new Set('ai openapi enum all current latest external live effective deliverable audit from publishable presets'.split(' '));

/** The catalog's verbs (first word of a name) and nouns (the others), each with the operations that say it. */
function seeds(): Map<string, { pos: Pos; ops: string[] }> {
  const out = new Map<string, { pos: Pos; ops: string[] }>();
  const add = (word: string, pos: Pos, op: string) => {
    const key = `${pos}:${word}`;
    const s = out.get(key) ?? { pos, ops: [] };
    s.ops.push(op);
    out.set(key, s);
  };
  for (const op of catalog) {
    const [verb = '', ...rest] = op.name.split('_');
    add(verb, 'verb', op.name);
    for (const w of rest) if (!NOT_WORDS.has(w)) add(singular(w), 'noun', op.name);
  }
  return out;
}

// --- WordNet ---

interface Synset {
  offset: string;
  pos: Pos;
  words: string[];
  pointers: { symbol: string; offset: string; pos: Pos | undefined; source: number; target: number }[];
  gloss: string;
}

const dataCache = new Map<Pos, Buffer>();
function data(pos: Pos): Buffer {
  let b = dataCache.get(pos);
  if (!b) {
    b = readFileSync(join(WORDNET, `data.${pos}`));
    dataCache.set(pos, b);
  }
  return b;
}

/** One synset, read at its byte offset in data.<pos> (WordNet's offsets are byte offsets). */
function synset(pos: Pos, offset: string): Synset {
  const buf = data(pos);
  const at = Number(offset);
  const end = buf.indexOf(10, at);
  const line = buf.subarray(at, end).toString('utf8');
  const [head = '', gloss = ''] = line.split(' | ');
  const f = head.trim().split(' ');
  const wCount = Number.parseInt(f[3] ?? '0', 16);
  const words: string[] = [];
  for (let i = 0; i < wCount; i++) words.push((f[4 + 2 * i] ?? '').replace(/\(.*\)$/, '').toLowerCase());
  let k = 4 + 2 * wCount;
  const pCount = Number(f[k++]);
  const pointers: Synset['pointers'] = [];
  for (let i = 0; i < pCount; i++) {
    const [symbol = '', off = '', p = '', st = '0000'] = f.slice(k, k + 4);
    k += 4;
    pointers.push({ symbol, offset: off, pos: POS_CHAR[p], source: Number.parseInt(st.slice(0, 2), 16), target: Number.parseInt(st.slice(2), 16) });
  }
  return { offset, pos, words, pointers, gloss: gloss.trim() };
}

const indexCache = new Map<Pos, Map<string, string[]>>();
/** index.<pos>: each lemma's synsets, most frequent sense first. */
function wnIndex(pos: Pos): Map<string, string[]> {
  let m = indexCache.get(pos);
  if (m) return m;
  m = new Map();
  for (const line of readFileSync(join(WORDNET, `index.${pos}`), 'utf8').split('\n')) {
    if (!line || line.startsWith(' ')) continue;
    const f = line.trim().split(' ');
    const synCount = Number(f[2]);
    m.set(f[0] as string, f.slice(f.length - synCount));
  }
  indexCache.set(pos, m);
  return m;
}

/** WordNet's exceptions (took: take), for a noun's or verb's base form. */
function exceptions(pos: Pos): Map<string, string> {
  const m = new Map<string, string>();
  for (const line of readFileSync(join(WORDNET, `${pos}.exc`), 'utf8').split('\n')) {
    const [form, base] = line.split(' ');
    if (form && base) m.set(form, base);
  }
  return m;
}

/** A noun's singular, as WordNet's morphology finds it (companies: company, entries: entry). */
function singular(w: string): string {
  const nouns = wnIndex('noun');
  if (nouns.has(w) && !w.endsWith('s')) return w;
  const exc = exceptions('noun').get(w);
  if (exc) return exc;
  for (const [suffix, by] of [
    ['ies', 'y'],
    ['ses', 's'],
    ['xes', 'x'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['s', ''],
  ] as const) {
    if (w.endsWith(suffix) && nouns.has(w.slice(0, -suffix.length) + by)) return w.slice(0, -suffix.length) + by;
  }
  return w;
}

const RELATION: Record<string, string> = {
  '~': 'troponym or hyponym',
  '@': 'hypernym',
  '@i': 'hypernym',
  $: 'verb group',
  '+': 'derived',
  '&': 'similar',
};

/** Each sense of a word in WordNet, with its related words by relation. */
function wordnet(word: string, pos: Pos): { gloss: string; related: Map<string, Set<string>> }[] {
  const lemma = word.replace(/ /g, '_');
  const out: { gloss: string; related: Map<string, Set<string>> }[] = [];
  for (const off of wnIndex(pos).get(lemma) ?? []) {
    const s = synset(pos, off);
    const related = new Map<string, Set<string>>();
    const put = (rel: string, w: string) => {
      if (w === lemma) return;
      const set = related.get(rel) ?? new Set<string>();
      set.add(w.replace(/_/g, ' '));
      related.set(rel, set);
    };
    for (const w of s.words) put('synonym', w);
    const own = s.words.indexOf(lemma) + 1;
    for (const p of s.pointers) {
      const rel = RELATION[p.symbol];
      if (!rel || !p.pos) continue;
      // A derivation links two words, not two senses: only the word asked about's.
      if (p.symbol === '+' && p.source !== own) continue;
      const t = synset(p.pos, p.offset);
      if (p.target) put(rel, t.words[p.target - 1] ?? '');
      else for (const w of t.words) put(rel, w);
    }
    out.push({ gloss: s.gloss, related });
  }
  return out;
}

// --- mythes ---

type Thesaurus = Map<string, { pos: string; words: string[] }[]>;
/** A mythes thesaurus: each entry's senses (a part of speech and its synonyms). */
function mythes(file: string): Thesaurus {
  const lines = readFileSync(join(MYTHES, file), 'utf8').split('\n');
  const out: Thesaurus = new Map();
  for (let i = 1; i < lines.length; i++) {
    const [entry = '', count = '0'] = (lines[i] as string).split('|');
    const n = Number(count);
    const senses: { pos: string; words: string[] }[] = [];
    for (let j = 0; j < n; j++) {
      const [pos = '', ...words] = (lines[i + 1 + j] ?? '').split('|');
      senses.push({ pos: pos.replace(/[()]/g, ''), words: words.map((w) => w.replace(/ \((generic|similar|related|antonym)[^)]*\)$/, '')) });
    }
    out.set(entry.toLowerCase(), senses);
    i += n;
  }
  return out;
}

/** The entries that list a word among their synonyms (a thesaurus is not symmetric). */
function listedBy(th: Thesaurus, word: string): string[] {
  const out: string[] = [];
  for (const [entry, senses] of th) if (senses.some((s) => s.words.includes(word))) out.push(entry);
  return out;
}

/** The vocabulary's keys for a catalog word that English WordNet knows as a word of that part of speech (approve, erase). */
function englishSeeds(word: string, pos: Pos): string[] {
  return Object.entries(vocabulary.words)
    .filter(([key, to]) => key !== word && to.split(' ').includes(word) && wnIndex(pos).has(key))
    .map(([key]) => key);
}

/** The vocabulary's keys for a catalog word, as the French thesaurus spells them (supprimer, constat; a few English keys come too). */
function frenchSeeds(word: string, frIndex: Map<string, string[]>): string[] {
  const out = new Set<string>();
  for (const [key, to] of Object.entries(vocabulary.words)) {
    if (!to.split(' ').includes(word)) continue;
    for (const spelled of frIndex.get(key) ?? []) out.add(spelled);
  }
  return [...out];
}

function main(): void {
  if (!existsSync(join(WORDNET, 'index.verb')) || !existsSync(join(MYTHES, 'th_en_US_v2.dat'))) {
    throw new Error(`WordNet (${WORDNET}) or mythes (${MYTHES}) not found: apt-get install wordnet-base mythes-en-us mythes-fr`);
  }
  const en = mythes('th_en_US_v2.dat');
  const fr = mythes('th_fr_FR_v2.dat');
  const frIndex = new Map<string, string[]>();
  for (const k of fr.keys()) frIndex.set(fold(k), [...(frIndex.get(fold(k)) ?? []), k]);
  const all = seeds();

  /** Every candidate of a seed: [language, word, how it relates]. */
  const candidates = (word: string, pos: Pos) => {
    const out: [string, string, string][] = [];
    for (const [i, sense] of wordnet(word, pos).entries())
      for (const [rel, words] of sense.related) for (const w of words) out.push(['en', w, `WordNet ${pos} sense ${i + 1} ${rel}`]);
    const mythesPos = pos === 'verb' ? /^verb/i : /^noun/i;
    for (const s of en.get(word) ?? []) if (mythesPos.test(s.pos)) for (const w of s.words) out.push(['en', w, 'mythes-en-us synonym']);
    for (const e of listedBy(en, word)) out.push(['en', e, 'mythes-en-us lists it']);
    // The vocabulary's English keys for the word (approve for review, erase for delete): their
    // synonyms and the ways of doing them, not what they are a way of (too general).
    for (const k of englishSeeds(word, pos)) {
      for (const [i, sense] of wordnet(k, pos).entries())
        for (const [rel, words] of sense.related)
          if (rel !== 'hypernym') for (const w of words) out.push(['en', w, `WordNet ${pos} sense ${i + 1} ${rel} of ${k}`]);
      for (const s of en.get(k) ?? []) if (mythesPos.test(s.pos)) for (const w of s.words) out.push(['en', w, `mythes-en-us synonym of ${k}`]);
    }
    const frPos = pos === 'verb' ? /^verbe/i : /^nom/i;
    for (const f of frenchSeeds(word, frIndex)) {
      for (const s of fr.get(f) ?? []) if (frPos.test(s.pos)) for (const w of s.words) out.push(['fr', w, `mythes-fr synonym of ${f}`]);
      for (const e of listedBy(fr, f)) out.push(['fr', e, `mythes-fr lists ${f}`]);
    }
    return out;
  };

  if (process.argv.includes('--check')) {
    const verbForms = exceptions('verb');
    // A kept word that stems like a word of the operations' names would read that operation's own word as another's.
    const nameStems = new Set(catalog.flatMap((op) => terms(op.name)));
    // A kept word the vocabulary already reads (its stem is a key's, either language) is never heard as related.
    const vocabularyStems = new Map<string, string>();
    for (const k of Object.keys(vocabulary.words)) for (const t of [...terms(k, 'en'), ...terms(k, 'fr')]) vocabularyStems.set(t, k);
    let wrong = 0;
    for (const [key, group] of Object.entries(wordRelations.groups)) {
      const seeded = [...all.entries()].filter(([k]) => k.slice(k.indexOf(':') + 1) === key);
      if (!seeded.length) {
        wrong++;
        process.stdout.write(`${key}: no operation's name says it\n`);
      }
      for (const lang of ['en', 'fr'] as const) {
        for (const w of group[lang] ?? []) {
          // An irregular form of a verb (took off, began) checks as its base (take off, begin).
          const [head = '', ...tail] = w.split(' ');
          const base = [verbForms.get(head) ?? head, ...tail].join(' ');
          const found = seeded.flatMap(([, s]) =>
            candidates(key, s.pos)
              .filter(([l, c]) => l === lang && (fold(c) === fold(w) || fold(c) === fold(base)))
              .map(([, , how]) => how),
          );
          const clash = /[ -]/.test(w) ? [] : [...terms(w, 'en'), ...terms(w, 'fr')].filter((t) => nameStems.has(t));
          const read = /[ -]/.test(w) ? undefined : vocabularyStems.get(terms(w, lang)[0] as string);
          const means = wordRelations.readAs[w] ?? group.means ?? key;
          if (!found.length) {
            wrong++;
            process.stdout.write(`${lang} ${w} -> ${means}: NO PACKAGE RELATES IT TO ${key}\n`);
          } else if (read !== undefined) {
            wrong++;
            process.stdout.write(`${lang} ${w} -> ${means}: THE VOCABULARY READS IT ALREADY (${read}: ${vocabulary.words[read]})\n`);
          } else if (clash.length) {
            wrong++;
            process.stdout.write(`${lang} ${w} -> ${means}: STEMS AS THE NAMES' OWN WORD ${clash[0]}\n`);
          } else process.stdout.write(`${lang} ${w} -> ${means}: ${found[0]}${found.length > 1 ? ` (+${found.length - 1})` : ''}\n`);
        }
      }
    }
    for (const w of Object.keys(wordRelations.readAs)) {
      if (!Object.values(wordRelations.groups).some((g) => [...(g.en ?? []), ...(g.fr ?? [])].includes(w))) {
        wrong++;
        process.stdout.write(`readAs ${w}: in no group\n`);
      }
    }
    if (wrong) {
      process.stderr.write(`${wrong} kept words to look at again\n`);
      process.exitCode = 1;
    }
    return;
  }

  const asked = process.argv.slice(2);
  const known = new Set(Object.keys(vocabulary.words));
  for (const [key, s] of all) {
    const seed = key.slice(key.indexOf(':') + 1);
    if (asked.length && !asked.includes(seed)) continue;
    process.stdout.write(`\n== ${seed} (${s.pos}; ${[...new Set(s.ops)].join(', ')})\n`);
    for (const [i, sense] of wordnet(seed, s.pos).entries()) {
      process.stdout.write(`  WordNet sense ${i + 1}: ${sense.gloss}\n`);
      for (const [rel, words] of sense.related) process.stdout.write(`    ${rel}: ${[...words].map((w) => (known.has(fold(w)) ? `${w}*` : w)).join(', ')}\n`);
    }
    const byHow = new Map<string, string[]>();
    for (const [lang, w, how] of candidates(seed, s.pos)) {
      if (how.startsWith('WordNet') && !how.includes(' of ')) continue;
      byHow.set(`${lang} ${how}`, [...(byHow.get(`${lang} ${how}`) ?? []), known.has(fold(w)) ? `${w}*` : w]);
    }
    for (const [how, words] of byHow) process.stdout.write(`  ${how}: ${[...new Set(words)].join(', ')}\n`);
  }
  process.stdout.write('\n(* the vocabulary already maps the word)\n');
}

main();
