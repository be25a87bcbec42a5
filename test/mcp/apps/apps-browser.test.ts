// The three apps in a real browser: the system's Chromium (no browser download; found by name, as npm
// test finds and installs it) driven by playwright-core loads a host page where ext-apps' AppBridge
// renders each view from the server's ui:// resource, and relays the view's tool calls to the server
// over Streamable HTTP (the stack's MCP client), which talks to the sandbox over HTTP. The test takes
// the README's screenshots (fr and en, light and dark) into its temp folder and checks each is a whole
// image of the view: the copies in docs/screenshots are written by `npm run screenshots` only (another
// machine's fonts would rewrite them on every run).
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { type BrowserContext, chromium, type Frame, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLOCK_TYPES, CHARTS } from '../../../catalog/shared.js';
import { ensureAppsBuilt } from '../../../scripts/build-apps.js';
import { VIEWS, type ViewName } from '../../../src/mcp/apps/views.js';
import { ENGAGEMENT_AP } from '../../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { findProgram } from '../../helpers/programs.js';
import { type Stack, startStack } from '../../helpers/stack.js';

/**
 * The page's globals as the callbacks playwright runs in the page see them: the host page's own
 * (host/host-page.ts) and the few DOM ones used (this file compiles without the DOM types). Each
 * callback names them through `globalThis as unknown as PageGlobals`, a cast that leaves no code.
 */
interface PageGlobals {
  mount(args: { html: string; input: Record<string, unknown>; result: Record<string, unknown>; context: Record<string, unknown> }): Promise<void>;
  setContext(context: Record<string, unknown>): Promise<void>;
  modelContext: unknown[];
  toolCalls: unknown[];
  document: {
    documentElement: { lang: string; dataset: Record<string, string | undefined> };
    activeElement: { dataset?: Record<string, string | undefined> } | null;
    body: object;
  };
  getComputedStyle(el: object): { fontFamily: string };
  addEventListener(type: 'message', listener: (e: { data: unknown }) => void): void;
  parent: { postMessage(message: unknown, target: string): void };
}

type Json = Record<string, unknown>;

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/** Where `npm run screenshots` wants them (scripts/screenshots.ts); else the test's temp folder. */
const SHOTS_FOR_DOCS = process.env.WCM_SCREENSHOTS_DIR;
/** The viewport's width, and the most of its height a screenshot keeps. */
const WIDTH = 920;
const MAX_HEIGHT = 1100;

let sandbox: SandboxHandle;
let writer: Stack;
let reader: Stack;
let context: BrowserContext;
let page: Page;
let temp: string;
let shots: string;
let hostJs: string;
/** The stack the page's tool calls go to (the session the view was opened in). */
let active: Stack;

beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'wcm-apps-'));
  const [, bundle] = await Promise.all([
    ensureAppsBuilt(),
    build({
      entryPoints: [join(ROOT, 'test/mcp/apps/host/host-page.ts')],
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'browser',
      logLevel: 'silent',
    }),
  ]);
  hostJs = (bundle.outputFiles[0]?.text ?? '').replace(/<\/script/gi, '<\\/script');
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  const env = { WORKSPACE_TOOLSETS: 'default' };
  writer = await startStack({ sandboxHandle: sandbox, env });
  // A member who consented to read only: the read-only surface, whatever the app asks.
  reader = await startStack({ sandboxHandle: sandbox, env, token: 'read', grantedScope: 'read' });
  context = await chromium.launchPersistentContext(join(temp, 'profile'), {
    executablePath: findProgram(
      'chromium',
      'chromium is not installed, and these tests render the views in a real one: install it (Debian: apt-get install -y chromium; Ubuntu: chromium-browser; npm test does this when it is missing and it may).',
    ),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    viewport: { width: WIDTH, height: MAX_HEIGHT },
  });
  page = context.pages()[0] ?? (await context.newPage());
  await page.exposeFunction('mcpCallTool', async (params: { name: string; arguments?: Record<string, unknown> }) =>
    active.client.callTool({ name: params.name, arguments: params.arguments ?? {} }),
  );
  shots = SHOTS_FOR_DOCS ?? join(temp, 'screenshots');
  await mkdir(shots, { recursive: true });
}, 120_000);

