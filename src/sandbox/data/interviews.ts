// Interviews of the accounts-payable audit: three people, one session each, with what they said
// (transcript, chapters, recaps) and what the consultant marked (pins, frames) and recorded.

import { wavSize } from '../media.js';
import type { Rec, WorkspaceState } from '../types.js';
import {
  at,
  ENGAGEMENT_AP,
  INTERVIEW_AP_CLERK,
  INTERVIEW_BUYER,
  INTERVIEW_CONTROLLER,
  MEMBER_CLAIRE,
  MEMBER_MARC,
  SESSION_AP_CLERK,
  SESSION_BUYER,
  SESSION_CONTROLLER,
} from './ids.js';

type Turn = ['I' | 'P', string];

interface InterviewSeed {
  interview: string;
  session: string;
  title: string;
  interviewee_name: string;
  interviewee_role: string;
  department: string;
  locale: 'fr' | 'en';
  interviewer: string;
  startedAt: string;
  /** Real length of the session; the transcript's turns are spread over it. */
  durationMs: number;
  turns: Turn[];
  /** Title, first and last turn position (1-based), recap summary, recap items (text, positions). */
  chapters: { title: string; from: number; to: number; summary: string; items: [string, number[]][] }[];
  /** Turn position the pin was dropped on, its label and note. */
  pins: [number, string, string | null][];
  /** Turn position the frame was captured during, and what the screen showed. */
  frames: [number, string][];
}

