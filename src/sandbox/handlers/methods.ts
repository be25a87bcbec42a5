// Methods and guides. A guide is the ordered topics of an owner (a method or an engagement); an
// engagement inherits its method's topics, changed by its own overrides, and adds topics of its own.
import { GUIDE_OWNER_TYPES, LOCALES, OVERRIDE_OPERATIONS, TOPIC_DEPTHS, TOPIC_REQUIREMENTS } from '../../../catalog/shared.js';
import { METHOD_P2P } from '../data/ids.js';
import { insertTopics, seedMethods, TEMPLATES } from '../data/methods.js';
import { conflict, type HandlerContext, type HandlerTable, notFound, type Rec, type SandboxArea, validationFailed, type WorkspaceState } from '../types.js';

const byPosition = (a: Rec, b: Rec) => Number(a.position ?? 0) - Number(b.position ?? 0);

/** The owner record of a guide path: 404 when it does not exist in this workspace. */
function ownerOf(ctx: HandlerContext): Rec {
  const type = ctx.params.ownerType;
  const id = ctx.params.ownerId ?? '';
  if (type === 'method') return ctx.ws.c('methods').must(id, 'method');
  if (type === 'engagement') return ctx.ws.c('engagements').must(id, 'engagement');
  throw notFound('guide owner');
}

function topicsOf(ws: WorkspaceState, ownerType: string, ownerId: string): Rec[] {
  return ws
    .c('guide_topics')
    .all((t) => t.owner_type === ownerType && t.owner_id === ownerId)
    .sort(byPosition);
}

function ownTopic(ctx: HandlerContext): Rec {
  const owner = ownerOf(ctx);
  const t = ctx.ws.c('guide_topics').get(ctx.params.topic ?? '');
  if (!t || t.owner_type !== ctx.params.ownerType || t.owner_id !== owner.id) throw notFound('guide topic');
  return t;
}

/** Topics an owner inherits: an engagement inherits its method's; a method inherits nothing. */
function inheritedTopics(ws: WorkspaceState, ownerType: string, owner: Rec): Rec[] {
  if (ownerType !== 'engagement' || !owner.method_id) return [];
  return topicsOf(ws, 'method', String(owner.method_id));
}

/** Positions 0..n-1 in the given order: positions stay dense whatever was inserted or removed. */
function renumber(topics: Rec[]): void {
  for (const [i, t] of topics.entries()) t.position = i;
}

function effectiveGuide(ws: WorkspaceState, ownerType: string, owner: Rec) {
  const overrides = ws.c('guide_overrides').all((o) => o.owner_type === ownerType && o.owner_id === owner.id);
  const byTopic = new Map(overrides.map((o) => [String(o.topic_id), o]));
  const topics: Record<string, unknown>[] = [];
  const removed: string[] = [];
  for (const t of inheritedTopics(ws, ownerType, owner)) {
    const o = byTopic.get(t.id);
    if (o?.operation === 'remove') {
      removed.push(t.id);
      continue;
    }
    const applied: Record<string, unknown> = { ...t, source: 'method', override: o ? o.operation : null };
    if (o?.operation === 'make_optional') applied.requirement = 'optional';
    if (o?.operation === 'make_mandatory') applied.requirement = 'mandatory';
    if (o?.operation === 'modify') Object.assign(applied, o.patch ?? {});
    topics.push(applied);
  }
  for (const t of topicsOf(ws, ownerType, owner.id)) topics.push({ ...t, source: ownerType, override: null });
  return {
    owner_type: ownerType,
    owner_id: owner.id,
    method_id: ownerType === 'method' ? owner.id : (owner.method_id ?? null),
    topics: topics.map((t, i): Record<string, unknown> => ({ ...t, effective_position: i })),
    removed_topic_ids: removed,
    // No operation lists proposals, so the guide names its owner's, or they could never be found again.
    proposals: ws
      .c('guide_proposals')
      .all((p) => p.owner_type === ownerType && p.owner_id === owner.id)
      .map((p) => ({ id: p.id, status: p.status, count: p.count, focus: p.focus ?? null, created_at: p.created_at })),
  };
}

