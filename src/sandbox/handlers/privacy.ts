// Privacy: download of a compliance document, rendered as a PDF from its stored sections.
import { pdf } from '../files/pdf.js';
import type { HandlerTable } from '../types.js';

export const privacyHandlers: HandlerTable = {
  // Not documented (the privacy area's other operations are "not shown"): answered should the router
  // know the route, so compliance documents can be found without knowing their ids.
  'GET /compliance-documents': (ctx) =>
    ctx.page(
      ctx.ws
        .c('compliance_documents')
        .all()
        .map(({ sections: _s, ...d }) => d),
    ),

  'GET /compliance-documents/{document}/download': (ctx) => {
    const doc = ctx.ws.c('compliance_documents').must(ctx.params.document ?? '', 'compliance document');
    const sections = (doc.sections as { title: string; text: string }[] | undefined) ?? [];
    const body = pdf({
      title: `${String(doc.name)} (${String(doc.version)})`,
      pages: sections.map((s) => ({ title: s.title, paragraphs: [{ style: 'text' as const, text: s.text }] })),
    });
    return { file: { contentType: 'application/pdf', filename: String(doc.filename), body, size: body.length } };
  },
};
