// Words related to the verbs and nouns of the operations' names, for find_operations: the everyday
// verbs for an operation's action (expunge, call off, kick off) and nouns for the API's objects (a
// discovery, a tape, mouture), in English and French. Candidates come from data packages, not from
// memory: WordNet 3.0 (Debian wordnet-base: synonyms, troponyms and hyponyms, derivations) and the
// mythes thesauri (Debian mythes-en-us, mythes-fr: synonyms by sense), listed for every word of the
// catalog's names by scripts/word-relations.ts. Reviewed by hand, every candidate, against what the
// word means in this product: kept only where the sense is the operation's action or object here
// (to expunge a finding is to delete it; to call off a run is to cancel it), dropped where it is
// another sense (an engagement as a battle, a finding as a court's verdict, a driver as a motorist),
// where an idiom or another word of the same stem reads otherwise (scratch: "from scratch"; consult:
// the consultant role; débuter: "au début"), or where it is too common to mean the action alone
// (make, take, put, try, okay). To redo: run the script, read its candidates, edit this file, and run
// `npx tsx scripts/word-relations.ts --check`: it checks that every word kept here is a candidate a
// package gives for its group's word, and that none stems as a word of the operations' names
// (suggestion folds into suggest) or as a word the vocabulary already reads.
//
// find_operations reads them below the vocabulary (catalog/vocabulary.ts): at a lower weight than a
// word the vocabulary maps, and never over it (a word both know means what the vocabulary says).

export interface WordRelations {
  /**
   * For each word of the operations' names (the group's key, a verb or a noun or both), the related
   * words a person kept, by language, and what they mean here: the group's `means` (catalog words) if
   * it says, else the key.
   * A word of several (kick off) is heard with up to three words between a verb and its particle
   * (take Sophie off the workspace); an irregular form is listed as a word of its own (took off).
   */
  groups: Record<string, { means?: string; en?: readonly string[]; fr?: readonly string[] }>;
  /** Words kept from a group that mean something else here (visualiser, found beside voir, means what voir means: get or list). */
  readAs: Record<string, string>;
}