const CLERK: InterviewSeed = {
  interview: INTERVIEW_AP_CLERK,
  session: SESSION_AP_CLERK,
  title: 'Traitement des factures fournisseurs au quotidien',
  interviewee_name: 'Nathalie Roux',
  interviewee_role: 'Comptable fournisseurs',
  department: 'Comptabilité',
  locale: 'fr',
  interviewer: 'Claire Dubois',
  startedAt: at(2, 1),
  durationMs: 24 * 60_000,
  turns: [
    ['I', 'Bonjour Nathalie, merci de prendre ce temps. Pour commencer, pouvez-vous me décrire comment une facture fournisseur arrive chez vous ?'],
    [
      'P',
      'La plupart arrivent en PDF sur la boîte factures@berthier.fr, environ 1 800 par mois. Il en reste encore à peu près 20 % en papier, surtout les petits fournisseurs de bois et de quincaillerie.',
    ],
    ['I', 'Et ensuite, que se passe-t-il pour une facture PDF ?'],
    [
      'P',
      "Je la ressaisis à la main dans SAP : numéro de facture, date, montant HT, TVA, fournisseur. Il n'y a pas de lecture automatique, donc je tape tout, ligne par ligne quand il y a plusieurs commandes.",
    ],
    ['I', 'Combien de temps cela vous prend-il par facture ?'],
    [
      'P',
      'Entre quatre et six minutes pour une facture simple, beaucoup plus quand il faut chercher le bon de commande. À nous trois, la ressaisie nous prend facilement deux jours par semaine.',
    ],
    ['I', "Vous parlez du bon de commande : est-ce qu'il existe toujours ?"],
    [
      'P',
      "Non, c'est un vrai problème. Près d'une facture sur trois arrive sans bon de commande, parce que l'atelier commande directement par téléphone. Je dois alors retrouver le demandeur et créer la commande après coup.",
    ],
    ['I', 'Et le rapprochement entre commande, réception et facture ?'],
    [
      'P',
      "Le rapprochement à trois voies bloque souvent : la réception n'est pas saisie dans SAP par le magasin, ou les quantités ne correspondent pas. Ces factures partent en blocage et je les suis dans mon fichier Excel.",
    ],
    ['I', 'Quel fichier Excel ?'],
    [
      'P',
      "C'est le tracker des factures bloquées que Sylvie Garnier a construit. Il y a des macros et des onglets cachés, honnêtement il n'y a qu'elle qui le comprend vraiment. Quand elle est en congé, on ne sait pas relancer les bons interlocuteurs.",
    ],
    ['I', 'Comment se passe l’approbation des factures hors commande ?'],
    [
      'P',
      'On envoie la facture par e-mail au responsable du budget et on attend sa réponse. En général la validation revient en deux jours, parfois plus en période de clôture.',
    ],
    ['I', 'Avez-vous déjà eu des paiements en double ?'],
    [
      'P',
      "Oui, l'an dernier nous avons payé deux fois une facture de 48 000 euros à un fournisseur de panneaux, parce qu'elle était arrivée une fois en PDF et une fois par courrier avec un numéro légèrement différent. On l'a découvert trois mois plus tard.",
    ],
    ['I', 'Et en fin de mois ?'],
    [
      'P',
      'La clôture mensuelle est très tendue : il faut tout saisir avant le troisième jour ouvré, donc on fait des heures supplémentaires et on passe des provisions sur les factures bloquées.',
    ],
  ],
  chapters: [
    {
      title: 'Réception et ressaisie des factures',
      from: 1,
      to: 6,
      summary:
        "Les factures arrivent surtout en PDF (environ 1 800 par mois) et sont ressaisies à la main dans SAP, ce qui occupe l'équipe deux jours par semaine.",
      items: [
        ['Environ 1 800 factures par mois, dont 20 % encore en papier.', [2]],
        ['Ressaisie manuelle complète dans SAP, sans lecture automatique.', [4]],
        ['Quatre à six minutes par facture simple ; deux jours par semaine pour l’équipe.', [6]],
      ],
    },
    {
      title: 'Commandes et rapprochement à trois voies',
      from: 7,
      to: 12,
      summary: 'Une facture sur trois arrive sans commande ; les écarts de rapprochement sont suivis dans un fichier Excel que seule Sylvie Garnier maîtrise.',
      items: [
        ['Près d’une facture sur trois sans bon de commande (commandes passées par téléphone).', [8]],
        ['Blocages du rapprochement à trois voies : réceptions non saisies, quantités divergentes.', [10]],
        ['Le tracker Excel des factures bloquées dépend de Sylvie Garnier.', [12]],
      ],
    },
    {
      title: 'Approbation, paiements et clôture',
      from: 13,
      to: 18,
      summary:
        "L'approbation se fait par e-mail ; un paiement en double de 48 000 euros a eu lieu l'an dernier ; la clôture impose des heures supplémentaires.",
      items: [
        ['Approbation des factures hors commande par e-mail, environ deux jours.', [14]],
        ['Paiement en double de 48 000 euros découvert trois mois plus tard.', [16]],
        ['Clôture au troisième jour ouvré : heures supplémentaires et provisions.', [18]],
      ],
    },
  ],
  pins: [
    [6, 'Volume de ressaisie', 'Chiffrer : 2 jours/semaine pour 3 personnes.'],
    [12, 'Dépendance à Sylvie Garnier', 'À confirmer avec Sylvie : documentation du tracker.'],
    [16, 'Paiement en double 48 k€', null],
  ],
  frames: [
    [4, "Écran SAP MIRO : saisie d'une facture fournisseur"],
    [10, 'Liste des factures bloquées pour écart de réception (SAP MRBR)'],
    [12, 'Tracker Excel des factures bloquées, onglet « Relances »'],
  ],
};