afterAll(async () => {
  await context?.close();
  await writer?.close();
  await reader?.close();
  await sandbox?.close();
  await rm(temp, { recursive: true, force: true });
});

/** A host font, to see the view take it. */
const HOST_FONT = { '--font-sans': 'Georgia, serif' };
function hostContext(locale: 'fr' | 'en', theme: 'light' | 'dark'): Record<string, unknown> {
  return { theme, locale: locale === 'fr' ? 'fr-FR' : 'en-GB', styles: { variables: HOST_FONT }, displayMode: 'inline' };
}

/** Opens a tool's result in its view as a host does: the tool called, its ui:// resource read, both over MCP. */
async function open(stack: Stack, view: ViewName, tool: string, args: Record<string, unknown>, locale: 'fr' | 'en' = 'en', theme: 'light' | 'dark' = 'light') {
  active = stack;
  const result = await stack.client.callTool({ name: tool, arguments: args });
  const res = await stack.client.readResource({ uri: VIEWS[view].uri });
  const html = (res.contents[0] as { text: string }).text;
  await page.setContent(`<!doctype html><html><body style="margin:0"><script>${hostJs}</script></body></html>`);
  await page.evaluate((a) => (globalThis as unknown as PageGlobals).mount(a), {
    html,
    input: args,
    result: result as Record<string, unknown>,
    context: hostContext(locale, theme),
  });
  const frame = await appFrame();
  return { result, frame };
}

async function appFrame(): Promise<Frame> {
  const handle = await page.waitForSelector('iframe');
  const frame = await handle.contentFrame();
  if (!frame) throw new Error('no app frame');
  return frame;
}

/** The four screenshots of a view: the host's context changed in place (theme, locale), no new call. */
async function screenshots(name: string, frame: Frame, ready: string): Promise<void> {
  for (const [locale, theme] of [
    ['en', 'light'],
    ['fr', 'light'],
    ['en', 'dark'],
    ['fr', 'dark'],
  ] as const) {
    await page.evaluate((c) => (globalThis as unknown as PageGlobals).setContext(c), hostContext(locale, theme));
    await frame.waitForFunction(
      ([l, t]) =>
        (globalThis as unknown as PageGlobals).document.documentElement.lang === l &&
        (globalThis as unknown as PageGlobals).document.documentElement.dataset.theme === t,
      [locale, theme],
    );
    await frame.waitForSelector(ready);
    const box = await page.locator('iframe').boundingBox();
    const height = Math.min(MAX_HEIGHT, Math.ceil(box?.height ?? MAX_HEIGHT));
    const path = join(shots, `${name}-${locale}-${theme}.png`);
    await page.screenshot({ path, clip: { x: 0, y: 0, width: WIDTH, height } });
    // A whole image of the view as laid out: a PNG of the clip's size.
    expect(pngSize(await readFile(path)), path).toEqual({ width: WIDTH, height });
  }
}

