// Ranked search over every operation, for find_operations. Consultants ask in English or French and
// in their own words ("les constats validés", "what did finance say"), not in API nouns: queries are
// folded (case, accents, plurals, English endings: proposed and propose meet), French words are
// mapped to the API's English vocabulary, and a few synonyms bridge everyday words to the API's.
// Scoring is a small field-weighted BM25-like sum (an operation's name and title count more than its
// description, its path and parameters less), then shaped by what the request is about:
// - the object: an operation whose name's nouns the request names (review_finding for "refuser ce
//   constat") beats one that only shares a verb or an adjective with it (propose_guide_topics);
// - the action: a request that says an operation's verb prefers it; a request that asks nothing to
//   change ("les propositions en attente", "which model serves...") prefers reads, one that asks for
//   a change prefers writes.
import { type Operation, pathParams } from '../operation.js';

/** Lower case, no accents, split on anything not a letter or digit, light singular. */
export function terms(text: string): string[] {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .map((w) => stem(singular(w)));
}

/**
 * English endings folded so the forms of one word meet: generate, generated, generation -> generat;
 * propose, proposed (and French proposé) -> propos; running -> run. Applied to operations and queries alike.
 */
function stem(w: string): string {
  // French feminine participles meet their masculine: publiée -> publie.
  let s = w.length > 4 && w.endsWith('ee') ? w.slice(0, -1) : w;
  if (s.length > 6 && s.endsWith('ation')) s = `${s.slice(0, -5)}at`;
  else if (s.length > 5 && s.endsWith('ing')) s = s.slice(0, -3);
  else if (s.length > 4 && s.endsWith('ed')) s = s.slice(0, -2);
  else if (s.length > 4 && s.endsWith('e')) s = s.slice(0, -1);
  // cancelled -> cancel, running -> run
  if (s !== w && s.length > 3 && s.at(-1) === s.at(-2) && !/[aeious]$/.test(s)) s = s.slice(0, -1);
  return s;
}

function singular(w: string): string {
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1);
  if (w.length > 3 && w.endsWith('x') && /(eau|eu)x$/.test(w)) return w.slice(0, -1);
  return w;
}

const STOP = new Set(
  terms(
    'a an the of for to in on at by with from and or is are was were be do does did can could would should i me my we our us you your it its this that these those what which who whom how when where there here please want need give get me all any some one ' +
      'le la les l un une des du de d au aux et ou est sont a ce cet cette ces quel quelle quels quelles qui que quoi comment quand ou je j moi mon ma mes nous notre nos vous votre vos il elle ils elles on pour par avec sur dans en se sa son leurs leur ne pas plus tout tous toutes faire fais peux peut veux voudrais merci stp svp',
  ),
);

/**
 * French (and everyday English) words mapped to the API's words. Keys and values are folded the same
 * way as queries (no accents, singular). A value may name several words.
 */
