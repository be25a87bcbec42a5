// Documents of a deliverable, from blocks to readable pages: references are resolved against the
// current records (a finding's statement, an evidence's excerpt) and quotes attributed as the draft says.

import { type Block, DOCUMENT_TITLES, type DocumentKind, label } from '../data/deliverables.js';
import type { Rec, WorkspaceState } from '../types.js';
import type { Page, Paragraph } from './page.js';

/** The collection an item_list block's `item_type` names its records in (document pages and CSV exports alike). */
export const COLLECTION_OF: Record<string, string> = {
  finding: 'findings',
  opportunity: 'opportunities',
  process: 'processes',
  process_step: 'process_steps',
  contradiction: 'contradictions',
  evidence: 'evidences',
  topic: 'guide_topics',
};

/** A record an item of a block points at, only if it belongs to the engagement (no cross-engagement leak). */
function lookup(ws: WorkspaceState, engagementId: string, type: string, id: string): Rec | undefined {
  const collection = COLLECTION_OF[type];
  const r = collection ? ws.c(collection).get(id) : undefined;
  if (!r) return undefined;
  if (r.engagement_id !== undefined && r.engagement_id !== engagementId) return undefined;
  return r;
}

export interface Attribution {
  attribution: string;
  named_interview_ids: string[];
}

/**
 * Who said it, as the deliverable may show it: the interviewee's role, or their name when the draft
 * attributes by name and this interview is among the named ones.
 */
export function speakerOf(ws: WorkspaceState, evidence: Rec, how: Attribution): { interview_id: string | null; speaker: string } {
  let interviewId: string | null = null;
  const source = ws
    .c(evidence.source_type === 'transcript_segment' ? 'transcript_segments' : evidence.source_type === 'pin' ? 'pins' : 'recaps')
    .get(String(evidence.source_id));
  if (source) interviewId = (source.interview_id as string | undefined) ?? null;
  const interview = interviewId ? ws.c('interviews').get(interviewId) : undefined;
  if (!interview) return { interview_id: interviewId, speaker: 'Participant' };
  const named = how.attribution === 'named' && how.named_interview_ids.includes(interview.id);
  const speaker = named ? String(interview.interviewee_name ?? interview.interviewee_role) : String(interview.interviewee_role ?? 'Participant');
  return { interview_id: interview.id, speaker };
}

function blockParagraphs(ws: WorkspaceState, engagementId: string, b: Block, how: Attribution): Paragraph[] {
  const text = typeof b.text === 'string' ? b.text : '';
  const title = typeof b.title === 'string' ? b.title : '';
  const out: Paragraph[] = [];
  switch (b.type) {
    case 'heading':
      if (text || title) out.push({ style: 'heading', text: text || title });
      break;
    case 'paragraph':
    case 'message':
    case 'callout':
      if (title) out.push({ style: 'heading', text: title });
      if (text) out.push({ style: 'text', text: b.type === 'callout' && b.tone === 'caution' ? `Attention : ${text}` : text });
      break;
    case 'key_figures':
      if (title) out.push({ style: 'heading', text: title });
      for (const item of (b.items as string[] | undefined) ?? []) out.push({ style: 'bullet', text: item });
      break;
    case 'item_list': {
      if (title) out.push({ style: 'heading', text: title });
      const type = String(b.item_type ?? 'finding');
      for (const id of (b.ids as string[] | undefined) ?? []) {
        const r = lookup(ws, engagementId, type, id);
        if (r) out.push({ style: 'bullet', text: label(r) });
      }
      for (const item of (b.items as string[] | undefined) ?? []) out.push({ style: 'bullet', text: item });
      break;
    }
    case 'table': {
      if (title) out.push({ style: 'heading', text: title });
      const opts = (b.options ?? {}) as { columns?: string[]; rows?: string[][] };
      if (opts.columns) out.push({ style: 'text', text: opts.columns.join(' | ') });
      for (const row of opts.rows ?? []) out.push({ style: 'text', text: row.join(' | ') });
      break;
    }
    case 'chart':
      out.push({ style: 'text', text: `[${title || String(b.chart ?? 'chart')}]` });
      break;
    case 'process': {
      const p = lookup(ws, engagementId, 'process', String(b.process_id ?? ''));
      if (p) {
        out.push({ style: 'heading', text: label(p) });
        const steps = ws.c('process_steps').all((s) => s.process_id === p.id);
        steps.sort((x, y) => Number(x.position ?? 0) - Number(y.position ?? 0));
        for (const s of steps) out.push({ style: 'bullet', text: label(s) });
      }
      break;
    }
    case 'quote': {
      const e = b.evidence_id ? lookup(ws, engagementId, 'evidence', String(b.evidence_id)) : undefined;
      const said = text || String(e?.excerpt ?? '');
      if (said) out.push({ style: 'quote', text: e ? `${said} (${speakerOf(ws, e, how).speaker})` : said });
      break;
    }
  }
  return out;
}

/** One document as one page (its title, then its blocks in order). */
export function documentPage(ws: WorkspaceState, engagementId: string, doc: Record<string, unknown>, how: Attribution): Page {
  const kind = String(doc.kind) as DocumentKind;
  const title = typeof doc.title === 'string' ? doc.title : (DOCUMENT_TITLES[kind]?.fr ?? kind);
  const paragraphs = ((doc.blocks as Block[] | undefined) ?? []).flatMap((b) => blockParagraphs(ws, engagementId, b, how));
  return { title, paragraphs };
}
