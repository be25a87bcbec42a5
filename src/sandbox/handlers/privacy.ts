// Privacy: download of a compliance document, rendered as a PDF from its stored sections.

import { seedPrivacy } from '../data/privacy.js';
import { pdf } from '../files/pdf.js';
import type { HandlerTable, SandboxArea } from '../types.js';

const handlers: HandlerTable = {
  // Not documented (the privacy area's other operations are "not shown"): answered should the router
  // know the route, so compliance documents can be found without knowing their ids.
  list_compliance_documents: (ctx) =>
    ctx.page(
      ctx.ws
        .c('compliance_documents')
        .all()
        .map(({ sections: _s, ...d }) => d),
    ),

  download_compliance_document: (ctx) => {
    const doc = ctx.ws.c('compliance_documents').must(ctx.params.document ?? '', 'compliance document');
    const sections = (doc.sections as { title: string; text: string }[] | undefined) ?? [];
    const body = pdf({
      title: `${String(doc.name)} (${String(doc.version)})`,
      pages: sections.map((s) => ({ title: s.title, paragraphs: [{ style: 'text' as const, text: s.text }] })),
    });
    return { file: { contentType: 'application/pdf', filename: String(doc.filename), body, size: body.length } };
  },
};

export const area: SandboxArea = {
  toolset: 'privacy',
  handlers,
  seeds: [seedPrivacy],
  demo: {
    compliance_document: (ws) => ws.c('compliance_documents').all()[0]?.id,
  },
};