/** A PNG's width and height, from its header (signature, then the IHDR chunk). */
function pngSize(png: Buffer): { width: number; height: number } | undefined {
  if (png.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a' || png.subarray(12, 16).toString('latin1') !== 'IHDR') return undefined;
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

const reviewPosts = (from: number) =>
  sandbox
    .requests()
    .slice(from)
    .filter((r) => r.method !== 'GET');

describe('the review board', () => {
  it("shows the demo engagement's proposed findings with their evidence excerpts; two validated and one rejected make exactly those three review requests, and the model is told", async () => {
    const { result, frame } = await open(writer, 'review_board', 'review_board', { engagement: ENGAGEMENT_AP });
    const board = result.structuredContent as { findings: { id: string; statement: string; evidences: { excerpt: string }[] }[] };
    expect(board.findings.length).toBe(15);
    await frame.waitForSelector('article[data-finding]');
    expect(await frame.locator('article[data-finding]').count()).toBe(15);
    const shownExcerpts = await frame.locator('[data-evidence] blockquote').allTextContents();
    for (const f of board.findings)
      for (const e of f.evidences)
        expect(
          shownExcerpts.some((t) => t.includes(e.excerpt)),
          e.excerpt,
        ).toBe(true);
    // The host's font variable reaches the view.
    expect(
      await frame.evaluate(() => (globalThis as unknown as PageGlobals).getComputedStyle((globalThis as unknown as PageGlobals).document.body).fontFamily),
    ).toContain('Georgia');
    await screenshots('review_board', frame, 'article[data-finding]');
    await page.evaluate((c) => (globalThis as unknown as PageGlobals).setContext(c), hostContext('en', 'light'));
    await frame.waitForFunction(() => (globalThis as unknown as PageGlobals).document.documentElement.lang === 'en');

    const [a, b, c] = board.findings.map((f) => f.id) as [string, string, string];
    const before = sandbox.requests().length;
    // Two at once from the toolbar (keyboard: the checkboxes and the bulk button), one from its card.
    await frame.locator(`input[data-select="${a}"]`).check();
    await frame.locator(`input[data-select="${b}"]`).focus();
    await page.keyboard.press('Space');
    // Focus stays on the checkbox the keyboard toggled, through the board's re-render.
    expect(await frame.evaluate(() => (globalThis as unknown as PageGlobals).document.activeElement?.dataset?.select)).toBe(b);
    await frame.locator('button[data-bulk="validate"]').click();
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).modelContext.length === 1);
    await frame.locator(`article[data-finding="${c}"] button[data-action="reject"]`).click();
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).modelContext.length === 2);

    const writes = reviewPosts(before);
    expect(writes.map((r) => `${r.method} ${r.path.replace(/^\/api\/v1/, '')} ${(r.body as { review_status?: string }).review_status}`).sort()).toEqual(
      [
        `POST /engagements/${ENGAGEMENT_AP}/findings/${a}/review validated`,
        `POST /engagements/${ENGAGEMENT_AP}/findings/${b}/review validated`,
        `POST /engagements/${ENGAGEMENT_AP}/findings/${c}/review rejected`,
      ].sort(),
    );
    const told = (await page.evaluate(() => (globalThis as unknown as PageGlobals).modelContext)) as {
      content: { text: string }[];
      structuredContent: { decided: { finding: string; review_status: string }[] };
    }[];
    expect(told[0]?.content[0]?.text).toContain(a);
    expect(told[0]?.content[0]?.text).toContain(b);
    expect(told[0]?.structuredContent.decided).toEqual([
      { finding: a, review_status: 'validated' },
      { finding: b, review_status: 'validated' },
    ]);
    expect(told[1]?.content[0]?.text).toContain(c);
    expect(told[1]?.structuredContent.decided).toEqual([{ finding: c, review_status: 'rejected' }]);
    // The decided cards stay (to reopen them) with their new status; the heading counts those still proposed.
    expect(await frame.locator('h1').textContent()).toContain('12 proposed');
    expect(await frame.locator(`article[data-finding="${c}"] button[data-action="reopen"]`).count()).toBe(1);
    // The calls went through the server's own review tool, called by the view through the host.
    expect(((await page.evaluate(() => (globalThis as unknown as PageGlobals).toolCalls)) as { name: string }[]).map((t) => t.name)).toEqual([
      'review_findings',
      'review_findings',
    ]);
  });

  it('edits a statement in place through update_finding', async () => {
    const { result, frame } = await open(writer, 'review_board', 'review_board', { engagement: ENGAGEMENT_AP });
    const first = (result.structuredContent as { findings: { id: string; statement: string }[] }).findings[0]!;
    const before = sandbox.requests().length;
    await frame.locator(`article[data-finding="${first.id}"] button[data-action="edit"]`).click();
    const area = frame.locator(`article[data-finding="${first.id}"] textarea`).first();
    await area.fill(`${first.statement} (edited)`);
    await frame.locator(`article[data-finding="${first.id}"] button`, { hasText: 'Save' }).click();
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).modelContext.length === 1);
    const writes = reviewPosts(before);
    expect(writes.map((r) => `${r.method} ${r.path.replace(/^\/api\/v1/, '')}`)).toEqual([`PATCH /engagements/${ENGAGEMENT_AP}/findings/${first.id}`]);
    expect((writes[0]!.body as { statement?: string }).statement).toBe(`${first.statement} (edited)`);
    await frame.waitForSelector(`text=${first.statement} (edited)`);
  });

  it('asks the server again through the host for another status, and Escape leaves an edit unsaved', async () => {
    const { frame } = await open(writer, 'review_board', 'review_board', { engagement: ENGAGEMENT_AP });
    const validated = (await writer.call('review_board', { engagement: ENGAGEMENT_AP, review_status: 'validated' })).structuredContent as {
      findings: { id: string }[];
    };
    await frame.locator('#status-filter').selectOption('validated');
    await frame.waitForSelector('h1:has-text("validated")');
    const shown = await frame.locator('article[data-finding]').evaluateAll((els) => els.map((e) => e.getAttribute('data-finding')));
    expect(shown).toEqual(validated.findings.map((f) => f.id));
    expect(
      ((await page.evaluate(() => (globalThis as unknown as PageGlobals).toolCalls)) as { name: string; arguments: { review_status?: string } }[]).map((t) => [
        t.name,
        t.arguments.review_status,
      ]),
    ).toEqual([['review_board', 'validated']]);
    const id = shown[0] as string;
    const before = sandbox.requests().length;
    await frame.locator(`article[data-finding="${id}"] button[data-action="edit"]`).click();
    await frame.locator(`article[data-finding="${id}"] textarea`).first().fill('not kept');
    await page.keyboard.press('Escape');
    await frame.waitForSelector(`article[data-finding="${id}"] button[data-action="edit"]`);
    expect(reviewPosts(before)).toEqual([]);
  });

  it('a read-consent session renders no write control, and a write the app sends anyway is refused with nothing sent', async () => {
    const { result, frame } = await open(reader, 'review_board', 'review_board', { engagement: ENGAGEMENT_AP });
    expect((result.structuredContent as { can_write: boolean }).can_write).toBe(false);
    await frame.waitForSelector('article[data-finding]');
    expect(await frame.locator('button, input[type=checkbox], textarea').count()).toBe(0);
    await frame.waitForSelector('[data-read-only]');
    const target = (result.structuredContent as { findings: { id: string }[] }).findings[0]!.id;
    const before = sandbox.requests().length;
    // Straight onto the host channel, as a view that ignored can_write would.
    const answer = (await frame.evaluate(
      ([engagement, finding]) =>
        new Promise<unknown>((done) => {
          (globalThis as unknown as PageGlobals).addEventListener('message', (e) => {
            if ((e.data as { id?: unknown })?.id === 'forced-write') done(e.data);
          });
          (globalThis as unknown as PageGlobals).parent.postMessage(
            {
              jsonrpc: '2.0',
              id: 'forced-write',
              method: 'tools/call',
              params: { name: 'review_findings', arguments: { engagement, reviews: [{ finding, review_status: 'validated' }] } },
            },
            '*',
          );
        }),
      [ENGAGEMENT_AP, target],
    )) as { result?: { isError?: boolean; content: { text: string }[] } };
    expect(answer.result?.isError).toBe(true);
    expect(answer.result?.content[0]?.text).toMatch(/read-only access/);
    expect(reviewPosts(before)).toEqual([]);
  });
});