const SYNONYM_WORDS: Record<string, string> = {
  // French nouns
  entretien: 'interview',
  entrevue: 'interview',
  interviewe: 'interview',
  constat: 'finding',
  constatation: 'finding',
  preuve: 'evidence',
  justificatif: 'evidence',
  livrable: 'deliverable',
  rapport: 'deliverable document',
  brouillon: 'draft',
  ebauche: 'draft',
  mission: 'engagement',
  audit: 'engagement',
  client: 'client company',
  entreprise: 'company',
  societe: 'company',
  methode: 'method',
  sujet: 'topic',
  theme: 'topic',
  analyse: 'analysis',
  proposition: 'proposal',
  cout: 'cost',
  depense: 'cost usage',
  alerte: 'alert',
  consommation: 'usage',
  utilisation: 'usage',
  membre: 'member',
  equipe: 'member',
  collegue: 'member',
  role: 'role',
  espace: 'workspace',
  marque: 'branding',
  transcription: 'transcript stt',
  verbatim: 'transcript',
  chapitre: 'chapter',
  resume: 'summary recap',
  recapitulatif: 'recap',
  synthese: 'summary',
  enregistrement: 'recording',
  capture: 'frame',
  ecran: 'frame screen',
  epingle: 'pin',
  fichier: 'file artifact',
  piece: 'artifact',
  artefact: 'artifact',
  document: 'document',
  discussion: 'chat thread',
  fil: 'thread',
  conversation: 'chat thread',
  commentaire: 'comment',
  recommandation: 'recommendation',
  profil: 'profile',
  voix: 'voice',
  modele: 'model template profile',
  fournisseur: 'driver',
  prix: 'price',
  tarif: 'price',
  cle: 'credential',
  tableau: 'dashboard',
  bord: 'dashboard',
  conformite: 'compliance',
  confidentialite: 'privacy',
  invitation: 'invitation',
  essai: 'trial',
  etape: 'stage',
  executif: 'executive',
  feuille: 'roadmap',
  route: 'roadmap',
  processus: 'process',
  outil: 'tool',
  irritant: 'irritant',
  risque: 'risk',
  statut: 'status',
  suivi: 'follow',
  exportation: 'export',
  telechargement: 'download',
  version: 'version',
  description: 'openapi description',
  source: 'source',
  element: 'item',
  question: 'ask question chat',
  reponse: 'answer ask',
  budget: 'budget',
  mensuel: 'monthly budget',
  couverture: 'coverage',
  contradiction: 'contradiction',
  incoherence: 'contradiction',
  desaccord: 'contradiction',
  changement: 'change proposal',
  gabarit: 'template',
  trame: 'guide',
  avatar: 'avatar',
  miniature: 'thumbnail',
  media: 'media',
  // French verbs (infinitive and common forms)
  lister: 'list',
  liste: 'list',
  voir: 'get list',
  afficher: 'get list',
  montre: 'get list',
  montrer: 'get list',
  affiche: 'get list',
  donne: 'get',
  obtenir: 'get',
  lire: 'get read',
  ouvrir: 'get',
  supprimer: 'delete',
  supprime: 'delete',
  effacer: 'delete',
  retirer: 'remove delete',
  enlever: 'remove',
  creer: 'create',
  cree: 'create',
  ajouter: 'add create',
  ajoute: 'add create',
  nouveau: 'create',
  nouvelle: 'create',
  modifier: 'update',
  modifie: 'update',
  changer: 'update set',
  mettre: 'update set',
  jour: 'update',
  renommer: 'update',
  definir: 'set',
  fixer: 'set',
  regler: 'set',
  valider: 'review validated',
  valide: 'review validated',
  approuver: 'review validated',
  rejeter: 'review rejected reject',
  rejete: 'review rejected',
  refuser: 'reject rejected',
  accepter: 'accept',
  accepte: 'accept',
  publier: 'publish',
  publie: 'publish',
  exporter: 'export',
  telecharger: 'download',
  generer: 'generate',
  genere: 'generate',
  rediger: 'generate draft',
  redige: 'generate draft',
  lancer: 'start',
  lance: 'start',
  demarrer: 'start',
  relancer: 'start',
  annuler: 'cancel',
  arreter: 'cancel end',
  terminer: 'end',
  resoudre: 'resolve',
  resolu: 'resolve',
  trancher: 'resolve',
  repondre: 'reply',
  fermer: 'close',
  cloturer: 'close',
  inviter: 'invite invitation',
  reordonner: 'reorder',
  ordre: 'reorder',
  dupliquer: 'duplicate',
  copier: 'duplicate',
  tester: 'test',
  demander: 'ask',
  poser: 'ask',
  suggerer: 'suggest',
  proposer: 'propose',
  accuser: 'acknowledge',
  reception: 'acknowledge',
  coute: 'cost',
  combien: 'cost',
  dernier: 'latest',
  derniere: 'latest',
  recent: 'latest',
  actuel: 'current',
  courant: 'current',
  // Everyday English
  approve: 'review validated',
  validate: 'review validated',
  confirm: 'review validated',
  accept: 'accept',
  decline: 'reject rejected',
  dismiss: 'reject resolve',
  project: 'engagement',
  customer: 'client company',
  problem: 'finding irritant',
  pain: 'finding irritant',
  issue: 'finding',
  observation: 'finding',
  insight: 'finding',
  proof: 'evidence',
  quote: 'evidence transcript',
  conflict: 'contradiction',
  inconsistent: 'contradiction',
  disagree: 'contradiction',
  contradict: 'contradiction',
  said: 'transcript ask',
  say: 'transcript ask',
  spend: 'cost usage',
  spending: 'cost usage',
  money: 'cost',
  expensive: 'cost',
  bill: 'cost usage',
  team: 'member',
  colleague: 'member',
  people: 'member',
  who: 'member',
  logo: 'branding logo',
  report: 'deliverable document',
  pdf: 'export download',
  word: 'export docx',
  powerpoint: 'export pptx',
  slide: 'export pptx',
  spreadsheet: 'export csv',
  excel: 'export csv',
  audio: 'recording',
  screenshot: 'frame',
  screen: 'frame',
  remove: 'delete remove',
  erase: 'delete',
  write: 'generate draft',
  edit: 'update',
  change: 'update',
  rename: 'update',
  show: 'get list',
  fetch: 'get',
  read: 'get',
  see: 'get list',
  status: 'status get',
  progress: 'get run',
  happening: 'get',
  latest: 'latest',
  newest: 'latest',
  current: 'current',
  running: 'run',
  rerun: 'start run',
  kick: 'start',
  launch: 'start',
  stop: 'cancel end',
  finish: 'end',
  upload: 'upload',
  attach: 'upload add',
  chat: 'chat ask',
  answer: 'ask',
  recap: 'recap chapter',
  summarize: 'summary',
  overview: 'summary',
  ready: 'publish',
  finalize: 'publish final',
  ship: 'publish',
  invite: 'invite invitation',
  schema: 'schema openapi',
  api: 'openapi',
  spec: 'openapi',
  template: 'template',
  copy: 'duplicate',
  clone: 'duplicate',
  comment: 'comment',
  feedback: 'comment',
  respond: 'reply',
  price: 'price',
  pricing: 'price',
  model: 'model profile',
  provider: 'driver',
  key: 'credential',
  alert: 'alert',
  warning: 'alert',
  limit: 'budget',
  cap: 'budget',
  publishable: 'publishable',
  hide: 'publishable',
  visible: 'publishable',
  myself: 'current member',
  profile: 'profile',
  account: 'current member',
  draft: 'draft generate document',
  interviewee: 'interview',
  interviewed: 'interview',
  transcript: 'transcript',
  recording: 'recording stream',
  listen: 'recording stream',
  // Doing again, undoing, serving, waiting, the current period: words for an action or a state that
  // the API says otherwise.
  procedure: 'procedure artifact',
  again: 'start',
  redo: 'generate',
  refaire: 'generate',
  rewrite: 'generate',
  recreate: 'generate',
  reecrire: 'generate',
  undo: 'delete remove',
  used: 'serve profile',
  utilise: 'serve profile',
  handle: 'serve profile',
  sert: 'serve profile',
  servir: 'serve profile',
  send: 'publish',
  envoyer: 'publish',
  between: 'contradiction',
  entre: 'contradiction',
  dit: 'transcript ask',
  dire: 'transcript ask',
  disent: 'transcript ask',
  serve: 'serve profile',
  // The API's nouns and verbs that had no French (or everyday English) word yet.
  externe: 'external',
  valeur: 'value',
  instantane: 'snapshot',
  grille: 'grid price',
  catalogue: 'catalog',
  pilote: 'driver',
  entree: 'entry',
  revoquer: 'revoke',
  seance: 'session',
  televerser: 'upload',
  deposer: 'upload',
  importer: 'upload',
  relire: 'review get',
  revoir: 'review get',
  examiner: 'review',
  disagreement: 'contradiction',
  dispute: 'contradiction',
  mismatch: 'contradiction',
  ecart: 'contradiction',
  direct: 'live',
  attente: 'pending awaiting',
  pending: 'pending awaiting',
  waiting: 'pending awaiting',
  month: 'month period',
  mois: 'month period',
};