const CONTROLLER: InterviewSeed = {
  interview: INTERVIEW_CONTROLLER,
  session: SESSION_CONTROLLER,
  title: 'Validation, clôture et pilotage des dettes fournisseurs',
  interviewee_name: 'Julien Moreau',
  interviewee_role: 'Contrôleur de gestion',
  department: 'Contrôle de gestion',
  locale: 'fr',
  interviewer: 'Claire Dubois',
  startedAt: at(3, 6),
  durationMs: 19 * 60_000,
  turns: [
    ['I', 'Julien, quel est votre rôle dans le processus fournisseurs ?'],
    [
      'P',
      "Je suis contrôleur de gestion : je n'interviens pas dans la saisie, mais je valide les factures hors commande au-dessus de 5 000 euros et je prépare les provisions pour la clôture.",
    ],
    ['I', 'Comment se passe la validation des factures de votre côté ?'],
    [
      'P',
      'Elles arrivent par e-mail, sans contexte, mélangées au reste. Honnêtement, entre le moment où la comptabilité envoie la demande et ma réponse, il se passe souvent dix jours, surtout quand le responsable budgétaire est en déplacement.',
    ],
    ['I', "Dix jours, c'est beaucoup. Quelles conséquences ?"],
    [
      'P',
      "Des pénalités de retard. Nous avons payé environ 35 000 euros d'indemnités et de pénalités l'an dernier, et nous perdons les escomptes pour paiement anticipé que certains fournisseurs proposent.",
    ],
    ['I', 'Et les données des fournisseurs ?'],
    [
      'P',
      "Le fichier fournisseurs dans SAP est mal tenu : il y a des doublons, des fournisseurs créés deux fois avec des SIRET différents, et personne n'est responsable de sa mise à jour.",
    ],
    ['I', 'Qui peut modifier les coordonnées bancaires ?'],
    [
      'P',
      "C'est ce qui m'inquiète le plus : un changement de RIB demandé par e-mail est saisi directement par la comptabilité, sans contre-appel au fournisseur. C'est exactement le scénario des fraudes au faux fournisseur.",
    ],
    ['I', 'Comment préparez-vous la clôture ?'],
    [
      'P',
      "J'extrais les factures en attente de SAP dans Excel, je les croise avec le tracker de Sylvie et je calcule les provisions à la main. Cela me prend une journée complète chaque mois.",
    ],
    ['I', 'Avez-vous des indicateurs sur le processus ?'],
    [
      'P',
      'Pas vraiment. On ne mesure ni le délai de paiement réel, ni le taux de factures sans commande. Je reconstruis un DPO approximatif chaque trimestre pour la direction financière.',
    ],
    ['I', 'Si vous pouviez changer une chose ?'],
    [
      'P',
      "Un circuit de validation dans l'outil, avec des seuils et des relances automatiques, au lieu des e-mails. Et une seule personne propriétaire du référentiel fournisseurs.",
    ],
  ],
  chapters: [
    {
      title: "Validation et délais d'approbation",
      from: 1,
      to: 6,
      summary: "La validation des factures hors commande passe par e-mail et prend souvent dix jours, d'où environ 35 000 euros de pénalités de retard par an.",
      items: [
        ['Validation des factures hors commande au-dessus de 5 000 euros.', [2]],
        ['Délai de validation souvent de dix jours, demandes par e-mail sans contexte.', [4]],
        ['Environ 35 000 euros de pénalités de retard et escomptes perdus.', [6]],
      ],
    },
    {
      title: 'Référentiel et coordonnées bancaires',
      from: 7,
      to: 10,
      summary: 'Le référentiel fournisseurs contient des doublons sans propriétaire ; les changements de RIB sont saisis sans contre-appel.',
      items: [
        ['Doublons dans le fichier fournisseurs SAP, sans responsable.', [8]],
        ['Changement de RIB saisi sur simple e-mail, sans contre-appel.', [10]],
      ],
    },
    {
      title: 'Clôture et pilotage',
      from: 11,
      to: 16,
      summary: 'La clôture repose sur des extractions Excel croisées à la main ; aucun indicateur de processus n’est suivi.',
      items: [
        ['Une journée par mois pour calculer les provisions à la main.', [12]],
        ['Pas d’indicateur de délai de paiement ni de taux de factures sans commande.', [14]],
        ['Souhait : circuit de validation outillé avec seuils et relances.', [16]],
      ],
    },
  ],
  pins: [
    [4, 'Contradiction sur le délai de validation', 'Nathalie parle de 2 jours, Julien de 10 jours.'],
    [10, 'Risque fraude au RIB', 'Priorité haute pour le rapport.'],
  ],
  frames: [
    [12, 'Extraction SAP des factures en attente ouverte dans Excel'],
    [14, 'Calcul trimestriel du DPO dans Excel'],
  ],
};

