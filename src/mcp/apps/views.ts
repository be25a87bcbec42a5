// The MCP Apps views (extension io.modelcontextprotocol/ui): the three `ui://` resources a host
// renders a tool's result with, and how a tool names its view. The HTML is built from apps/<name>/
// by `npm run build` (scripts/build-apps.ts) into dist/apps/<name>.html, one self-contained file per
// view: inline script and style, nothing remote, so the CSP declares no domain at all. Tools name their
// view for every client alike: a host without apps ignores _meta.ui, and one tool list serves every
// connection of a member (the 2026 era caches it across connections).
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReadResourceResult } from '@modelcontextprotocol/server';

export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

export const VIEWS = {
  review_board: { uri: 'ui://workspace-consulting/review-board', title: 'Finding review board' },
  engagement_dashboard: { uri: 'ui://workspace-consulting/engagement-dashboard', title: 'Engagement dashboard' },
  document_preview: { uri: 'ui://workspace-consulting/document-preview', title: 'Deliverable document preview' },
} as const;
export type ViewName = keyof typeof VIEWS;

/** `_meta` of a tool whose result a host renders with this view. */
export function viewMeta(view: ViewName): { ui: { resourceUri: string } } {
  return { ui: { resourceUri: VIEWS[view].uri } };
}

/**
 * What the view's resource declares: no domain of any kind (no connection, no remote script, style,
 * font or frame; every datum comes through the host), and the host's border: the view draws no frame of its own.
 */
const RESOURCE_UI_META = { csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }, prefersBorder: true };

/**
 * Where the built views are: dist/apps of the build this module runs from, found as its nearest
 * dist/ folder (the bundle's chunks are in dist/src, tsc's modules deeper, in dist/unbundled/src/mcp/apps),
 * or under dist/ of the repository when running from sources (tsx, tests: src/mcp/apps).
 */
function viewsDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  if (import.meta.url.endsWith('.ts')) return join(here, '..', '..', '..', 'dist', 'apps');
  for (let dir = here; dirname(dir) !== dir; dir = dirname(dir)) if (basename(dir) === 'dist') return join(dir, 'apps');
  // A build copied outside any dist/: the bundle's layout, src/ beside apps/.
  return join(here, '..', 'apps');
}

function viewPath(view: ViewName): string {
  return join(viewsDir(), `${view}.html`);
}

export function isViewUri(uri: string): boolean {
  return uri.startsWith('ui://');
}

export class ViewNotFoundError extends Error {}

const cache = new Map<ViewName, string>();

/** resources/read of a view: its HTML, read once from the build (`dir`: where the views are built). */
export function readView(uri: string, dir?: string): ReadResourceResult {
  const name = (Object.keys(VIEWS) as ViewName[]).find((n) => VIEWS[n].uri === uri);
  if (!name)
    throw new ViewNotFoundError(
      `Unknown view ${uri.slice(0, 200)}: the views are ${Object.values(VIEWS)
        .map((v) => v.uri)
        .join(', ')}.`,
    );
  let html = cache.get(name);
  if (html === undefined) {
    const file = dir === undefined ? viewPath(name) : join(dir, `${name}.html`);
    // Said without the server's own path: on a shared server the member reading it is not its operator.
    if (!existsSync(file)) throw new Error(`The view ${name} is not built on this server: npm run build writes it (dist/apps/${name}.html).`);
    html = readFileSync(file, 'utf8');
    cache.set(name, html);
  }
  return { contents: [{ uri, mimeType: APP_MIME_TYPE, text: html, _meta: { ui: RESOURCE_UI_META } }] };
}