/** Expressions of several words, rewritten before the words are read (folded text, no accents). */
const PHRASES: ReadonlyArray<[RegExp, string]> = [
  [/\bturn(ed|s|ing)? down\b/g, 'reject'],
  // "current" alone would say the current member (get_current_member): a period is meant.
  [/\bso far\b|\bjusqu ?ici\b|\bdepuis le debut\b/g, 'period total'],
  [/\ben attente\b/g, 'pending'],
  [/\ben cours\b/g, 'running live'],
];

function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[’']/g, ' ');
}

// Keys folded like query words, so "processus" or "entretiens" find their entry.
const SYNONYMS: Record<string, string> = Object.fromEntries(Object.entries(SYNONYM_WORDS).map(([k, v]) => [terms(k)[0] ?? k, v]));

const FIELD_WEIGHTS = { name: 3, title: 2, path: 1.2, area: 1, params: 1, description: 1, values: 0.8 } as const;
/** Up to this much more for an operation whose name's nouns the request all names. */
const OBJECT_WEIGHT = 0.5;
/** For an operation whose verb the request says. */
const VERB_BONUS = 1.15;
/** For a write when the request asks for no change, and a read when it asks for one. */
const UNASKED_CHANGE = 0.7;
const UNASKED_READ = 0.85;
type Field = keyof typeof FIELD_WEIGHTS;