export const wordRelations: WordRelations = {
  groups: {
    // Verbs: what an operation does.
    list: { en: ['enumerate'], fr: ['répertorier'] },
    get: { en: ['retrieve', 'obtain', 'display'], fr: ['visualiser', 'regarder'] },
    set: { en: ['specify'], fr: ['spécifier'] },
    create: { en: ['creation'] },
    add: { en: ['append', 'tack on'], fr: ['joindre', 'adjoindre', 'rattacher', 'annexer', 'rajouter', 'insérer'] },
    update: {
      en: [
        'soften',
        'tone down',
        'moderate',
        'temper',
        'improve',
        'rephrase',
        'paraphrase',
        'restate',
        'refine',
        'simplify',
        'customise',
        'personalize',
        'personalise',
        'shorten',
        'flesh out',
        'tighten',
        'adjust',
        'replace',
        'substitute',
      ],
      fr: [
        'retoucher',
        'remanier',
        'remplacer',
        'substituer',
        'amender',
        'adoucir',
        'atténuer',
        'édulcorer',
        'modérer',
        'tempérer',
        'améliorer',
        'transformer',
      ],
    },
    delete: {
      en: ['rub out', 'wipe off', 'wipe out', 'scratch out', 'expunge', 'strike', 'excise', 'trash', 'junk'],
      fr: ['rayer', 'biffer', 'gommer', 'barrer', 'raturer', 'détruire', 'radier'],
    },
    remove: {
      means: 'delete remove',
      en: [
        'take off',
        'took off',
        'taken off',
        'take out',
        'took out',
        'taken out',
        'withdraw',
        'withdrew',
        'withdrawn',
        'oust',
        'expel',
        'boot out',
        'toss',
        'toss out',
        'chuck out',
        'weed out',
        'eliminate',
      ],
      fr: ['détacher', 'retrancher'],
    },
    duplicate: { en: ['replicate'], fr: ['recopier'] },
    accept: { en: ['adopt'], fr: ['adopter'] },
    reject: {
      means: 'reject rejected',
      en: ['spurn', 'rebuff', 'disapprove', 'repudiate', 'rule out'],
      fr: ['repousser', 'récuser', 'recaler', 'blackbouler', 'inexact'],
    },
    resolve: { en: ['settle', 'brush aside', 'brush off', 'shrug off', 'laugh off'], fr: ['solutionner', 'dénouer'] },
    review: {
      means: 'review validated',
      en: ['endorse', 'indorse', 'sanction', 'rubberstamp', 'uphold', 'reconfirm', 'reexamine'],
      fr: ['homologuer'],
    },
    propose: { en: ['put forward'] },
    reorder: { en: ['rank'] },
    start: {
      en: ['begin', 'began', 'begun', 'commence', 'kick off', 'start up', 'restart'],
      fr: ['commencer', 'entamer', 'amorcer'],
    },
    cancel: { en: ['call off', 'scrub', 'countermand', 'pull the plug', 'cut short', 'discontinue'], fr: ['suspendre'] },
    end: { en: ['wrap up', 'finish off', 'finish up', 'wind up'], fr: ['clore', 'finir'] },
    test: { en: ['try out', 'verify', 'tryout', 'trial run'], fr: ['vérifier'] },
    generate: { en: ['produce', 'remake', 'recast', 'reconstruct', 'write up'], fr: ['reconstruire', 'reconstituer', 'refondre', 'récrire', 'produire'] },
    suggest: { en: ['advise'], fr: ['conseiller'] },
    publish: { en: ['bring out', 'brought out', 'put out', 'send out', 'send off', 'republish', 'publication', 'finalise'], fr: ['transmettre'] },
    close: { en: ['closure'] },
    reply: { en: ['retort', 'riposte'], fr: ['répliquer', 'rétorquer'] },
    ask: { en: ['query'] },
    revoke: { en: ['revocation'] },
    // Nouns: what an operation acts on.
    engagement: { fr: ['mandat'] },
    method: { en: ['methodology'] },
    version: { fr: ['mouture'] },
    guide: { fr: ['canevas'] },
    topic: { en: ['subject'] },
    change: { means: 'update', en: ['amend', 'alter', 'modification'], fr: ['modification'] },
    contradiction: { en: ['clash', 'discrepancy'], fr: ['divergence', 'différend', 'décalage'] },
    evidence: { en: ['testimony'], fr: ['témoignage'] },
    finding: { en: ['discovery'], fr: ['leçon', 'résultat'] },
    summary: { en: ['synopsis', 'rundown', 'roundup'], fr: ['condensé'] },
    source: { en: ['provenance'], fr: ['provenance'] },
    recording: { en: ['tape', 'video', 'audiotape', 'soundtrack'], fr: ['bande'] },
    draft: { fr: ['avant-projet'] },
    recommendation: { fr: ['conseil'] },
    comment: { en: ['annotation', 'commentary'], fr: ['annotation'] },
    cost: { en: ['disbursement'], fr: ['frais'] },
    alert: { en: ['alarm', 'heads-up'] },
    member: { en: ['co-worker', 'fellow worker'], fr: ['collaborateur', 'confrère', 'consœur'] },
    logo: { en: ['logotype'] },
    workspace: { en: ['consulting firm'] },
    budget: { en: ['ceiling', 'upper limit'] },
    role: { fr: ['habilitation'] },
    compliance: { en: ['conformity'] },
    description: { means: 'openapi description', en: ['specification'] },
    driver: { fr: ['prestataire'] },
  },
  readAs: {
    display: 'get list',
    visualiser: 'get list',
    regarder: 'get list',
    reexamine: 'review',
    'brush aside': 'reject resolve',
    'brush off': 'reject resolve',
    'shrug off': 'reject resolve',
    'laugh off': 'reject resolve',
    modification: 'change proposal',
  },
};