describe('the engagement dashboard', () => {
  it('draws interview coverage, findings by type and status, open contradictions, the latest run, the deliverable stage and the AI cost', async () => {
    const { result, frame } = await open(writer, 'engagement_dashboard', 'engagement_overview', { engagement: ENGAGEMENT_AP });
    const o = result.structuredContent as { contradictions: { open: number }; ai_cost: { total_eur: number } };
    await frame.waitForSelector('figure[data-chart]');
    const charts = await frame.locator('figure[data-chart]').evaluateAll((els) => els.map((e) => e.getAttribute('data-chart')));
    expect(charts).toEqual(expect.arrayContaining(['interview_coverage', 'topic_coverage', 'findings_by_type', 'findings_by_status', 'ai_cost']));
    expect(await frame.locator('ul.contradictions li').count()).toBe(o.contradictions.open);
    expect(await frame.locator('[role=progressbar]').count()).toBe(1);
    expect(o.ai_cost.total_eur).toBeGreaterThan(0);
    for (const label of ['Findings', 'Open contradictions', 'Latest analysis run', 'Deliverable', 'AI cost so far'])
      expect(await frame.locator(`section.tile[aria-label="${label}"]`).count(), label).toBe(1);
    // Every chart says its figures to a screen reader.
    for (const svg of await frame.locator('figure[data-chart] svg').all()) expect(await svg.getAttribute('aria-label')).toMatch(/\d/);
    await screenshots('engagement_dashboard', frame, 'figure[data-chart]');
  });
});