const BUYER: InterviewSeed = {
  interview: INTERVIEW_BUYER,
  session: SESSION_BUYER,
  title: 'Purchasing practices and their effect on accounts payable',
  interviewee_name: 'Emma Clarke',
  interviewee_role: 'Procurement lead',
  department: 'Procurement',
  locale: 'en',
  interviewer: 'Marc Lefèvre',
  startedAt: at(4, 2),
  // The longest session of the demo: its recording (about 100 MB of WAV) serves download benchmarks.
  durationMs: 52 * 60_000,
  turns: [
    ['I', 'Thanks for joining, Emma. Can you walk me through how a purchase starts?'],
    [
      'P',
      'For production materials we raise purchase orders in SAP from the MRP run, that part works well. The problem is indirect spend: maintenance, transport, small tooling.',
    ],
    ['I', 'What happens with indirect spend?'],
    [
      'P',
      'People on the shop floor call the supplier and order by phone. No purchase order is raised, so the invoice turns up in accounts payable with nothing to match against.',
    ],
    ['I', 'Do you know how much of the spend that represents?'],
    [
      'P',
      "Roughly a third of invoices by count, though only about twelve percent by value. It's lots of small invoices that take the same effort as the big ones.",
    ],
    ['I', 'How do you pick and onboard suppliers?'],
    [
      'P',
      "We have a supplier creation form in Excel that goes to accounting by e-mail. There's no check for duplicates, which is why the vendor master has so many near-identical entries.",
    ],
    ['I', 'Have you seen any issues with price differences?'],
    [
      'P',
      'Yes, the three-way match fails a lot on price because contract prices are updated in our Excel price list but not in SAP info records. Then AP blocks the invoice and asks us, and we answer days later.',
    ],
    ['I', 'How do you communicate with accounts payable?'],
    ['P', "Mostly e-mail, and Sylvie's tracker. When Sylvie is away, nobody knows which blocked invoices are waiting for us, so things just sit there."],
    ['I', 'Anything that works well that we should keep?'],
    [
      'P',
      'The monthly supplier review with the top twenty suppliers is genuinely useful. We agree on disputes there before they turn into late payment penalties.',
    ],
    ['I', 'One last thing: how do you see the month-end from your side?'],
    [
      'P',
      "Month-end is when AP chases us for every goods receipt at once. We end up posting receipts in bulk on the last day, which isn't great for accuracy.",
    ],
  ],
  chapters: [
    {
      title: 'Purchase orders and indirect spend',
      from: 1,
      to: 6,
      summary: 'Direct materials are ordered through SAP; indirect spend is ordered by phone without purchase orders, about a third of invoices by count.',
      items: [
        ['Production purchase orders come from the MRP run and work well.', [2]],
        ['Indirect spend is ordered by phone with no purchase order.', [4]],
        ['About a third of invoices by count, twelve percent by value.', [6]],
      ],
    },
    {
      title: 'Suppliers and price mismatches',
      from: 7,
      to: 10,
      summary: 'Supplier creation runs on an Excel form with no duplicate check; contract prices are not maintained in SAP, so price matching fails.',
      items: [
        ['Supplier creation by Excel form and e-mail, no duplicate check.', [8]],
        ['Price mismatches: contract prices kept in Excel, not in SAP info records.', [10]],
      ],
    },
    {
      title: 'Working with accounts payable',
      from: 11,
      to: 16,
      summary:
        "Coordination with AP relies on e-mail and Sylvie's tracker; the monthly top-20 supplier review works well; goods receipts are posted in bulk at month-end.",
      items: [
        ['Blocked invoices stall when Sylvie is away.', [12]],
        ['Monthly review with the top twenty suppliers settles disputes early.', [14]],
        ['Goods receipts posted in bulk on the last day of the month.', [16]],
      ],
    },
  ],
  pins: [
    [6, 'One third of invoices without PO', 'Cross-check with the AP clerk figure.'],
    [14, 'Good practice: supplier review', null],
  ],
  frames: [
    [8, 'Supplier creation form (Excel) with bank details section'],
    [10, 'Contract price list in Excel next to the SAP info record'],
  ],
};

const INTERVIEW_SEEDS = [CLERK, CONTROLLER, BUYER] as const;

/** Speaking time of a turn: about 14 characters a second, as people talk in an interview. */
const speakingMs = (text: string) => Math.max(3_000, Math.round((text.length / 14) * 1000));

/** The transcript segment at a 1-based position of a session: other seeds cite segments this way. */
export function segmentAt(ws: WorkspaceState, sessionId: string, position: number): Rec {
  const seg = ws.c('transcript_segments').all((s) => s.session_id === sessionId && s.position === position)[0];
  if (!seg) throw new Error(`seed: no segment ${position} in session ${sessionId}`);
  return seg;
}