// Candidate topics the sandbox "AI" proposes, deterministic so tests and demos see the same thing.
const PROPOSAL_POOL: [string, string][] = [
  ['Fraude et changements de RIB', 'Demandes suspectes, contre-appel, sensibilisation.'],
  ['Séparation des tâches', 'Qui crée, modifie, valide et paie.'],
  ['Factures non parvenues', 'Provisions de fin de mois et réceptions sans facture.'],
  ['Relations avec les fournisseurs', 'Relances, litiges, portail fournisseurs.'],
  ['Délais de paiement (LME)', 'Respect des délais légaux, pénalités, escompte.'],
  ['Dématérialisation', 'OCR, facture électronique 2026, formats reçus.'],
  ['Indicateurs de pilotage', 'Suivi des volumes, délais et blocages.'],
  ['Avoirs et litiges', 'Traitement des avoirs et des factures contestées.'],
  ['Notes de frais et cartes achat', 'Flux hors bons de commande.'],
  ['Archivage et piste d’audit', 'Conservation des pièces, piste d’audit fiable.'],
  ['Formation et transmission', 'Documentation des tâches, polyvalence.'],
  ['Contrôle interne', 'Contrôles clés, revue des écarts.'],
];

function checkMethodName(name: unknown): string {
  const n = String(name ?? '').trim();
  if (!n) throw validationFailed({ name: ['The name is required.'] });
  return n;
}

