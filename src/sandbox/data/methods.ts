// Interview methods of Atelier Conseil: the procure-to-pay audit method the Berthier engagement uses
// (its guide of topics, two saved versions), a second method, the templates, the engagement's override
// of one topic, and an AI topic proposal waiting for review.
import type { Rec, WorkspaceState } from '../types.js';
import { at, ENGAGEMENT_AP, MEMBER_CLAIRE, MEMBER_MARC, METHOD_P2P } from './ids.js';

interface TopicSeed {
  key: string;
  title: string;
  description: string;
  requirement: 'mandatory' | 'optional';
  depth: 'overview' | 'standard' | 'deep';
  opening_questions: string[];
  information_targets: { key: string; label: string }[];
  demonstrations: string[];
  forbidden_subjects: string[];
  deliverable_category: string | null;
}

const t = (
  key: string,
  title: string,
  description: string,
  requirement: TopicSeed['requirement'],
  depth: TopicSeed['depth'],
  opening_questions: string[],
  targets: [string, string][],
  demonstrations: string[] = [],
  forbidden_subjects: string[] = [],
  deliverable_category: string | null = null,
): TopicSeed => ({
  key,
  title,
  description,
  requirement,
  depth,
  opening_questions,
  information_targets: targets.map(([k, label]) => ({ key: k, label })),
  demonstrations,
  forbidden_subjects,
  deliverable_category,
});

const P2P_TOPICS: TopicSeed[] = [
  t(
    'role',
    'Rôle et périmètre',
    "Situer l'interlocuteur : son rôle, son équipe, sa part dans le traitement des factures.",
    'mandatory',
    'overview',
    ['Pouvez-vous décrire votre rôle et votre périmètre dans le traitement des factures ?'],
    [
      ['team_size', "Taille de l'équipe"],
      ['scope', 'Périmètre (sociétés, fournisseurs)'],
    ],
  ),
  t(
    'reception',
    'Réception et saisie des factures',
    'Canaux de réception (papier, e-mail, portail), saisie dans SAP, ressaisies.',
    'mandatory',
    'deep',
    ['Comment une facture fournisseur arrive-t-elle jusqu’à vous ?', 'Que se passe-t-il ensuite, étape par étape ?'],
    [
      ['channels', 'Canaux de réception et leur part'],
      ['volume', 'Volume mensuel de factures'],
      ['re_entry', 'Ressaisies et leur durée'],
    ],
    ['Saisie d’une facture dans SAP (MIRO)'],
    [],
    'pain_map',
  ),
  t(
    'matching',
    'Rapprochement à trois voies',
    'Commande, réception et facture : écarts, blocages et leur résolution.',
    'mandatory',
    'deep',
    ['Comment rapprochez-vous la facture de la commande et de la réception ?', 'Que faites-vous quand les montants ne concordent pas ?'],
    [
      ['block_rate', 'Part des factures bloquées'],
      ['resolution_time', 'Délai de résolution des blocages'],
    ],
    ['Liste des factures bloquées (MRBR)'],
    [],
    'process_sheets',
  ),
  t(
    'approval',
    'Circuit de validation',
    'Validation des factures hors commande : qui valide, comment, en combien de temps.',
    'mandatory',
    'standard',
    ['Qui valide une facture qui n’a pas de commande ?', 'Combien de temps faut-il en général ?'],
    [
      ['approval_delay', 'Délai moyen de validation'],
      ['approvers', 'Valideurs et seuils'],
    ],
    [],
    [],
    'pain_map',
  ),
  t(
    'vendor_master',
    'Référentiel fournisseurs',
    'Création des fournisseurs, modifications de RIB, doublons.',
    'mandatory',
    'standard',
    ['Comment un nouveau fournisseur est-il créé dans SAP ?', 'Comment traitez-vous une demande de changement de RIB ?'],
    [
      ['duplicates', 'Doublons connus'],
      ['bank_change_control', 'Contrôle des changements de RIB'],
    ],
    [],
    ['Noms des fournisseurs en litige'],
    'roadmap',
  ),
  t(
    'payment',
    'Paiements et doublons',
    'Propositions de paiement, paiements en double, pénalités de retard.',
    'mandatory',
    'standard',
    ['Comment les paiements sont-ils préparés et contrôlés ?', 'Avez-vous constaté des paiements en double ?'],
    [
      ['duplicate_payments', 'Paiements en double (nombre, montant)'],
      ['late_fees', 'Pénalités de retard'],
    ],
  ),
  t(
    'tools',
    'Outils et fichiers Excel',
    'Outils utilisés à côté de SAP : fichiers Excel, trackers, boîtes mail partagées.',
    'optional',
    'standard',
    ['Quels fichiers ou outils utilisez-vous à côté de SAP ?'],
    [
      ['excel_files', 'Fichiers Excel et leur propriétaire'],
      ['workarounds', 'Contournements'],
    ],
    ['Tracker des factures bloquées'],
    [],
    'tool_landscape',
  ),
  t(
    'closing',
    'Clôture mensuelle',
    'Charge de fin de mois, provisions pour factures non parvenues, dépendances à des personnes clés.',
    'optional',
    'overview',
    ['Comment se passe la fin de mois pour vous ?'],
    [
      ['close_days', 'Jours de clôture'],
      ['key_person', 'Personnes indispensables'],
    ],
    [],
    [],
    'pain_map',
  ),
];

