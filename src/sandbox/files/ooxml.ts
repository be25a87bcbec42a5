// Minimal Office Open XML packages (ECMA-376) that Word and PowerPoint open: only the parts each
// application insists on, with direct formatting instead of style parts.
import type { Rendered } from './page.js';
import { esc, XML_DECL } from './xml.js';
import { zip } from './zip.js';

const NS_R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const REL_DOC = `${NS_R}/officeDocument`;
const REL_CORE = 'http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties';

function rels(items: { id: string; type: string; target: string }[]): string {
  const body = items.map((r) => `<Relationship Id="${r.id}" Type="${r.type}" Target="${r.target}"/>`).join('');
  return `${XML_DECL}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${body}</Relationships>`;
}

function coreProps(title: string): string {
  return `${XML_DECL}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>${esc(title)}</dc:title><dc:creator>Workspace Consulting</dc:creator></cp:coreProperties>`;
}

function contentTypes(overrides: Record<string, string>): string {
  const o = Object.entries(overrides)
    .map(([part, type]) => `<Override PartName="${part}" ContentType="${type}"/>`)
    .join('');
  return `${XML_DECL}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>${o}</Types>`;
}

// ---------------------------------------------------------------- Word

function wordRun(text: string, opts: { bold?: boolean; italic?: boolean; size?: number } = {}): string {
  const props = [opts.bold ? '<w:b/>' : '', opts.italic ? '<w:i/>' : '', opts.size ? `<w:sz w:val="${opts.size}"/>` : ''].join('');
  return `<w:r>${props ? `<w:rPr>${props}</w:rPr>` : ''}<w:t xml:space="preserve">${esc(text)}</w:t></w:r>`;
}

