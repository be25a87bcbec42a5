// The ranking's own rules, on the catalog in-process (find_operations over MCP is tested in
// retrieval.test.ts): word forms folded alike in English and French, the order of a phrase's words,
// a past participle read as a state, and the words of the vocabulary and the reviewed word relations
// read from data.
import { describe, expect, it } from 'vitest';
import { catalog } from '../../../catalog/index.js';
import { vocabulary } from '../../../catalog/vocabulary.js';
import { wordRelations } from '../../../catalog/word-relations.js';
import { languageOf, OperationIndex, terms } from '../../../src/mcp/operations/search.js';

const index = new OperationIndex(catalog);
const first = (query: string) => index.search(query, { limit: 1 })[0]?.op.name;
const top = (query: string) => index.search(query, { limit: 3 }).map((m) => m.op.name);
const CLIENT_COMPANIES = ['create_client_company', 'get_client_company', 'list_client_companies'];
/** Requests in which the client is not the object: no client company operation among their first three. */
const expectNoClientCompany = (queries: string[]) => {
  for (const query of queries)
    expect(
      top(query).filter((name) => CLIENT_COMPANIES.includes(name)),
      query,
    ).toEqual([]);
};

describe('search', () => {
  it("folds the forms of one word alike with its language's stemmer, accents and case aside", () => {
    const same = (lang: 'en' | 'fr', ...words: string[]) => expect(new Set(words.map((w) => terms(w, lang).join(' '))).size, words.join(', ')).toBe(1);
    same('en', 'propose', 'proposed', 'proposes', 'proposing');
    same('en', 'generate', 'generated', 'generation');
    same('fr', 'proposer', 'proposé', 'proposée', 'proposés', 'proposez', 'propose');
    same('fr', 'publier', 'publié', 'publiée', 'Publiées');
    same('fr', 'valider', 'validé', 'validée', 'validez', 'VALIDE');
    same('en', 'findings', 'finding');
    same('en', 'speech-to-text', 'speech to text');
    // "finding" is the API's noun, not the verb: "find the engagement" asks for no finding.
    expect(terms('finding')).not.toEqual(terms('find'));
  });

  it("reads a request in the language it is written in, an English word's stem in a French request heard too", () => {
    expect(languageOf('les remarques du client sur le livrable')).toBe('fr');
    expect(languageOf('réserver un train')).toBe('fr');
    expect(languageOf("the client's remarks on the deliverable")).toBe('en');
    // "validation" stems alike in both languages; "exporter" is heard as the API's export.
    expect(first('exporter le rapport en PDF')).toBe('create_export');
  });

  it('reads the client report as the deliverable written for the client, not as the client company', () => {
    expect(top('shorten the client report’s introduction')).not.toContain('create_client_company');
    expect(top('le rapport client en PDF')[0]).toBe('create_export');
    expect(top('le rapport client en PDF')).not.toContain('list_client_companies');
  });

  it('reads the client the work goes to (for the client, the client wants or gets) as its audience, not as the client company', () => {
    expectNoClientCompany([
      'the customer wants the final report by Friday, publish it',
      'prepare a PDF of the report for the client',
      'le client veut le rapport en PDF',
    ]);
    // The client as the object, or its own record, is still the client company.
    expect(first('add a new client')).toBe('create_client_company');
    expect(first("change the client's industry to retail")).toBe('create_client_company');
  });

  it('reads what is done with this client as the engagement, not the client company', () => {
    expect(first('which interviews did we run with this client')).toBe('list_interviews');
    expect(top('les entretiens menés avec ce client')).toContain('list_interviews');
    expect(top('les entretiens menés avec ce client')).not.toContain('list_client_companies');
  });

  it('reads what the client asks for, is shown or must not see as about the report, not the client company', () => {
    expectNoClientCompany(['the client asked for the roadmap in PowerPoint', 'show the client what changed since the interim version']);
    // Hidden from the client is kept out of what is published, not received from the client.
    expect(first('hide this quote from the client')).toBe('set_evidence_publishable');
    expect(top('hide this quote from the client')).not.toContain('upload_artifact');
    expect(first('make sure the client never sees the salary figures')).toBe('set_evidence_publishable');
    expect(first('the files the client sent us')).toBe('list_artifacts');
  });

  it("reads the client's people and tools as the client's, and only its own record as the client company", () => {
    expectNoClientCompany(["the client's finance team needs the report as a spreadsheet", 'l’équipe finance du client a besoin du rapport sous Excel']);
    expect(CLIENT_COMPANIES).toContain(first("what sector is the client's business in"));
    expect(CLIENT_COMPANIES).toContain(first('le secteur du client'));
  });

  it('hears signing or ticking a finding off with the finding said between the verb and its particle', () => {
    expect(first('tick these two conclusions off')).toBe('review_finding');
    expect(first('the partner read it and signed the finding off')).toBe('review_finding');
    expect(first('sign it off')).toBe('review_finding');
  });

  it('weighs what a request focuses on as its subject matter, as what it is about', () => {
    expect(top('ideas for guide topics, focusing on the usage budget')).not.toContain('get_usage_budget');
    expect(first('des thèmes d’entretien centrés sur la conformité')).not.toBe('download_compliance_document');
  });

  it('reads accounts that do not line up, add up or tally as a contradiction, in French as in English', () => {
    expect(first('the figures the two managers gave don’t add up')).toBe('list_contradictions');
    expect(first('what people told us about overtime doesn’t tally')).toBe('list_contradictions');
    expect(first('les récits des deux managers ne collent pas')).toBe('list_contradictions');
  });

  it('reads someone’s copy as the one they have, making a copy as duplicating', () => {
    expect(top('take the appendix out of our copy of the report')).not.toContain('duplicate_method');
    expect(top('garde le tableau dans leur copie du rapport')).not.toContain('duplicate_method');
    expect(first('copy the method')).toBe('duplicate_method');
  });

  it('reads going back to what was there as restoring it, revenir à as go back to', () => {
    expect(first('on revient au thème hérité de la méthode pour les outils')).toBe('delete_guide_override');
  });

  it('reads making something the first or the last, or moving it to the top, as its place in an order', () => {
    expect(first('make the tooling topic the last one the interviewer covers')).toBe('reorder_guide_topics');
    expect(first('bump the headcount question to the top')).toBe('reorder_guide_topics');
    expect(first('make Julie an admin')).toBe('update_member_role');
  });

  it('reads having a provider do the work as using it for that work', () => {
    expect(first('have Anthropic handle the interview chat from now on')).toBe('set_ai_profile');
    expect(first('faire faire les transcriptions par Deepgram')).toBe('set_ai_profile');
    // Having someone run a job again is still running it.
    expect(first('have Julie run the analysis again')).toBe('start_analysis_run');
  });

  it('reads a claim of the analysis as a finding', () => {
    expect(first('the claims we have not reviewed yet')).toMatch(/finding/);
  });

  it('reads him or her, the object of a change, as a member of the workspace', () => {
    expect(first('Paul left the firm, remove him')).toBe('remove_member');
    expect(first('drop him from the workspace')).toBe('remove_member');
    expect(first('she is joining next week, add her to the workspace')).toBe('invite_member');
    expect(first('promote her to admin')).toBe('update_member_role');
  });

  it('reads in the end and au final as a way of speaking, not as a final version or an end', () => {
    expect(top('in the end, which topics did the interviews cover')).toContain('get_effective_guide');
    expect(top('in the end, which topics did the interviews cover')).not.toContain('reorder_guide_topics');
    expect(first('publish the final version')).toBe('publish_deliverable');
  });

  it("reads what a reviewer said of the report or one of its versions as the deliverable's comments", () => {
    expect(first('what did the partner think of the latest draft')).toBe('list_deliverable_comments');
    expect(first('what did she write about v3')).toBe('list_deliverable_comments');
    // What they said of anything else is in the interviews.
    expect(first('what did they say about the ERP')).toBe('ask_audit_chat');
  });

  it('reads capping spending as setting a budget, in French as in English', () => {
    expect(first('cap AI costs at 300 a month')).toBe('set_usage_budget');
    expect(first('plafonner les frais d’IA à 300 € par mois')).toBe('set_usage_budget');
  });

  it('reads not letting someone see a thing as keeping it out of what is published', () => {
    expect(first('never let the sponsor read this excerpt')).toBe('set_evidence_publishable');
    expect(first('ne pas laisser le client voir cette citation')).toBe('set_evidence_publishable');
  });

  it('weighs the words of a clause that says when less than those that say what is asked', () => {
    expect(first('what was said while they showed the spreadsheet')).toBe('get_session_transcript');
    expect(top('les captures d’écran prises quand ils ont montré l’ERP')).not.toContain('list_external_sources');
    // A clause that says where in a recording or a conversation weighs as one that says when.
    expect(top('the frame from the moment where he shares the invoice template')).not.toContain('list_method_templates');
    // Told or shown when, the clause is what is asked.
    expect(top('show me when the report was published')).toContain('list_deliverable_versions');
  });

  it('reads what the client will or would see as the draft previewed, what the client can see as the deliverable published', () => {
    expect(first('what the client would see if we released the report today')).toBe('preview_deliverable_draft');
    expect(first('ce que verra le client si on publie maintenant')).toBe('preview_deliverable_draft');
    // Asked the other way round, in either language.
    expect(first('is the client going to see the appendix if we publish now')).toBe('preview_deliverable_draft');
    expect(first('le client verra-t-il l’annexe si on publie maintenant')).toBe('preview_deliverable_draft');
    expect(first('the part of the report the client can see')).toBe('publish_deliverable');
  });

  it('reads the big picture and a vue d’ensemble as an overview', () => {
    expect(first('donne-moi une vue d’ensemble de ce que l’analyse a trouvé')).toBe('get_analysis_summary');
    expect(index.find('the big picture on our AI spending', { limit: 3 }).strong).toBe(true);
  });

  it('reads who sent what to whom from the order of the words', () => {
    expect(first('the files the client sent us')).toBe('list_artifacts');
    expect(['get_deliverable_snapshot', 'get_deliverable_version', 'list_deliverable_versions']).toContain(first('the version we sent the client'));
  });

  it('reads an English past participle as a state, not as a change asked for', () => {
    const top = index.search('comments on the version we published', { limit: 3 }).map((m) => m.op);
    expect(top[0]?.method).toBe('GET');
    expect(top.map((o) => o.name)).toContain('list_deliverable_comments');
  });

  it("reads a resource's fields, which the spec lists on its write, on its read too", () => {
    // The spec lists retention_raw_days among the fields update_workspace takes; asking what it is is a read.
    expect(first('the retention of raw data in days')).toBe('get_workspace');
  });

  it('hears a word nothing knows as the words that begin as it does', () => {
    // "intro" is no word of the catalog's; the draft's introduction is.
    expect(first('the intro of the report')).toBe('get_deliverable_draft');
  });

  it('says no match is strong for what the API reserves to its web application, whatever words it shares with an operation', () => {
    const weak = (query: string) => !index.find(query, { limit: 3 }).strong;
    // The spec: creating, replacing or deleting an AI key of the workspace is refused to tokens.
    expect(weak('delete the AI key of the workspace')).toBe(true);
    expect(weak('remplacer la clé IA de l’espace')).toBe(true);
    // Personal tokens are created in the web application's API menu.
    expect(weak('create a personal access token')).toBe(true);
    expect(weak('un nouveau jeton personnel pour nos scripts')).toBe(true);
    // An operation that accounts for as much of the request is what is asked.
    expect(weak('check that the Mistral key works')).toBe(false);
    expect(weak('add a colleague to the workspace')).toBe(false);
  });

  it('reads Word as the application only where a file format is said, not in "wording" or "word for word"', () => {
    expect(first('exporter la feuille de route en Word')).toBe('create_export');
    expect(first('the roadmap as a Word file')).toBe('create_export');
    expect(first('adjust the wording of this finding')).toBe('update_finding');
    expect(top('adjust the wording of this finding')).not.toContain('create_export');
    expect(top('word for word what she said')).not.toContain('create_export');
  });

  it("reads writing under someone's note as replying to it, and this very moment as now", () => {
    expect(first('write under her comment that the figure is from June')).toBe('reply_deliverable_comment');
    expect(first('réponds sous son commentaire que le chiffre date de juin')).toBe('reply_deliverable_comment');
    expect(first('who is on a call at this very moment')).toBe('list_live_sessions');
  });

  it('reads now alone as when, not as a live session: the live ones are said with their own expressions', () => {
    expect(first('quelles sections le rapport a-t-il maintenant')).toBe('list_deliverable_documents');
    expect(top('which topics does the guide cover now')).not.toContain('get_latest_frame');
    expect(first('who is interviewing right now')).toBe('list_live_sessions');
  });

  it('takes its words from the vocabulary data: an expression rewritten there changes what is found', () => {
    // "kick ... out" is an expression of catalog/vocabulary.ts, not a word of any entry.
    expect(vocabulary.phrases.some(([re]) => new RegExp(re).test('kick marc out'))).toBe(true);
    expect(first('kick Marc out of the workspace')).toBe('remove_member');
  });

  it('hears the everyday words a reviewed word relation connects to an operation, verbs of several words included', () => {
    // expunge (WordNet: a way to delete), biffer (mythes-fr: supprimer), call off and pull the plug
    // (ways to cancel): words of catalog/word-relations.ts, of no entry nor of the vocabulary.
    expect(first('expunge this finding')).toBe('delete_finding');
    expect(first('biffe ce constat')).toBe('delete_finding');
    // The particle may stand a few words after its verb.
    expect(first('call the analysis off')).toBe('cancel_analysis_run');
    expect(first('pull the plug on the analysis')).toBe('cancel_analysis_run');
    // Replacing a part of something is changing it (WordNet: a kind of change; mythes-fr: modifier).
    expect(first('replace the introduction of the report')).toBe('update_deliverable_draft');
    expect(first('remplace l’introduction du rapport')).toBe('update_deliverable_draft');
  });

  it('hears a word the vocabulary means as get and list as both: the one item asked for is read, not listed', () => {
    // show means 'get list' in catalog/vocabulary.ts; get is also an English stop word.
    expect(first('show me the finding with its evidence')).toBe('get_finding');
  });

  it('reads an address as naming someone, not as words of the request (jane, client, com)', () => {
    const found = index.find('invite marie.dupont@acme-client.com as a consultant', { limit: 3 });
    expect(found.matches[0]?.op.name).toBe('invite_member');
    expect(found.strong).toBe(true);
  });

  it('reads "let me" as asking to do something oneself, and "let someone" as granting them a right', () => {
    expect(first('let me run the analysis again')).toBe('start_analysis_run');
    expect(first('let Julie run the workspace')).toBe('update_member_role');
  });

  it('reads re- written with a hyphen as the word it is joined to, said again', () => {
    expect(first('re-order the topics of the guide')).toBe('reorder_guide_topics');
    expect(first('re-analyse taking the new interviews into account')).toBe('start_analysis_run');
  });

  it('reads a word the stemmer leaves apart from a word it knows as that word (an imperative and its infinitive)', () => {
    // détruis stems apart from détruire, a related word of delete.
    expect(first('détruis ce constat')).toBe('delete_finding');
  });

  it("attaches every word relation to a word of the operations' names, and means the catalog's words", () => {
    const nameWords = new Set(catalog.flatMap((op) => terms(op.name)));
    const catalogWords = new Set(catalog.flatMap((op) => terms([op.name, op.title, op.description, ...(op.askedAs?.en ?? [])].join(' '))));
    for (const [key, group] of Object.entries(wordRelations.groups)) {
      expect(nameWords.has(terms(key)[0] as string), key).toBe(true);
      for (const w of [...(group.en ?? []), ...(group.fr ?? [])]) {
        for (const m of terms(wordRelations.readAs[w] ?? group.means ?? key)) expect(catalogWords.has(m), `${w}: ${m}`).toBe(true);
      }
    }
  });
});
