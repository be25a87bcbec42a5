// The printable export: one complete HTML5 page with print styles, each Page starting on a new sheet.
import type { Rendered } from './page.js';
import { esc } from './xml.js';

export function html(doc: Rendered, lang = 'fr'): Buffer {
  const sections = doc.pages.map((p) => {
    const body: string[] = [];
    let list: string[] = [];
    const flush = () => {
      if (list.length) body.push(`<ul>${list.join('')}</ul>`);
      list = [];
    };
    for (const para of p.paragraphs) {
      if (para.style === 'bullet') {
        list.push(`<li>${esc(para.text)}</li>`);
        continue;
      }
      flush();
      if (para.style === 'heading') body.push(`<h2>${esc(para.text)}</h2>`);
      else if (para.style === 'quote') body.push(`<blockquote>${esc(para.text)}</blockquote>`);
      else body.push(`<p>${esc(para.text)}</p>`);
    }
    flush();
    return `<section>\n<h1>${esc(p.title)}</h1>\n${body.join('\n')}\n</section>`;
  });
  const page = `<!DOCTYPE html>
<html lang="${esc(lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc.title)}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 48rem; margin: 2rem auto; line-height: 1.5; color: #1d1d1f; }
blockquote { border-left: 3px solid #8a6d3b; margin-left: 0; padding-left: 1rem; font-style: italic; }
@media print { section { break-after: page; } body { margin: 0; } }
</style>
</head>
<body>
${sections.join('\n')}
</body>
</html>
`;
  return Buffer.from(page, 'utf8');
}
