// Methods and guides: reusable interview methods, and the guides (topics) interviews follow.
// A guide belongs to an owner (a method or an engagement); an engagement's guide overrides its method's.
import { z } from 'zod';
import { area, GUIDE_OWNER_TYPES, id, LOCALES, nstr, OVERRIDE_OPERATIONS, op, slug, str, TOPIC_DEPTHS, TOPIC_REQUIREMENTS } from './shared.js';

const guideOwner = () => ({ ownerType: z.enum(GUIDE_OWNER_TYPES) });

const upTo20 = () => z.array(z.string()).max(20);
const informationTargets = () => z.array(z.strictObject({ key: z.string().min(1), label: z.string().min(1).max(255) })).max(20);

/** Writable topic fields, all optional: the update takes them as they are, the create requires `title`. */
const topicFields = () => ({
  key: z.string().nullable().optional(),
  title: str(255).optional(),
  description: nstr(4000).optional(),
  requirement: z.enum(TOPIC_REQUIREMENTS).optional(),
  depth: z.enum(TOPIC_DEPTHS).optional(),
  opening_questions: upTo20().optional(),
  information_targets: informationTargets().optional(),
  demonstrations: upTo20().optional(),
  forbidden_subjects: upTo20().optional(),
  deliverable_category: nstr(64).optional(),
  position: z.number().int().min(0).optional(),
});