const handlers: HandlerTable = {
  list_methods: (ctx) => ctx.page(ctx.ws.c('methods').all()),

  create_method: (ctx) => {
    const m = ctx.ws.c('methods').insert({
      name: checkMethodName(ctx.input.name),
      description: ctx.input.description ?? null,
      locale: ctx.locale,
      template_key: null,
      avatar_preset: null,
      version: 0,
      created_by: ctx.member.id,
    });
    return { status: 201, data: m };
  },

  list_avatar_presets: (ctx) =>
    ctx.page([
      { value: 'consultant_claire', label: 'Claire, consultante', locale: 'fr', style: 'professional' },
      { value: 'consultant_alex', label: 'Alex, consultant', locale: 'en', style: 'professional' },
      { value: 'neutral_voice', label: ctx.locale === 'fr' ? 'Voix seule, sans avatar' : 'Voice only, no avatar', locale: null, style: 'minimal' },
    ]),

  list_method_enum_values: (ctx) => {
    const enums: Record<string, readonly string[]> = {
      requirements: TOPIC_REQUIREMENTS,
      depths: TOPIC_DEPTHS,
      'override-operations': OVERRIDE_OPERATIONS,
      'owner-types': GUIDE_OWNER_TYPES,
      locales: LOCALES,
      'template-keys': TEMPLATES.map((t) => t.template_key),
    };
    const values = enums[ctx.params.name ?? ''];
    if (!values) throw notFound('enumeration');
    return ctx.page(values.map((value) => ({ value })));
  },

  list_method_templates: (ctx) => ctx.page(ctx.ws.c('method_templates').all()),

  create_method_from_template: (ctx) => {
    const tpl = TEMPLATES.find((t) => t.template_key === ctx.input.template_key);
    if (!tpl) throw validationFailed({ template_key: [`Unknown template "${String(ctx.input.template_key)}".`] });
    const locale = (ctx.input.locale as 'fr' | 'en' | null | undefined) ?? tpl.locale;
    const m = ctx.ws.c('methods').insert({
      name: (ctx.input.name as string | null | undefined) || tpl.name[locale],
      description: tpl.description[locale],
      locale,
      template_key: tpl.template_key,
      avatar_preset: null,
      version: 0,
      created_by: ctx.member.id,
    });
    insertTopics(ctx.ws, 'method', m.id, tpl.topics);
    return { status: 201, data: m };
  },

  get_method: (ctx) => {
    const m = ctx.ws.c('methods').must(ctx.params.method ?? '', 'method');
    const engagements = ctx.ws.c('engagements').all((e) => e.method_id === m.id).length;
    return { data: { ...m, topic_count: topicsOf(ctx.ws, 'method', m.id).length, engagement_count: engagements } };
  },

  update_method: (ctx) => {
    const m = ctx.ws.c('methods').must(ctx.params.method ?? '', 'method');
    const patch: Record<string, unknown> = { name: checkMethodName(ctx.input.name) };
    if ('description' in ctx.input) patch.description = ctx.input.description;
    return { data: ctx.ws.c('methods').update(m.id, patch) };
  },

  delete_method: (ctx) => {
    const m = ctx.ws.c('methods').must(ctx.params.method ?? '', 'method');
    const users = ctx.ws.c('engagements').all((e) => e.method_id === m.id);
    if (users.length) {
      throw conflict(
        'method.in_use',
        { en: 'The method is used by an engagement and cannot be deleted.', fr: 'La méthode est utilisée par une mission et ne peut pas être supprimée.' },
        { engagement_ids: users.map((e) => e.id) },
      );
    }
    for (const t of topicsOf(ctx.ws, 'method', m.id)) ctx.ws.c('guide_topics').remove(t.id);
    for (const p of ctx.ws.c('guide_proposals').all((p) => p.owner_type === 'method' && p.owner_id === m.id)) ctx.ws.c('guide_proposals').remove(p.id);
    ctx.ws.c('methods').remove(m.id);
    return { status: 204 };
  },

  duplicate_method: (ctx) => {
    const m = ctx.ws.c('methods').must(ctx.params.method ?? '', 'method');
    const { id: _id, created_at: _c, updated_at: _u, ...fields } = m;
    const name = ctx.locale === 'fr' ? `Copie de ${String(m.name)}` : `Copy of ${String(m.name)}`;
    const copy = ctx.ws.c('methods').insert({ ...structuredClone(fields), name: name.slice(0, 255), version: 0, created_by: ctx.member.id });
    for (const t of topicsOf(ctx.ws, 'method', m.id)) {
      const { id: _tid, created_at: _tc, updated_at: _tu, ...topic } = t;
      ctx.ws.c('guide_topics').insert({ ...structuredClone(topic), owner_id: copy.id });
    }
    return { status: 201, data: copy };
  },

  list_method_versions: (ctx) => {
    const m = ctx.ws.c('methods').must(ctx.params.method ?? '', 'method');
    const versions = ctx.ws
      .c('method_versions')
      .all((v) => v.method_id === m.id)
      .sort((a, b) => Number(b.number) - Number(a.number));
    return ctx.page(versions.map(({ snapshot: _s, ...v }) => v));
  },

  get_method_version: (ctx) => {
    const m = ctx.ws.c('methods').must(ctx.params.method ?? '', 'method');
    const v = ctx.ws.c('method_versions').get(ctx.params.version ?? '');
    if (!v || v.method_id !== m.id) throw notFound('method version');
    return { data: v };
  },

  get_effective_guide: (ctx) => {
    const owner = ownerOf(ctx);
    return { data: effectiveGuide(ctx.ws, String(ctx.params.ownerType), owner) };
  },

  set_guide_override: (ctx) => {
    const owner = ownerOf(ctx);
    const ownerType = String(ctx.params.ownerType);
    const inherited = inheritedTopics(ctx.ws, ownerType, owner);
    if (ownerType !== 'engagement') {
      throw validationFailed({ topic: ["A method's guide inherits no topic: edit its topics instead of overriding them."] });
    }
    const topic = inherited.find((t) => t.id === ctx.params.topic);
    if (!topic) throw notFound('inherited guide topic');
    const operation = String(ctx.input.operation);
    const patch = (ctx.input.patch as Record<string, unknown> | null | undefined) ?? null;
    if (operation === 'modify' && (!patch || Object.keys(patch).length === 0)) {
      throw validationFailed({ patch: ['A modify override needs a patch with at least one field.'] });
    }
    const overrides = ctx.ws.c('guide_overrides');
    const existing = overrides.all((o) => o.owner_type === ownerType && o.owner_id === owner.id && o.topic_id === topic.id)[0];
    const fields = { operation, patch: operation === 'modify' ? patch : null };
    const saved = existing
      ? overrides.update(existing.id, fields)
      : overrides.insert({ owner_type: ownerType, owner_id: owner.id, topic_id: topic.id, ...fields });
    return { data: saved };
  },

  delete_guide_override: (ctx) => {
    const owner = ownerOf(ctx);
    const o = ctx.ws.c('guide_overrides').all((x) => x.owner_type === ctx.params.ownerType && x.owner_id === owner.id && x.topic_id === ctx.params.topic)[0];
    if (!o) throw notFound('guide override');
    ctx.ws.c('guide_overrides').remove(o.id);
    return { status: 204 };
  },

  get_topic_proposal: (ctx) => {
    const owner = ownerOf(ctx);
    const p = ctx.ws.c('guide_proposals').get(ctx.params.proposal ?? '');
    if (!p || p.owner_type !== ctx.params.ownerType || p.owner_id !== owner.id) throw notFound('topic proposal');
    return { data: p };
  },

  accept_topic_proposal: (ctx) => {
    const owner = ownerOf(ctx);
    const ownerType = String(ctx.params.ownerType);
    const p = ctx.ws.c('guide_proposals').get(ctx.params.proposal ?? '');
    if (!p || p.owner_type !== ownerType || p.owner_id !== owner.id) throw notFound('topic proposal');
    const keys = ctx.input.keys as string[];
    const edits = (ctx.input.edits as Record<string, unknown>[] | undefined) ?? [];
    const proposed = (p.topics as Record<string, unknown>[]) ?? [];
    const unknown = keys.filter((k) => !proposed.some((t) => t.key === k));
    if (unknown.length) throw validationFailed({ keys: [`Unknown proposal keys: ${unknown.join(', ')}.`] });
    if (new Set(keys).size !== keys.length) throw validationFailed({ keys: ['A key is listed twice.'] });
    const accepted = (p.accepted_keys as string[] | undefined) ?? [];
    const again = keys.filter((k) => accepted.includes(k));
    if (again.length) {
      throw conflict('proposal.already_accepted', { en: 'Some topics were already accepted.', fr: 'Certains thèmes ont déjà été acceptés.' }, { keys: again });
    }
    const existing = topicsOf(ctx.ws, ownerType, owner.id);
    // edits[i] edits the topic of keys[i]: the accept form lists the chosen topics in that order.
    const created = keys.map((k, i) => {
      const { key: _k, ...topic } = proposed.find((t) => t.key === k) as Record<string, unknown>;
      return ctx.ws.c('guide_topics').insert({
        owner_type: ownerType,
        owner_id: owner.id,
        key: null,
        ...structuredClone(topic),
        ...(edits[i] ?? {}),
        position: existing.length + i,
        proposal_id: p.id,
      });
    });
    const all = [...accepted, ...keys];
    ctx.ws.c('guide_proposals').update(p.id, {
      accepted_keys: all,
      status: all.length === proposed.length ? 'accepted' : 'partially_accepted',
    });
    return { status: 201, data: { proposal: p, topics: created } };
  },

  propose_guide_topics: (ctx) => {
    const owner = ownerOf(ctx);
    const ownerType = String(ctx.params.ownerType);
    const count = Number(ctx.input.count ?? 5);
    const focus = (ctx.input.focus as string | null | undefined) ?? null;
    const taken = new Set(effectiveGuide(ctx.ws, ownerType, owner).topics.map((t) => String(t.title).toLowerCase()));
    const pool = PROPOSAL_POOL.filter(([title]) => !taken.has(title.toLowerCase()));
    const topics = Array.from({ length: count }, (_, i) => {
      const proposal = pool[i % pool.length] ?? PROPOSAL_POOL[i % PROPOSAL_POOL.length];
      if (proposal === undefined) throw new Error('The proposal pool is empty.');
      const [title, description] = proposal;
      return {
        key: `p${i + 1}`,
        title: i >= pool.length ? `${title} (${Math.floor(i / pool.length) + 1})` : title,
        description: focus ? `${description} Angle demandé : ${focus}` : description,
        requirement: i < 2 ? 'mandatory' : 'optional',
        depth: 'standard',
        opening_questions: [`Pouvez-vous nous parler de : ${title.toLowerCase()} ?`],
        information_targets: [{ key: `target_${i + 1}`, label: title }],
        demonstrations: [],
        forbidden_subjects: [],
        deliverable_category: null,
      };
    });
    const proposal = ctx.ws.c('guide_proposals').insert({
      owner_type: ownerType,
      owner_id: owner.id,
      status: 'pending',
      focus,
      locale: ctx.input.locale ?? ctx.locale,
      count,
      requested_by: ctx.member.id,
      accepted_keys: [],
      topics,
    });
    return { status: 201, data: proposal };
  },

  list_guide_topics: (ctx) => {
    const owner = ownerOf(ctx);
    return ctx.page(topicsOf(ctx.ws, String(ctx.params.ownerType), owner.id));
  },

  create_guide_topic: (ctx) => {
    const owner = ownerOf(ctx);
    const ownerType = String(ctx.params.ownerType);
    const topics = topicsOf(ctx.ws, ownerType, owner.id);
    const { position, ...fields } = ctx.input as Record<string, unknown>;
    const t = ctx.ws.c('guide_topics').insert({
      key: null,
      description: null,
      requirement: 'mandatory',
      depth: 'standard',
      opening_questions: [],
      information_targets: [],
      demonstrations: [],
      forbidden_subjects: [],
      deliverable_category: null,
      ...fields,
      owner_type: ownerType,
      owner_id: owner.id,
    });
    const at = Math.min(typeof position === 'number' ? position : topics.length, topics.length);
    topics.splice(at, 0, t);
    renumber(topics);
    return { status: 201, data: t };
  },

  reorder_guide_topics: (ctx) => {
    const owner = ownerOf(ctx);
    const topics = topicsOf(ctx.ws, String(ctx.params.ownerType), owner.id);
    const ids = ctx.input.ids as string[];
    const own = new Set(topics.map((t) => t.id));
    const exact = ids.length === own.size && new Set(ids).size === ids.length && ids.every((id) => own.has(id));
    if (!exact) {
      throw validationFailed({ ids: ["ids must list each of the owner's topics exactly once."] });
    }
    const ordered = ids.map((id) => ctx.ws.c('guide_topics').get(id) as Rec);
    renumber(ordered);
    return { status: 201, data: ordered };
  },

  update_guide_topic: (ctx) => {
    const t = ownTopic(ctx);
    const { position, ...fields } = ctx.input as Record<string, unknown>;
    if (fields.title !== undefined && !String(fields.title).trim()) throw validationFailed({ title: ['The title cannot be empty.'] });
    ctx.ws.c('guide_topics').update(t.id, fields);
    if (typeof position === 'number') {
      const others = topicsOf(ctx.ws, String(ctx.params.ownerType), String(t.owner_id)).filter((x) => x.id !== t.id);
      others.splice(Math.min(position, others.length), 0, t);
      renumber(others);
    }
    return { data: t };
  },

  delete_guide_topic: (ctx) => {
    const t = ownTopic(ctx);
    ctx.ws.c('guide_topics').remove(t.id);
    // Overrides of a deleted method topic would point at nothing: they go with it.
    for (const o of ctx.ws.c('guide_overrides').all((o) => o.topic_id === t.id)) ctx.ws.c('guide_overrides').remove(o.id);
    renumber(topicsOf(ctx.ws, String(t.owner_type), String(t.owner_id)));
    return { status: 204 };
  },
};

export const area: SandboxArea = {
  toolset: 'methods',
  handlers,
  seeds: [seedMethods],
  demo: {
    method: () => METHOD_P2P,
    method_version: (ws) =>
      ws
        .c('method_versions')
        .all((v) => v.method_id === METHOD_P2P)
        .sort((a, b) => Number(b.number) - Number(a.number))[0]?.id,
    template: (ws) => ws.c('method_templates').all()[0]?.template_key as string | undefined,
    topic_proposal: (ws) => ws.c('guide_proposals').all()[0]?.id,
  },
};
