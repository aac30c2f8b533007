/**
 * Serving the page: `GET /` answers browsers with the page and everything else with the JSON
 * index; `GET /page/app.js` and `/page/app.css` are its files (gzip-compressed for clients that
 * take it). Every answer carries a Content-Security-Policy that allows only this endpoint's own
 * script, style and reads (no inline script, nothing remote), and `X-Content-Type-Options: nosniff`.
 *
 * The policy allows no inline style either (`style-src 'self'`). The page's charts (Apache
 * ECharts, SVG renderer) and components set styles only through the DOM's style object
 * (`element.style.…`, `style.cssText`), which a policy does not govern; they never write a `style`
 * attribute in markup or a `<style>` element, and chart tooltips are built as DOM nodes rather
 * than HTML strings. The browser tests check that no policy violation happens.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError, sendJson, type Headers } from '../http/respond.js';
import type { Handler, Route } from '../http/router.js';
import { loadPageAssets, type PageAsset, type PageAssets } from './assets.js';
import { PAGE_HTML, refusalHtml } from './html.js';

/**
 * The page's Content-Security-Policy. Images from records are not loaded unless asked for
 * (`remoteImages`, from `/?images=remote`), and then over https only.
 */
export function contentSecurityPolicy(remoteImages: boolean): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    `img-src 'self' data:${remoteImages ? ' https:' : ''}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function securityHeaders(remoteImages = false): Headers {
  return {
    'Content-Security-Policy': contentSecurityPolicy(remoteImages),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}

/** True when the client prefers HTML (a browser navigating), not JSON (fetch, curl, the CLI). */
function wantsHtml(req: IncomingMessage): boolean {
  return (req.headers.accept ?? '').toLowerCase().includes('text/html');
}

function sendHtml(res: ServerResponse, status: number, html: string, remoteImages = false): void {
  const body = Buffer.from(html, 'utf8');
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': body.length,
    'Cache-Control': 'no-store',
    Vary: 'Accept',
    ...securityHeaders(remoteImages),
  });
  res.end(body);
}

/** True when the client takes gzip (`Accept-Encoding: gzip`, not with `q=0`). */
function takesGzip(req: IncomingMessage): boolean {
  const accept = String(req.headers['accept-encoding'] ?? '').toLowerCase();
  return accept.split(',').some((part) => {
    const [coding, ...params] = part.trim().split(';').map((p) => p.trim());
    return (coding === 'gzip' || coding === '*') && !params.some((p) => /^q=0(\.0*)?$/.test(p));
  });
}

function sendAsset(req: IncomingMessage, res: ServerResponse, asset: PageAsset): void {
  const gzip = takesGzip(req);
  const etag = gzip ? asset.gzipEtag : asset.etag;
  const headers = {
    'Content-Type': asset.contentType, 'Cache-Control': 'no-cache', ETag: etag, Vary: 'Accept-Encoding',
    ...(gzip ? { 'Content-Encoding': 'gzip' } : {}), ...securityHeaders(),
  };
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  const body = gzip ? asset.gzip : asset.body;
  res.writeHead(200, { ...headers, 'Content-Length': body.length });
  res.end(body);
}

/**
 * The page's routes. `index` is what `GET /` answers clients that do not ask for HTML. The
 * page's files are loaded on first request and kept for the life of the endpoint.
 */
export function pageRoutes(index: unknown): [string, Route][] {
  let assets: Promise<PageAssets> | undefined;
  const load = (): Promise<PageAssets> => {
    assets ??= loadPageAssets().catch((error: unknown) => {
      assets = undefined; // try again on the next request
      throw error;
    });
    return assets;
  };

  const page: Handler = (req, res, { query }, context) => {
    if (!wantsHtml(req)) return sendJson(res, 200, index, { Vary: 'Accept' });
    // The page holds no data: its script asks who reads (GET /api/access) and, when the endpoint
    // answers 401, signs in with a reader token in the page. Behind an auth proxy the proxy signs
    // in: a request it did not name a user in, or a user without access, is told so here.
    if (context.keys.proxyUserHeader !== undefined) {
      const access = context.keys.checkRead(req);
      if (!access.ok) return sendHtml(res, access.status, refusalHtml(access.status === 403 ? 'no-access' : 'proxy-sign-in'));
    }
    sendHtml(res, 200, PAGE_HTML, query.get('images') === 'remote');
  };

  const file = (pick: (assets: PageAssets) => PageAsset): Handler => async (req, res, _target, context) => {
    let loaded: PageAssets;
    try {
      loaded = await load();
    } catch (error) {
      context.options.log(`tracking endpoint: cannot serve the page: ${(error as Error).message}`);
      return sendError(res, 500, (error as Error).message);
    }
    sendAsset(req, res, pick(loaded));
  };

  return [
    ['/', { methods: { GET: page } }],
    ['/page/app.js', { methods: { GET: file((a) => a.script) } }],
    ['/page/app.css', { methods: { GET: file((a) => a.style) } }],
  ];
}