export const methods = area('methods', [
  op({
    name: 'list_methods',
    title: 'List methods',
    description: 'Interview methods of the workspace: reusable guides and settings engagements start from.',
    method: 'GET',
    path: '/methods',
    askedAs: {
      en: ['interview methods', 'our interview playbooks', 'methodologies', 'interview approaches we can reuse'],
      fr: ['méthodes d’entretien', 'nos méthodologies', 'trames d’entretien', 'méthodes disponibles au cabinet', 'nos façons de mener les entretiens'],
    },
    paginated: true,
  }),
  op({
    name: 'create_method',
    title: 'Create method',
    description: 'Create an empty interview method. To start from a ready-made one, use create_method_from_template.',
    method: 'POST',
    path: '/methods',
    askedAs: {
      en: ['new blank interview method', 'build a method from scratch', 'a fresh interview approach from nothing'],
      fr: ['nouvelle méthode vide', 'créer une méthode d’entretien', 'partir de zéro pour une méthode'],
    },
    destructive: false,
    fields: () => ({ name: z.string().min(1).max(255), description: nstr(2000).optional() }),
  }),
  op({
    name: 'list_avatar_presets',
    title: 'List avatar presets',
    description: 'Interviewer avatar presets a method can use.',
    method: 'GET',
    path: '/methods/enums/avatar-presets',
    askedAs: {
      en: ['interviewer avatars', 'look of the virtual interviewer', 'faces the interviewer can have'],
      fr: ['avatars de l’intervieweur', 'apparence de l’intervieweur virtuel', 'visages possibles de l’intervieweur'],
    },
    paginated: true,
    reference: true,
  }),
  op({
    name: 'list_method_enum_values',
    title: 'List method enum values',
    description: 'Allowed values of one named enumeration of the methods area.',
    method: 'GET',
    path: '/methods/enums/{name}',
    example: { name: 'depths' },
    askedAs: {
      en: ['allowed values for method settings', 'what values a method setting can take'],
      fr: ['valeurs possibles des réglages de méthode', 'quelles valeurs peut prendre un réglage de méthode'],
    },
    pathSchemas: () => ({ name: slug() }),
    paginated: true,
    reference: true,
  }),
  op({
    name: 'list_method_templates',
    title: 'List method templates',
    description: 'Ready-made method templates; their keys feed create_method_from_template.',
    method: 'GET',
    path: '/methods/templates',
    askedAs: {
      en: ['ready-made methods', 'method templates to start from', 'starter guides', 'off-the-shelf interview approaches'],
      fr: ['modèles de méthode', 'méthodes prêtes à l’emploi', 'gabarits de guide', 'approches d’entretien toutes prêtes', 'trames prêtes à l’emploi'],
    },
    paginated: true,
    reference: true,
  }),
  op({
    name: 'create_method_from_template',
    title: 'Create method from template',
    description: "Create a method from a template, with its guide. name and locale default to the template's.",
    method: 'POST',
    path: '/methods/from-template',
    example: { template_key: '$demo.template', name: 'Audit O2C', locale: 'fr' },
    askedAs: {
      en: ['start a method from a template', 'use a ready-made guide', 'build our method on a ready-made one'],
      fr: ['créer une méthode depuis un modèle', 'partir d’un gabarit', 's’appuyer sur une trame existante'],
    },
    destructive: false,
    fields: () => ({
      template_key: z.string().min(1),
      name: nstr(255).optional(),
      locale: z.enum(LOCALES).nullable().optional(),
    }),
  }),
  op({
    name: 'get_method',
    title: 'Get method',
    description: 'One interview method with its settings.',
    method: 'GET',
    path: '/methods/{method}',
    example: { method: '$demo.method' },
    askedAs: {
      en: ['settings of an interview method', 'open a method', 'how a method is configured'],
      fr: ['réglages d’une méthode', 'voir une méthode', 'configuration d’une méthode'],
    },
  }),
  op({
    name: 'update_method',
    title: 'Update method',
    description: 'Rename a method or change its description (name is always required).',
    method: 'PATCH',
    path: '/methods/{method}',
    askedAs: {
      en: ['rename a method', 'change the method description', 'give the method a new name'],
      fr: ['renommer une méthode', 'modifier la description d’une méthode', 'donner un nouveau nom à la méthode'],
    },
    destructive: false,
    fields: () => ({ name: z.string().min(1).max(255), description: nstr(2000).optional() }),
  }),
  op({
    name: 'delete_method',
    title: 'Delete method',
    description: 'Delete an interview method and its guide.',
    method: 'DELETE',
    path: '/methods/{method}',
    askedAs: { en: ['remove an interview method', 'retire a method nobody uses'], fr: ['supprimer une méthode d’entretien', 'retirer une méthode inutilisée'] },
    destructive: true,
  }),
  op({
    name: 'duplicate_method',
    title: 'Duplicate method',
    description: 'Copy a method and its guide into a new method. Returns the copy.',
    method: 'POST',
    path: '/methods/{method}/duplicate',
    askedAs: {
      en: ['copy a method', 'make a variant of a method', 'reuse a method for another client', 'start a variant from an existing method'],
      fr: ['copier une méthode', 'faire une variante d’une méthode', 'réutiliser une méthode', 'copie d’une méthode à adapter'],
    },
    destructive: false,
  }),
  op({
    name: 'list_method_versions',
    title: 'List method versions',
    description: 'Saved versions of a method, newest first.',
    method: 'GET',
    path: '/methods/{method}/versions',
    example: { method: '$demo.method' },
    askedAs: {
      en: ['history of a method', 'earlier versions of the method', 'previous versions', 'how the method changed over time'],
      fr: ['historique de la méthode', 'anciennes versions de la méthode', 'évolution de la méthode', 'versions successives'],
    },
    paginated: true,
  }),
  op({
    name: 'get_method_version',
    title: 'Get method version',
    description: 'One saved version of a method, as it was then.',
    method: 'GET',
    path: '/methods/{method}/versions/{version}',
    example: { method: '$demo.method', version: '$demo.method_version' },
    askedAs: {
      en: ['the method as it was then', 'an old version of the method', 'the method before recent edits'],
      fr: ['la méthode telle qu’elle était', 'une ancienne version de la méthode', 'la méthode avant les modifications'],
    },
  }),
  op({
    name: 'get_effective_guide',
    title: 'Get effective guide',
    description: "The guide an owner's interviews actually follow: its topics with the overrides applied.",
    method: 'GET',
    path: '/guide/{ownerType}/{ownerId}/effective',
    example: { ownerType: 'engagement', ownerId: '$demo.engagement' },
    askedAs: {
      en: [
        'the interview guide actually used',
        'final list of questions for this engagement',
        'guide with overrides applied',
        'what the interviews will cover',
        'topics interviewees will go through',
        'questions the interviewer will really ask',
        'guide once adaptations are applied',
      ],
      fr: [
        'le guide d’entretien appliqué',
        'les questions réellement posées',
        'guide effectif de la mission',
        'ce que couvriront les entretiens',
        'thèmes que les participants aborderont',
        'questions réellement posées par l’intervieweur',
        'guide après adaptations',
      ],
    },
    pathSchemas: guideOwner,
  }),
  op({
    name: 'set_guide_override',
    title: 'Set guide override',
    description: 'Override an inherited topic for this owner: modify it (patch), remove it, or make it optional or mandatory.',
    method: 'PUT',
    path: '/guide/{ownerType}/{ownerId}/overrides/{topic}',
    askedAs: {
      en: [
        'adapt a topic for one engagement',
        'skip a topic here',
        'make a topic mandatory or optional',
        'change an inherited question',
        'tailor the guide to one engagement',
        'make a topic compulsory here',
      ],
      fr: [
        'adapter un thème pour une mission',
        'retirer un thème ici',
        'rendre un thème obligatoire ou facultatif',
        'supprimer un thème pour ce client seulement',
        'rendre un thème obligatoire ici',
      ],
    },
    pathSchemas: guideOwner,
    // Replaces only this owner's override; the inherited topic is untouched and delete_guide_override restores it.
    destructive: false,
    fields: () => ({
      operation: z.enum(OVERRIDE_OPERATIONS),
      patch: z
        .strictObject({
          title: str(255).optional(),
          description: nstr(4000).optional(),
          depth: z.enum(TOPIC_DEPTHS).optional(),
          opening_questions: upTo20().optional(),
          information_targets: informationTargets().optional(),
          demonstrations: upTo20().optional(),
          forbidden_subjects: upTo20().optional(),
        })
        .nullable()
        .optional()
        .describe('changes for operation modify'),
    }),
  }),
  op({
    name: 'delete_guide_override',
    title: 'Delete guide override',
    description: "Drop this owner's override of a topic: the inherited topic applies again.",
    method: 'DELETE',
    path: '/guide/{ownerType}/{ownerId}/overrides/{topic}',
    askedAs: {
      en: ['undo a topic override', 'restore the inherited topic', 'back to the inherited version of a topic'],
      fr: ['annuler l’adaptation d’un thème', 'rétablir le thème hérité', 'revenir à la version héritée du thème'],
    },
    pathSchemas: guideOwner,
    destructive: true,
  }),
  op({
    name: 'get_topic_proposal',
    title: 'Get topic proposal',
    description: 'Topics the AI proposed for a guide (from propose_guide_topics), each with the key to accept it by.',
    method: 'GET',
    path: '/guide/{ownerType}/{ownerId}/proposals/{proposal}',
    example: { ownerType: 'engagement', ownerId: '$demo.engagement', proposal: '$demo.topic_proposal' },
    askedAs: {
      en: ['topics the AI suggested', 'AI topic ideas', 'read the AI’s suggested themes'],
      fr: ['thèmes suggérés par l’IA', 'idées de thèmes de l’IA', 'lire les idées de thèmes de l’IA'],
    },
    pathSchemas: guideOwner,
  }),
  op({
    name: 'accept_topic_proposal',
    title: 'Accept topic proposal',
    description: 'Add the chosen proposed topics (by key) to the guide, optionally edited first.',
    method: 'POST',
    path: '/guide/{ownerType}/{ownerId}/proposals/{proposal}/accept',
    askedAs: {
      en: ['keep the suggested topics', 'add the AI topics to the guide', 'keep some of the suggested topics'],
      fr: ['garder les thèmes suggérés', 'ajouter les thèmes proposés au guide', 'retenir certains thèmes suggérés'],
    },
    pathSchemas: guideOwner,
    destructive: false,
    fields: () => ({
      keys: z.array(z.string()).min(1),
      edits: z
        .array(
          z.strictObject({
            title: str(255).optional(),
            requirement: z.enum(TOPIC_REQUIREMENTS).optional(),
            depth: z.enum(TOPIC_DEPTHS).optional(),
          }),
        )
        .optional(),
    }),
  }),
  op({
    name: 'propose_guide_topics',
    title: 'Propose guide topics',
    description: 'Ask the AI to propose new topics for a guide, optionally on a focus. Returns a proposal to review.',
    method: 'POST',
    path: '/guide/{ownerType}/{ownerId}/propose-topics',
    askedAs: {
      en: [
        'ideas for more questions',
        'AI, suggest topics for the guide',
        'brainstorm interview topics',
        'gaps in the interview guide',
        'let the AI draft new topics',
      ],
      fr: [
        'idées de nouvelles questions',
        'suggérer des thèmes pour le guide',
        'proposer des sujets d’entretien',
        'quoi d’autre aborder en entretien',
        'compléter le guide avec l’IA',
      ],
    },
    pathSchemas: guideOwner,
    destructive: false,
    fields: () => ({
      count: z.number().int().min(3).max(12).optional(),
      focus: nstr(1000).optional(),
      locale: z.enum(LOCALES).nullable().optional(),
    }),
  }),
  op({
    name: 'list_guide_topics',
    title: 'List guide topics',
    description: "Topics of an owner's guide, in order. For the guide as interviews apply it, use get_effective_guide.",
    method: 'GET',
    path: '/guide/{ownerType}/{ownerId}/topics',
    example: { ownerType: 'method', ownerId: '$demo.method', limit: 200 },
    askedAs: {
      en: ['questions of the interview guide', 'topics we cover in interviews', 'topics in the order they are asked'],
      fr: ['questions du guide d’entretien', 'sujets abordés en entretien', 'thèmes dans l’ordre', 'déroulé du guide'],
    },
    pathSchemas: guideOwner,
    paginated: true,
  }),
  op({
    name: 'create_guide_topic',
    title: 'Create guide topic',
    description: 'Add a topic to a guide: what to ask, what to learn, what to avoid.',
    method: 'POST',
    path: '/guide/{ownerType}/{ownerId}/topics',
    askedAs: {
      en: ['add a question to the guide', 'new topic to ask about', 'a new question for interviewees'],
      fr: ['ajouter une question au guide', 'nouveau thème à aborder', 'nouvelle question pour les interviewés'],
    },
    pathSchemas: guideOwner,
    destructive: false,
    fields: () => ({ ...topicFields(), title: str(255) }),
  }),
  op({
    name: 'reorder_guide_topics',
    title: 'Reorder guide topics',
    description: "Set the order of a guide's topics: ids in the new order.",
    method: 'POST',
    path: '/guide/{ownerType}/{ownerId}/topics/reorder',
    askedAs: {
      en: ['change the order of the questions', 'move a topic up', 'sequence of topics', 'ask this topic first', 'put a topic at the end'],
      fr: ['changer l’ordre des questions', 'déplacer un thème', 'réordonner les sujets', 'poser ce thème en premier', 'mettre un thème à la fin'],
    },
    pathSchemas: guideOwner,
    destructive: false,
    fields: () => ({ ids: z.array(id()) }),
  }),
  op({
    name: 'update_guide_topic',
    title: 'Update guide topic',
    description: "Change fields of one of the owner's own topics; omitted fields stay as they are.",
    method: 'PATCH',
    path: '/guide/{ownerType}/{ownerId}/topics/{topic}',
    askedAs: {
      en: ['edit a question of the guide', 'reword a topic', 'change the depth of a topic', 'change what a topic asks'],
      fr: ['modifier une question du guide', 'reformuler un thème', 'approfondir un thème', 'changer le contenu d’un thème'],
    },
    pathSchemas: guideOwner,
    destructive: false,
    fields: topicFields,
  }),
  op({
    name: 'delete_guide_topic',
    title: 'Delete guide topic',
    description: "Delete one of the owner's own topics.",
    method: 'DELETE',
    path: '/guide/{ownerType}/{ownerId}/topics/{topic}',
    askedAs: {
      en: ['remove a question from the guide', 'drop a topic from our own guide'],
      fr: ['supprimer une question du guide', 'enlever un thème de notre guide'],
    },
    pathSchemas: guideOwner,
    destructive: true,
  }),
]);