function seedOne(ws: WorkspaceState, s: InterviewSeed): void {
  const started = Date.parse(s.startedAt);
  const ended = new Date(started + s.durationMs).toISOString();
  ws.c('interviews').insert({
    id: s.interview,
    engagement_id: ENGAGEMENT_AP,
    title: s.title,
    interviewee_name: s.interviewee_name,
    interviewee_role: s.interviewee_role,
    department: s.department,
    locale: s.locale,
    status: 'completed',
    scheduled_at: s.startedAt,
    interviewer_name: s.interviewer,
    session_ids: [s.session],
    created_at: at(-5),
    updated_at: ended,
  });

  const recordingId = ws.newId(`recording\n${s.session}`);
  ws.c('sessions').insert({
    id: s.session,
    engagement_id: ENGAGEMENT_AP,
    interview_id: s.interview,
    kind: 'interview',
    mode: 'voice_screen',
    status: 'ended',
    locale: s.locale,
    started_at: s.startedAt,
    ended_at: ended,
    duration_ms: s.durationMs,
    recording_ids: [recordingId],
    created_at: s.startedAt,
    updated_at: ended,
  });

  // Turns are spread evenly over the session: the transcript keeps the substantive exchanges.
  const slot = Math.floor((s.durationMs - 60_000) / s.turns.length);
  const segments = s.turns.map(([who, text], i) => {
    const start = 30_000 + i * slot;
    return ws.c('transcript_segments').insert({
      engagement_id: ENGAGEMENT_AP,
      session_id: s.session,
      interview_id: s.interview,
      position: i + 1,
      speaker: who === 'I' ? 'interviewer' : 'participant',
      speaker_name: who === 'I' ? s.interviewer : s.interviewee_name,
      start_ms: start,
      end_ms: start + Math.min(speakingMs(text), slot - 1_000),
      text,
      locale: s.locale,
      created_at: ended,
      updated_at: ended,
    });
  });
  const seg = (position: number) => segments[position - 1] as Rec;

  s.chapters.forEach((c, i) => {
    const chapter = ws.c('chapters').insert({
      engagement_id: ENGAGEMENT_AP,
      interview_id: s.interview,
      session_id: s.session,
      position: i + 1,
      title: c.title,
      start_ms: seg(c.from).start_ms,
      end_ms: seg(c.to).end_ms,
      created_at: ended,
      updated_at: ended,
    });
    ws.c('recaps').insert({
      engagement_id: ENGAGEMENT_AP,
      interview_id: s.interview,
      session_id: s.session,
      chapter_id: chapter.id,
      locale: s.locale,
      summary: c.summary,
      items: c.items.map(([text, positions]) => ({ id: ws.newId(`recap_item\n${chapter.id}\n${text}`), text, segment_ids: positions.map((p) => seg(p).id) })),
      created_at: ended,
      updated_at: ended,
    });
  });

  for (const [position, label, note] of s.pins) {
    const atMs = Number(seg(position).start_ms);
    ws.c('pins').insert({
      engagement_id: ENGAGEMENT_AP,
      session_id: s.session,
      interview_id: s.interview,
      at_ms: atMs,
      segment_id: seg(position).id,
      label,
      note,
      created_by: s.locale === 'en' ? MEMBER_MARC : MEMBER_CLAIRE,
      created_at: new Date(started + atMs).toISOString(),
      updated_at: new Date(started + atMs).toISOString(),
    });
  }

  s.frames.forEach(([position, caption], i) => {
    const atMs = Number(seg(position).start_ms) + 2_000;
    const captured = new Date(started + atMs).toISOString();
    const path = `sessions/${s.session}/frame-${String(i + 1).padStart(3, '0')}.png`;
    ws.c('frames').insert({
      engagement_id: ENGAGEMENT_AP,
      session_id: s.session,
      interview_id: s.interview,
      position: i + 1,
      at_ms: atMs,
      captured_at: captured,
      caption,
      media: { disk: 'frames', path },
      thumbnail: { disk: 'frames', path },
      created_at: captured,
      updated_at: captured,
    });
  });

  ws.c('recordings').insert({
    id: recordingId,
    engagement_id: ENGAGEMENT_AP,
    session_id: s.session,
    interview_id: s.interview,
    content_type: 'audio/wav',
    duration_ms: s.durationMs,
    size: wavSize(s.durationMs),
    sample_rate: 16_000,
    channels: 1,
    created_at: ended,
    updated_at: ended,
  });
}

export function seedInterviews(ws: WorkspaceState): void {
  for (const s of INTERVIEW_SEEDS) seedOne(ws, s);
}