const O2C_TOPICS: TopicSeed[] = [
  t(
    'order_entry',
    'Order entry',
    'How customer orders are received and entered.',
    'mandatory',
    'standard',
    ['How does a customer order reach your team?'],
    [['order_channels', 'Order channels']],
  ),
  t(
    'invoicing',
    'Invoicing',
    'Billing runs, credit notes, invoice disputes.',
    'mandatory',
    'standard',
    ['Walk me through how an invoice is issued.'],
    [['dispute_rate', 'Share of disputed invoices']],
  ),
  t(
    'collections',
    'Collections',
    'Dunning, overdue follow-up, cash application.',
    'mandatory',
    'deep',
    ['How do you follow up on overdue invoices?'],
    [['dso', 'Days sales outstanding']],
  ),
];

const ONBOARDING_TOPICS: TopicSeed[] = [
  t(
    'hiring_handover',
    'Passage du recrutement à l’intégration',
    'Ce qui est transmis une fois la promesse signée.',
    'mandatory',
    'standard',
    ['Que se passe-t-il une fois le candidat recruté ?'],
    [['handover_delay', 'Délai de transmission']],
  ),
  t(
    'first_day',
    'Premier jour',
    'Accès, matériel, accueil.',
    'mandatory',
    'standard',
    ['Comment se déroule le premier jour d’un nouvel arrivant ?'],
    [['access_ready', 'Accès prêts le jour J']],
  ),
];

interface TemplateSeed {
  template_key: string;
  name: { fr: string; en: string };
  description: { fr: string; en: string };
  locale: 'fr' | 'en';
  topics: TopicSeed[];
}

export const TEMPLATES: TemplateSeed[] = [
  {
    template_key: 'p2p_audit',
    name: { fr: 'Audit achats-fournisseurs (P2P)', en: 'Procure-to-pay audit' },
    description: { fr: 'De la commande au paiement des fournisseurs.', en: 'From purchase order to supplier payment.' },
    locale: 'fr',
    topics: P2P_TOPICS,
  },
  {
    template_key: 'o2c_audit',
    name: { fr: 'Audit order-to-cash', en: 'Order-to-cash audit' },
    description: { fr: 'De la commande client à l’encaissement.', en: 'From customer order to cash collection.' },
    locale: 'en',
    topics: O2C_TOPICS,
  },
  {
    template_key: 'hr_onboarding',
    name: { fr: 'Intégration des nouveaux arrivants', en: 'HR onboarding review' },
    description: { fr: 'Du recrutement à la fin de la période d’essai.', en: 'From hiring to the end of probation.' },
    locale: 'fr',
    topics: ONBOARDING_TOPICS,
  },
];

/** Insert a guide's topics for an owner, positions 0..n-1 in order. */
export function insertTopics(ws: WorkspaceState, ownerType: string, ownerId: string, topics: TopicSeed[], createdAt?: string): Rec[] {
  return topics.map((topic, position) =>
    ws.c('guide_topics').insert({
      owner_type: ownerType,
      owner_id: ownerId,
      ...structuredClone(topic),
      position,
      ...(createdAt ? { created_at: createdAt } : {}),
    }),
  );
}

