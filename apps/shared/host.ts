// Every view's link to its host (MCP Apps, ui/initialize over postMessage): the tool's result as it
// arrives, the host's theme, fonts and locale applied now and whenever they change, and the
// server's tools called through the host (a view makes no network request of its own).
import { App, applyDocumentTheme, applyHostFonts, applyHostStyleVariables, type McpUiHostContext } from '@modelcontextprotocol/ext-apps';
import { h } from './dom.js';
import { setLocale } from './i18n.js';

export interface ToolResultLike {
  structuredContent?: Record<string, unknown> | undefined;
  isError?: boolean | undefined;
  content?: unknown[];
}

function applyContext(ctx: McpUiHostContext | undefined): void {
  if (!ctx) return;
  if (ctx.theme) {
    applyDocumentTheme(ctx.theme);
    document.documentElement.dataset.theme = ctx.theme;
  }
  if (ctx.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
  if (ctx.styles?.css?.fonts) applyHostFonts(ctx.styles.css.fonts);
  if (ctx.locale) setLocale(ctx.locale);
}

/**
 * Connects the view: `render` runs with each tool result, and again when the host's context
 * (theme, locale) changes, so the words follow the locale without a new call (`rerender` instead,
 * for a view whose state has moved on since the result).
 */
export async function startView(name: string, render: (result: ToolResultLike) => void, rerender?: () => void): Promise<App> {
  const app = new App({ name, version: '1.0.0' }, {}, { autoResize: true });
  let last: ToolResultLike | undefined;
  app.ontoolresult = (r) => {
    last = r as ToolResultLike;
    render(last);
  };
  app.onhostcontextchanged = (ctx) => {
    applyContext({ ...app.getHostContext(), ...ctx });
    if (rerender) rerender();
    else if (last) render(last);
  };
  await app.connect();
  applyContext(app.getHostContext());
  return app;
}

/** The text of a tool result, for errors shown as they are. */
export function textOf(r: ToolResultLike): string {
  const first = (r.content ?? []).find((c): c is { type: 'text'; text: string } => (c as { type?: string }).type === 'text');
  return first?.text ?? '';
}

/**
 * The view drawn afresh for result `r`: emptied and no longer busy; an error, or a result without
 * structured content, shown as its text (or `fallback`) and undefined answered, else the content.
 */
export function freshResult(root: HTMLElement, r: ToolResultLike, fallback: string): Record<string, unknown> | undefined {
  root.setAttribute('aria-busy', 'false');
  root.replaceChildren();
  const o = r.structuredContent;
  if (r.isError || !o) {
    root.append(h('p', { class: 'error', role: 'alert' }, textOf(r) || fallback));
    return undefined;
  }
  return o;
}

/** A value as an object: `v` itself when it is one (not an array), else an empty object. */
export const rec = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