export function docx(doc: Rendered): Buffer {
  const body: string[] = [];
  doc.pages.forEach((page, i) => {
    // A page break before each page but the first: one document kind or section per page.
    const br = i > 0 ? '<w:r><w:br w:type="page"/></w:r>' : '';
    body.push(`<w:p>${br}${wordRun(page.title, { bold: true, size: 36 })}</w:p>`);
    for (const p of page.paragraphs) {
      if (p.style === 'heading') body.push(`<w:p>${wordRun(p.text, { bold: true, size: 28 })}</w:p>`);
      else if (p.style === 'bullet') body.push(`<w:p><w:pPr><w:ind w:left="360"/></w:pPr>${wordRun(`• ${p.text}`)}</w:p>`);
      else if (p.style === 'quote') body.push(`<w:p><w:pPr><w:ind w:left="720"/></w:pPr>${wordRun(`« ${p.text} »`, { italic: true })}</w:p>`);
      else body.push(`<w:p>${wordRun(p.text)}</w:p>`);
    }
  });
  const document = `${XML_DECL}<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="${NS_R}"><w:body>${body.join('')}<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/></w:sectPr></w:body></w:document>`;
  return zip([
    {
      name: '[Content_Types].xml',
      content: contentTypes({ '/word/document.xml': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml' }),
    },
    {
      name: '_rels/.rels',
      content: rels([
        { id: 'rId1', type: REL_DOC, target: 'word/document.xml' },
        { id: 'rId2', type: REL_CORE, target: 'docProps/core.xml' },
      ]),
    },
    { name: 'docProps/core.xml', content: coreProps(doc.title) },
    { name: 'word/document.xml', content: document },
  ]);
}

// ---------------------------------------------------------------- PowerPoint

const NS_A = 'http://schemas.openxmlformats.org/drawingml/2006/main';
const NS_P = 'http://schemas.openxmlformats.org/presentationml/2006/main';
const SLIDE_W = 12192000; // 16:9 in EMU
const SLIDE_H = 6858000;

// PowerPoint refuses a package without a theme, and a theme without its three schemes.
const THEME = `${XML_DECL}<a:theme xmlns:a="${NS_A}" name="Sandbox"><a:themeElements><a:clrScheme name="Sandbox"><a:dk1><a:srgbClr val="1D1D1F"/></a:dk1><a:lt1><a:srgbClr val="FFFFFF"/></a:lt1><a:dk2><a:srgbClr val="44546A"/></a:dk2><a:lt2><a:srgbClr val="E7E6E6"/></a:lt2><a:accent1><a:srgbClr val="8A6D3B"/></a:accent1><a:accent2><a:srgbClr val="ED7D31"/></a:accent2><a:accent3><a:srgbClr val="A5A5A5"/></a:accent3><a:accent4><a:srgbClr val="FFC000"/></a:accent4><a:accent5><a:srgbClr val="5B9BD5"/></a:accent5><a:accent6><a:srgbClr val="70AD47"/></a:accent6><a:hlink><a:srgbClr val="0563C1"/></a:hlink><a:folHlink><a:srgbClr val="954F72"/></a:folHlink></a:clrScheme><a:fontScheme name="Sandbox"><a:majorFont><a:latin typeface="Calibri"/><a:ea typeface=""/><a:cs typeface=""/></a:majorFont><a:minorFont><a:latin typeface="Calibri"/><a:ea typeface=""/><a:cs typeface=""/></a:minorFont></a:fontScheme><a:fmtScheme name="Sandbox"><a:fillStyleLst><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:fillStyleLst><a:lnStyleLst><a:ln w="6350"><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:ln><a:ln w="12700"><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:ln><a:ln w="19050"><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:ln></a:lnStyleLst><a:effectStyleLst><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle></a:effectStyleLst><a:bgFillStyleLst><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:bgFillStyleLst></a:fmtScheme></a:themeElements></a:theme>`;

const EMPTY_TREE = `<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>`;

const MASTER = `${XML_DECL}<p:sldMaster xmlns:a="${NS_A}" xmlns:r="${NS_R}" xmlns:p="${NS_P}"><p:cSld><p:spTree>${EMPTY_TREE}</p:spTree></p:cSld><p:clrMap bg1="lt1" tx1="dk1" bg2="lt2" tx2="dk2" accent1="accent1" accent2="accent2" accent3="accent3" accent4="accent4" accent5="accent5" accent6="accent6" hlink="hlink" folHlink="folHlink"/><p:sldLayoutIdLst><p:sldLayoutId id="2147483649" r:id="rId1"/></p:sldLayoutIdLst></p:sldMaster>`;

const LAYOUT = `${XML_DECL}<p:sldLayout xmlns:a="${NS_A}" xmlns:r="${NS_R}" xmlns:p="${NS_P}" type="blank" preserve="1"><p:cSld name="Blank"><p:spTree>${EMPTY_TREE}</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sldLayout>`;

function textBox(id: number, name: string, y: number, h: number, paragraphs: string): string {
  return `<p:sp><p:nvSpPr><p:cNvPr id="${id}" name="${name}"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr><a:xfrm><a:off x="457200" y="${y}"/><a:ext cx="${SLIDE_W - 914400}" cy="${h}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr><p:txBody><a:bodyPr wrap="square"><a:normAutofit/></a:bodyPr><a:lstStyle/>${paragraphs}</p:txBody></p:sp>`;
}

function slide(title: string, lines: { text: string; bold?: boolean; italic?: boolean }[]): string {
  const para = (text: string, size: number, bold = false, italic = false) =>
    `<a:p><a:r><a:rPr lang="fr-FR" sz="${size}"${bold ? ' b="1"' : ''}${italic ? ' i="1"' : ''} dirty="0"/><a:t>${esc(text)}</a:t></a:r></a:p>`;
  const body = lines.length ? lines.map((l) => para(l.text, 1600, l.bold, l.italic)).join('') : '<a:p><a:endParaRPr lang="fr-FR"/></a:p>';
  return `${XML_DECL}<p:sld xmlns:a="${NS_A}" xmlns:r="${NS_R}" xmlns:p="${NS_P}"><p:cSld><p:spTree>${EMPTY_TREE}${textBox(2, 'Title', 365760, 914400, para(title, 3200, true))}${textBox(3, 'Body', 1463040, SLIDE_H - 1828800, body)}</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sld>`;
}

const SLIDE_LINES = 12;

export function pptx(doc: Rendered): Buffer {
  // One slide per page, continued on further slides when a page has more lines than fit.
  const slides: string[] = [];
  for (const page of doc.pages) {
    const lines = page.paragraphs.map((p) => ({
      text: p.style === 'bullet' ? `• ${p.text}` : p.style === 'quote' ? `« ${p.text} »` : p.text,
      bold: p.style === 'heading',
      italic: p.style === 'quote',
    }));
    for (let i = 0; i === 0 || i < lines.length; i += SLIDE_LINES) slides.push(slide(page.title, lines.slice(i, i + SLIDE_LINES)));
  }
  if (!slides.length) slides.push(slide(doc.title, []));
  const T = 'application/vnd.openxmlformats-officedocument.presentationml';
  const types: Record<string, string> = {
    '/ppt/presentation.xml': `${T}.presentation.main+xml`,
    '/ppt/slideMasters/slideMaster1.xml': `${T}.slideMaster+xml`,
    '/ppt/slideLayouts/slideLayout1.xml': `${T}.slideLayout+xml`,
    '/ppt/theme/theme1.xml': 'application/vnd.openxmlformats-officedocument.theme+xml',
  };
  for (const i of slides.keys()) types[`/ppt/slides/slide${i + 1}.xml`] = `${T}.slide+xml`;
  const sldIds = slides.map((_, i) => `<p:sldId id="${256 + i}" r:id="rId${i + 2}"/>`).join('');
  const presentation = `${XML_DECL}<p:presentation xmlns:a="${NS_A}" xmlns:r="${NS_R}" xmlns:p="${NS_P}"><p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst><p:sldIdLst>${sldIds}</p:sldIdLst><p:sldSz cx="${SLIDE_W}" cy="${SLIDE_H}"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>`;
  const relType = (t: string) => `${NS_R}/${t}`;
  const presRels = [
    { id: 'rId1', type: relType('slideMaster'), target: 'slideMasters/slideMaster1.xml' },
    ...slides.map((_, i) => ({ id: `rId${i + 2}`, type: relType('slide'), target: `slides/slide${i + 1}.xml` })),
    { id: `rId${slides.length + 2}`, type: relType('theme'), target: 'theme/theme1.xml' },
  ];
  return zip([
    { name: '[Content_Types].xml', content: contentTypes(types) },
    {
      name: '_rels/.rels',
      content: rels([
        { id: 'rId1', type: REL_DOC, target: 'ppt/presentation.xml' },
        { id: 'rId2', type: REL_CORE, target: 'docProps/core.xml' },
      ]),
    },
    { name: 'docProps/core.xml', content: coreProps(doc.title) },
    { name: 'ppt/presentation.xml', content: presentation },
    { name: 'ppt/_rels/presentation.xml.rels', content: rels(presRels) },
    { name: 'ppt/slideMasters/slideMaster1.xml', content: MASTER },
    {
      name: 'ppt/slideMasters/_rels/slideMaster1.xml.rels',
      content: rels([
        { id: 'rId1', type: relType('slideLayout'), target: '../slideLayouts/slideLayout1.xml' },
        { id: 'rId2', type: relType('theme'), target: '../theme/theme1.xml' },
      ]),
    },
    { name: 'ppt/slideLayouts/slideLayout1.xml', content: LAYOUT },
    {
      name: 'ppt/slideLayouts/_rels/slideLayout1.xml.rels',
      content: rels([{ id: 'rId1', type: relType('slideMaster'), target: '../slideMasters/slideMaster1.xml' }]),
    },
    { name: 'ppt/theme/theme1.xml', content: THEME },
    ...slides.flatMap((content, i) => [
      { name: `ppt/slides/slide${i + 1}.xml`, content },
      {
        name: `ppt/slides/_rels/slide${i + 1}.xml.rels`,
        content: rels([{ id: 'rId1', type: relType('slideLayout'), target: '../slideLayouts/slideLayout1.xml' }]),
      },
    ]),
  ]);
}