export function seedMethods(ws: WorkspaceState): void {
  for (const tpl of TEMPLATES) {
    ws.c('method_templates').insert({
      template_key: tpl.template_key,
      name: tpl.name.fr,
      names: tpl.name,
      description: tpl.description.fr,
      locale: tpl.locale,
      topic_count: tpl.topics.length,
      created_at: at(-365),
    });
  }

  const p2p = ws.c('methods').insert({
    id: METHOD_P2P,
    name: 'Audit achats-fournisseurs (P2P)',
    description: 'Entretiens de diagnostic du processus achats-fournisseurs : réception des factures, rapprochement, validation, paiement.',
    locale: 'fr',
    template_key: 'p2p_audit',
    avatar_preset: 'consultant_claire',
    version: 2,
    created_by: MEMBER_CLAIRE,
    created_at: at(-60),
    updated_at: at(-5),
  });
  const topics = insertTopics(ws, 'method', p2p.id, P2P_TOPICS, at(-60));
  const v1Topics = P2P_TOPICS.filter((x) => x.key !== 'closing' && x.key !== 'tools');
  ws.c('method_versions').insert({
    method_id: p2p.id,
    number: 1,
    name: p2p.name,
    changelog: 'Version initiale, à partir du modèle P2P.',
    created_by: MEMBER_CLAIRE,
    snapshot: { name: p2p.name, description: p2p.description, topics: structuredClone(v1Topics) },
    created_at: at(-60),
  });
  ws.c('method_versions').insert({
    method_id: p2p.id,
    number: 2,
    name: p2p.name,
    changelog: 'Ajout des thèmes « Outils et fichiers Excel » et « Clôture mensuelle ».',
    created_by: MEMBER_MARC,
    snapshot: { name: p2p.name, description: p2p.description, topics: structuredClone(P2P_TOPICS) },
    created_at: at(-5),
  });

  const o2c = ws.c('methods').insert({
    name: 'Order-to-cash assessment',
    description: 'Customer order to cash collection interviews, for English-speaking clients.',
    locale: 'en',
    template_key: 'o2c_audit',
    avatar_preset: 'consultant_alex',
    version: 1,
    created_by: MEMBER_MARC,
    created_at: at(-40),
  });
  insertTopics(ws, 'method', o2c.id, O2C_TOPICS, at(-40));
  ws.c('method_versions').insert({
    method_id: o2c.id,
    number: 1,
    name: o2c.name,
    changelog: 'Initial version.',
    created_by: MEMBER_MARC,
    snapshot: { name: o2c.name, description: o2c.description, topics: structuredClone(O2C_TOPICS) },
    created_at: at(-40),
  });

  // Berthier has no supplier portal; its consultants go deeper on the approval circuit instead.
  const approval = topics.find((x) => x.key === 'approval');
  if (approval) {
    ws.c('guide_overrides').insert({
      owner_type: 'engagement',
      owner_id: ENGAGEMENT_AP,
      topic_id: approval.id,
      operation: 'modify',
      patch: {
        depth: 'deep',
        opening_questions: [
          'Qui valide une facture qui n’a pas de commande ?',
          'Combien de temps faut-il en général, et que se passe-t-il pendant les congés ?',
        ],
      },
      created_at: at(1),
    });
  }
  const closing = topics.find((x) => x.key === 'closing');
  if (closing) {
    ws.c('guide_overrides').insert({
      owner_type: 'engagement',
      owner_id: ENGAGEMENT_AP,
      topic_id: closing.id,
      operation: 'make_mandatory',
      patch: null,
      created_at: at(1),
    });
  }

  ws.c('guide_proposals').insert({
    owner_type: 'engagement',
    owner_id: ENGAGEMENT_AP,
    status: 'pending',
    focus: 'fraude au changement de RIB',
    locale: 'fr',
    count: 3,
    requested_by: MEMBER_MARC,
    accepted_keys: [],
    topics: [
      {
        key: 'p1',
        title: 'Fraude au président et faux changements de RIB',
        description: 'Tentatives reçues, contrôles en place, formation des équipes.',
        requirement: 'mandatory',
        depth: 'standard',
        opening_questions: ['Avez-vous déjà reçu une demande de changement de RIB suspecte ?'],
        information_targets: [{ key: 'fraud_attempts', label: 'Tentatives de fraude sur 12 mois' }],
        demonstrations: [],
        forbidden_subjects: [],
        deliverable_category: 'pain_map',
      },
      {
        key: 'p2',
        title: 'Séparation des tâches dans SAP',
        description: 'Qui peut créer un fournisseur, modifier un RIB et lancer un paiement.',
        requirement: 'optional',
        depth: 'standard',
        opening_questions: ['Qui peut modifier les coordonnées bancaires d’un fournisseur ?'],
        information_targets: [{ key: 'sod_conflicts', label: 'Conflits de séparation des tâches' }],
        demonstrations: ['Rôles SAP des comptables'],
        forbidden_subjects: [],
        deliverable_category: null,
      },
      {
        key: 'p3',
        title: 'Contre-appel des fournisseurs',
        description: 'Procédure de contre-appel et sa traçabilité.',
        requirement: 'optional',
        depth: 'overview',
        opening_questions: ['Comment confirmez-vous un changement de RIB ?'],
        information_targets: [{ key: 'callback_trace', label: 'Trace du contre-appel' }],
        demonstrations: [],
        forbidden_subjects: [],
        deliverable_category: null,
      },
    ],
    created_at: at(6, 10),
  });
}
