/**
 * Bundles the page's browser code (`browser/main.ts`, its Preact components in TSX, the parts of
 * Apache ECharts it uses, and the CSS it imports) with esbuild into one ES module and one
 * stylesheet. The package build writes them to `dist/page/`; the endpoint, when run from source
 * (tests, `tsx`), bundles them in memory on first use. esbuild, Preact and ECharts are build-time
 * dependencies: the built package loads none of them, and the page fetches nothing else.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The page's script and stylesheet as text. */
export interface BundledPage {
  script: string;
  style: string;
}

/** Where the browser code starts. */
export const PAGE_ENTRY = fileURLToPath(new URL('./browser/main.ts', import.meta.url));

/** Browsers the page supports: current Chromium, Firefox and Safari (plain ES2020 and DOM). */
const TARGET = ['es2020', 'chrome100', 'firefox100', 'safari15'];

/**
 * Bundles the page from `entry` (default: `browser/main.ts` next to this file). Rejects with
 * esbuild's error when the code does not compile, or when esbuild is not installed (it comes
 * with the package's dev dependencies tsup and vitest).
 */
export async function bundlePage(entry: string = PAGE_ENTRY): Promise<BundledPage> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    outdir: 'page',
    entryNames: 'app',
    format: 'esm',
    platform: 'browser',
    target: TARGET,
    minify: true,
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'silent',
    // JSX for Preact (browser/*.tsx), compiled to calls of preact/jsx-runtime.
    jsx: 'automatic',
    jsxImportSource: 'preact',
    // ECharts keeps its development checks behind process.env.NODE_ENV: leave them out.
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const text = (extension: string) => result.outputFiles.find((file) => file.path.endsWith(extension))?.text ?? '';
  return { script: text('.js'), style: text('.css') };
}

/** Bundles the page and writes `app.js` and `app.css` into `dir` (created if needed). Used by the package build. */
export async function writePageAssets(dir: string, entry: string = PAGE_ENTRY): Promise<void> {
  const { script, style } = await bundlePage(entry);
  await mkdir(dir, { recursive: true });
  await Promise.all([writeFile(join(dir, 'app.js'), script), writeFile(join(dir, 'app.css'), style)]);
}
