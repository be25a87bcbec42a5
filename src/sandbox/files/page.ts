// The neutral form every document-like export renders from: titled pages of headed paragraphs. The
// PDF, DOCX, PPTX and HTML writers each lay it out their own way, so they always agree on content.

export interface Paragraph {
  /** heading: a section title; text: body text; bullet: a list item; quote: a verbatim. */
  style: 'heading' | 'text' | 'bullet' | 'quote';
  text: string;
}

export interface Page {
  title: string;
  paragraphs: Paragraph[];
}

export interface Rendered {
  /** The whole file's title (document properties, HTML <title>, PDF /Title). */
  title: string;
  pages: Page[];
}