describe('the document preview', () => {
  it('renders every block type and the five charts of the demo deliverable, refs linked, included and excluded documents shown as such', async () => {
    const blocks = new Set<string>();
    const charts = new Set<string>();
    for (const kind of ['executive_summary', 'coverage', 'pain_map', 'roadmap', 'process_sheets', 'interim_insights']) {
      const { frame, result } = await open(writer, 'document_preview', 'preview_deliverable_document', { engagement: ENGAGEMENT_AP, kind });
      await frame.waitForSelector('[data-block]');
      for (const t of await frame.locator('[data-block]').evaluateAll((els) => els.map((e) => e.getAttribute('data-block')))) blocks.add(String(t));
      for (const c of await frame.locator('figure[data-chart]').evaluateAll((els) => els.map((e) => e.getAttribute('data-chart')))) charts.add(String(c));
      // Each chart is drawn, not a placeholder: it has marks.
      for (const svg of await frame.locator('figure[data-chart] svg').all()) expect(await svg.locator('rect, circle').count()).toBeGreaterThan(0);
      expect(await frame.locator('[data-document="interim_insights"]').getAttribute('data-included')).toBe('false');
      expect(await frame.locator('[data-document="executive_summary"]').getAttribute('data-included')).toBe('true');
      if (kind === 'executive_summary') {
        // The callout cites a finding, the quote an evidence: each ref links to what the document
        // shows of it, or opens on the cited words themselves.
        const refs = await frame
          .locator('[data-ref]')
          .evaluateAll((els) => els.map((e) => ({ ref: e.getAttribute('data-ref'), href: e.getAttribute('href'), text: e.textContent ?? '', tag: e.tagName })));
        expect(refs.map((r) => r.ref?.split(':')[0])).toEqual(expect.arrayContaining(['finding', 'evidence']));
        for (const r of refs) {
          const [type, id] = (r.ref as string).split(':') as [string, string];
          if (r.tag === 'A') expect(await frame.locator(`[id="${type}-${id}"]`).count(), r.ref as string).toBe(1);
          else
            expect(r.text).toContain(
              ((result.structuredContent as Json).records as Record<string, Record<string, Json>>)[type]?.[id]?.[type === 'evidence' ? 'excerpt' : 'statement'],
            );
        }
      }
      if (kind === 'interim_insights') expect(await frame.locator('[role=note]', { hasText: 'left out of the deliverable' }).count()).toBe(1);
      if (kind === 'roadmap') await screenshots('document_preview', frame, 'figure[data-chart="gain_effort_matrix"]');
    }
    expect([...blocks].sort()).toEqual([...BLOCK_TYPES].sort());
    expect([...charts].sort()).toEqual([...CHARTS].sort());
  });
});
