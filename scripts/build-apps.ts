// Builds the MCP Apps views (apps/<name>/) into one self-contained HTML file each, dist/apps/<name>.html:
// the view's TypeScript bundled by esbuild with the ext-apps SDK and inlined as one script, its
// stylesheets inlined as style elements, a CSP meta that forbids any network origin. Run by
// `npm run build`, and on demand by the tests that read the views (buildApps()).
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const VIEW_NAMES = ['review_board', 'engagement_dashboard', 'document_preview'] as const;
export const APPS_OUT = join(ROOT, 'dist', 'apps');

/** Defence in depth beside the host's own CSP: inline code only, no origin to reach, no frame. */
const CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:; connect-src 'none'; frame-src 'none'; base-uri 'none'; form-action 'none'";

/**
 * zod (which the SDK validates messages with) re-exports every one of its 40-odd message locales
 * as a namespace, so a bundle would carry them all; the views read no zod message, and zod's
 * default is English: only English is bundled, which keeps each view smaller.
 */
const englishZodOnly: Plugin = {
  name: 'english-zod-only',
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${join('node_modules', 'zod')}`) ? { path: join(dirname(args.importer), '..', 'locales', 'en.js') } : undefined,
    );
  },
};

async function buildOne(name: string, outDir: string): Promise<number> {
  const dir = join(ROOT, 'apps', name);
  const bundle = await build({
    entryPoints: [join(dir, 'main.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
    plugins: [englishZodOnly],
  });
  const js = (bundle.outputFiles[0]?.text ?? '').replace(/<\/script/gi, '<\\/script');
  let html = await readFile(join(dir, 'index.html'), 'utf8');
  const styles: string[] = [];
  for (const m of html.matchAll(/<link rel="stylesheet" href="([^"]+)" \/>/g)) styles.push(await readFile(join(dir, m[1] as string), 'utf8'));
  html = html
    .replace(/\s*<link rel="stylesheet" href="[^"]+" \/>/g, '')
    .replace(
      '<meta charset="utf-8" />',
      `<meta charset="utf-8" />\n    <meta http-equiv="Content-Security-Policy" content="${CSP}" />\n    <style>\n${styles.join('\n')}</style>`,
    )
    .replace(/<script type="module" src="\.\/main\.ts"><\/script>/, () => `<script>${js}</script>`);
  if (/<(script|link)[^>]+(src|href)=/i.test(html)) throw new Error(`${name}: a script or stylesheet is still referenced, not inlined`);
  // Written aside then renamed: a server or test reading the view meanwhile reads the old file or the new one, never half of one.
  const tmp = join(outDir, `.${name}.${process.pid}.html`);
  await writeFile(tmp, html);
  await rename(tmp, join(outDir, `${name}.html`));
  return Buffer.byteLength(html);
}

/** Builds every view; answers each one's size in bytes. */
export async function buildApps(outDir = APPS_OUT): Promise<Record<string, number>> {
  await mkdir(outDir, { recursive: true });
  const sizes: Record<string, number> = {};
  for (const name of VIEW_NAMES) sizes[name] = await buildOne(name, outDir);
  return sizes;
}

/** Builds the views unless every built file is newer than every source (tests call this). */
export async function ensureAppsBuilt(): Promise<void> {
  const { readdir } = await import('node:fs/promises');
  const newest = async (dir: string): Promise<number> => {
    let t = 0;
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      t = Math.max(t, e.isDirectory() ? await newest(p) : (await stat(p)).mtimeMs);
    }
    return t;
  };
  const sources = Math.max(await newest(join(ROOT, 'apps')), (await stat(fileURLToPath(import.meta.url))).mtimeMs);
  const built = await Promise.all(
    VIEW_NAMES.map((n) =>
      stat(join(APPS_OUT, `${n}.html`)).then(
        (s) => s.mtimeMs,
        () => 0,
      ),
    ),
  );
  if (built.some((t) => t < sources)) await buildApps();
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const sizes = await buildApps();
  for (const [name, bytes] of Object.entries(sizes)) process.stderr.write(`dist/apps/${name}.html: ${(bytes / 1024).toFixed(1)} KiB\n`);
}