interface Doc {
  op: Operation;
  fields: Record<Field, Set<string>>;
  /** The name's first word: what the operation does. */
  verb: string;
  /** The name's other words: what it acts on. */
  object: string[];
  writes: boolean;
}

export interface Match {
  op: Operation;
  score: number;
}

/**
 * Expanded query: each original word at full weight, its mapped words at a lower one. A word made
 * with "re" of a known one (regenerate, relancer, régénérer) also says the word itself.
 */
function expand(query: string, known: (t: string) => boolean): Map<string, number> {
  const out = new Map<string, number>();
  const add = (t: string, w: number) => {
    if (STOP.has(t) && w < 1) return;
    out.set(t, Math.max(out.get(t) ?? 0, w));
  };
  let text = fold(query);
  for (const [re, to] of PHRASES) text = text.replace(re, to);
  const words = terms(text);
  for (const t of [...words]) {
    const again = t.length > 5 && t.startsWith('re') ? t.slice(2) : '';
    if (again && !known(t) && (known(again) || SYNONYMS[again])) words.push(again);
  }
  for (const t of words) {
    const mapped = SYNONYMS[t];
    if (!STOP.has(t)) add(t, 1);
    if (mapped) for (const m of terms(mapped)) add(m, mapped.startsWith(t) ? 1 : 0.8);
  }
  return out;
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
  // Indexed on the first search: a session that never searches never pays for it.
  private pending: Operation[] = [];

  constructor(ops: readonly Operation[] = []) {
    this.add(ops);
  }

  add(ops: readonly Operation[]): void {
    this.pending.push(...ops);
  }

  private build(): void {
    const ops = this.pending;
    this.pending = [];
    for (const op of ops) {
      const params = Object.keys(op.input.shape);
      const [verb = '', ...object] = terms(op.name);
      const doc: Doc = {
        op,
        verb,
        object,
        writes: op.method !== 'GET',
        fields: {
          name: new Set(terms(op.name)),
          title: new Set(terms(op.title)),
          path: new Set(terms(op.path.replace(/\{[^}]+\}/g, ' '))),
          area: new Set(terms(op.toolset)),
          params: new Set(terms(params.filter((p) => !pathParams(op.path).includes(p)).join(' '))),
          description: new Set(terms(op.description)),
          // Enumerated argument values ("executive_summary", "validated") are words people use.
          values: new Set(terms(enumValues(op).join(' '))),
        },
      };
      const seen = new Set<string>();
      for (const f of Object.values(doc.fields)) for (const t of f) seen.add(t);
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

  search(query: string, opts: { limit?: number; filter?: (op: Operation) => boolean } = {}): Match[] {
    if (this.pending.length) this.build();
    const q = expand(query, (t) => this.df.has(t));
    const n = this.docs.length || 1;
    const said = [...q.keys()];
    const asksChange = said.some((t) => this.changeVerbs.has(t));
    const undecided = !asksChange && said.some((t) => this.eitherVerbs.has(t));
    const matches: Match[] = [];
    for (const doc of this.docs) {
      if (opts.filter && !opts.filter(doc.op)) continue;
      let score = 0;
      for (const [t, w] of q) {
        const idf = Math.log(1 + n / (this.df.get(t) ?? n));
        let best = 0;
        let spread = 0;
        for (const f of Object.keys(FIELD_WEIGHTS) as Field[]) {
          if (doc.fields[f].has(t)) {
            best = Math.max(best, FIELD_WEIGHTS[f]);
            spread += 0.15;
          }
        }
        if (best > 0) score += w * idf * (best + spread);
      }
      // The object: the share of the name's nouns the request names.
      if (doc.object.length) score *= 1 + OBJECT_WEIGHT * (doc.object.filter((t) => q.has(t)).length / doc.object.length);
      // The action: the verb said, and a change asked for or not.
      if (q.has(doc.verb)) score *= VERB_BONUS;
      if (!undecided && doc.writes !== asksChange) score *= doc.writes ? UNASKED_CHANGE : UNASKED_READ;
      // Among equals, the generic list/get of a resource beats its rarer relatives.
      if (score > 0) matches.push({ op: doc.op, score: score - doc.op.name.length * 0.001 });
    }
    matches.sort((a, b) => b.score - a.score);
    return matches.slice(0, opts.limit ?? 8);
  }
}
