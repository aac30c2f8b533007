/**
 * The page's script and stylesheet, ready to serve. The built package reads them from
 * `dist/page/` (written by the build); run from source, they are bundled in memory from
 * `browser/` by `build.ts`. Nothing is fetched from the network.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { access, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** One file of the page, as it is sent. */
export interface PageAsset {
  body: Buffer;
  contentType: string;
  /** A strong ETag of the body. */
  etag: string;
  /** The body compressed with gzip (the script is mostly ECharts: about a third of its size). */
  gzip: Buffer;
  /** A strong ETag of the compressed body. */
  gzipEtag: string;
}

/** The page's files. */
export interface PageAssets {
  script: PageAsset;
  style: PageAsset;
}

function asset(text: string, contentType: string): PageAsset {
  const body = Buffer.from(text, 'utf8');
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 22);
  return { body, contentType, etag: `"${hash}"`, gzip: gzipSync(body, { level: 9 }), gzipEtag: `"${hash}-gz"` };
}

function fromText(script: string, style: string): PageAssets {
  return { script: asset(script, 'text/javascript; charset=utf-8'), style: asset(style, 'text/css; charset=utf-8') };
}

async function exists(url: URL): Promise<boolean> {
  try {
    await access(url);
    return true;
  } catch {
    return false;
  }
}

/**
 * Loads the page's files. In the built package this module is part of `dist/*.js`, and the
 * files are in `dist/page/`. Rejects with an `Error` that says to rebuild when they are missing.
 */
export async function loadPageAssets(): Promise<PageAssets> {
  const built = new URL('./page/', import.meta.url);
  if (await exists(new URL('app.js', built))) {
    const [script, style] = await Promise.all([readFile(new URL('app.js', built), 'utf8'), readFile(new URL('app.css', built), 'utf8')]);
    return fromText(script, style);
  }
  // Run from source: bundle the browser code now (a file URL, which bundlers leave alone).
  const builder = new URL('./build.ts', import.meta.url);
  if (await exists(builder)) {
    const { bundlePage } = (await import(/* @vite-ignore */ builder.href)) as typeof import('./build.js');
    const { script, style } = await bundlePage();
    return fromText(script, style);
  }
  throw new Error(`The page's files are missing from ${fileURLToPath(built)}: rebuild the package (npm run build).`);
}
