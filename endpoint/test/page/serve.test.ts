/**
 * Serving the page at `/`: HTML for browsers and the JSON index for everything else, its files,
 * its security headers, and who it is shown to off loopback and behind an auth proxy. (page.test.ts and the others drive it in a browser.)
 */
import { readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import { KEY, request, start } from '../helpers.js';

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

let endpoint: TrackingEndpoint;
beforeAll(async () => {
  endpoint = await start();
});
afterAll(() => endpoint.close());

function csp(response: Response): Map<string, string> {
  const policy = response.headers.get('content-security-policy') ?? '';
  return new Map(policy.split(';').map((part) => part.trim()).filter(Boolean).map((part) => {
    const space = part.indexOf(' ');
    return [part.slice(0, space), part.slice(space + 1)];
  }));
}

describe('GET /', () => {
  it('answers a browser with the page: a shell that loads one script module and one stylesheet, nothing inline', async () => {
    const res = await fetch(`${endpoint.url}/`, { headers: HTML });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    expect(html).toContain('<script type="module" src="page/app.js"></script>');
    expect(html).toContain('<link rel="stylesheet" href="page/app.css">');
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/); // no inline script
    expect(html).not.toMatch(/\sstyle=|<style|\son[a-z]+=/i); // no inline style or handlers
    expect(html).not.toMatch(/https?:\/\//); // nothing remote
  });

  it('sends a Content-Security-Policy that allows only the endpoint\'s own script, style and reads', async () => {
    const res = await fetch(`${endpoint.url}/`, { headers: HTML });
    const policy = csp(res);
    expect(policy.get('default-src')).toBe("'none'");
    expect(policy.get('script-src')).toBe("'self'");
    expect(policy.get('style-src')).toBe("'self'");
    expect(policy.get('connect-src')).toBe("'self'");
    expect(policy.get('img-src')).toBe("'self' data:");
    expect(policy.get('frame-ancestors')).toBe("'none'");
    expect(res.headers.get('content-security-policy')).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('vary')).toBe('Accept');
  });

  it('allows images over https only when the page is opened with ?images=remote', async () => {
    const res = await fetch(`${endpoint.url}/?images=remote`, { headers: HTML });
    expect(csp(res).get('img-src')).toBe("'self' data: https:");
    expect(csp(res).get('script-src')).toBe("'self'");
  });

  it('still answers the JSON index to clients that do not ask for HTML, and always at /api', async () => {
    const root = await request(endpoint, '/');
    const api = await request(endpoint, '/api');
    expect(root.body).toEqual(api.body);
    expect(Object.keys(api.body.routes)).toEqual(expect.arrayContaining(['GET /', 'GET /api/timeseries', 'GET /api/intents', 'GET /api/record?seq=N', 'GET /api/events']));
  });

  it('refuses a page addressed to another host name (DNS rebinding), with an HTML explanation', async () => {
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      http.get(`${endpoint.url}/`, { headers: { ...HTML, host: 'evil.example' } }, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk)).on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      }).on('error', reject);
    });
    expect(status).toBe(403);
    expect(body).toContain('localhost');
    expect(body).not.toContain('page/app.js');
  });
});

describe('the page\'s files', () => {
  it('serves the script as a JavaScript module and the stylesheet as CSS, with the same headers', async () => {
    const script = await fetch(`${endpoint.url}/page/app.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('x-content-type-options')).toBe('nosniff');
    expect(script.headers.get('content-security-policy')).toContain("style-src 'self'");
    const code = await script.text();
    expect(code.length).toBeGreaterThan(1000);
    // Nothing that runs a string as code, or writes markup around the DOM (the bundled libraries
    // included; innerHTML, which Preact and ECharts name, is watched at run time by the browser tests).
    expect(code).not.toMatch(/\bouterHTML\b|insertAdjacentHTML|document\.write|createContextualFragment|\beval\(|new Function|\bsrcdoc\b/);
    // No remote address: only XML namespace names (w3.org), which are identifiers, not fetched.
    expect(code.match(/https?:\/\/[\w.-]+/g)?.filter((host) => host !== 'http://www.w3.org') ?? []).toEqual([]);
    const style = await fetch(`${endpoint.url}/page/app.css`);
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const css = await style.text();
    expect(css).toContain('.bubble');
    expect(css).not.toMatch(/@import|url\((?!["']?data:)/); // no stylesheet or font fetched from anywhere
  });

  it('writes no markup from strings in its own code: elements are built by Preact from JSX, text as text', async () => {
    const dir = new URL('../../src/page/browser/', import.meta.url);
    const files = await readdir(dir, { recursive: true });
    const sources = files.filter((file) => /\.tsx?$/.test(file));
    expect(sources).toEqual(expect.arrayContaining(['app.tsx', 'transcript.tsx', 'charts.tsx']));
    for (const file of sources) {
      const text = await readFile(new URL(file, dir), 'utf8');
      expect(text, file).not.toMatch(/innerHTML|outerHTML|dangerouslySetInnerHTML|insertAdjacentHTML|document\.write|setAttribute\(\s*['"]style/);
    }
  });

  it('sends the script gzip-compressed to clients that take it, and whole to those that do not', async () => {
    const raw = (encoding?: string) => new Promise<{ headers: http.IncomingHttpHeaders; bytes: number }>((resolve, reject) => {
      http.get(`${endpoint.url}/page/app.js`, { headers: encoding ? { 'accept-encoding': encoding } : {} }, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length)).on('end', () => resolve({ headers: res.headers, bytes }));
      }).on('error', reject);
    });
    const [gzip, plain, refused] = await Promise.all([raw('gzip, deflate, br'), raw(), raw('gzip;q=0, identity')]);
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers.vary).toBe('Accept-Encoding');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(Number(gzip.headers['content-length'])).toBe(gzip.bytes);
    expect(Number(plain.headers['content-length'])).toBe(plain.bytes);
    expect(gzip.bytes).toBeLessThan(plain.bytes / 2);
    expect(gzip.headers.etag).not.toBe(plain.headers.etag);
  });

  it('answers 304 when the browser already has the file', async () => {
    const first = await fetch(`${endpoint.url}/page/app.js`);
    const etag = first.headers.get('etag');
    await first.arrayBuffer();
    expect(etag).toMatch(/^".+"$/);
    const again = await fetch(`${endpoint.url}/page/app.js`, { headers: { 'if-none-match': etag as string } });
    expect(again.status).toBe(304);
  });

  it('answers other methods with 405', async () => {
    expect((await request(endpoint, '/page/app.js', { method: 'POST' })).status).toBe(405);
  });
});

describe('off loopback', () => {
  let wide: TrackingEndpoint;
  let base: string;
  beforeAll(async () => {
    wide = await start({ host: '0.0.0.0', readers: ['web=page-reader-1'] });
    base = `http://127.0.0.1:${wide.port}`;
  });
  afterAll(() => wide.close());

  it('serves the page itself to anyone (it holds no data: its script signs in), with a policy that lets no form post anywhere', async () => {
    for (const path of ['/', `/?key=${KEY}`, '/?key=not-a-key-of-this-endpoint']) {
      const res = await fetch(`${base}${path}`, { headers: HTML });
      expect([path, res.status]).toEqual([path, 200]);
      const html = await res.text();
      expect(html).toContain('<script type="module" src="page/app.js">');
      expect(html).not.toContain('<form');
      expect(html).not.toContain('key-of-this');
      expect(html).not.toContain(KEY);
      expect(res.headers.get('content-security-policy')).toContain("form-action 'none'");
    }
  });

  it('serves the page\'s files without a key (they hold no data)', async () => {
    expect((await fetch(`${base}/page/app.js`)).status).toBe(200);
    expect((await fetch(`${base}/api/timeseries`)).status).toBe(401);
  });
});

describe('behind an auth proxy (--trust-proxy-user)', () => {
  let proxied: TrackingEndpoint;
  let base: string;
  beforeAll(async () => {
    proxied = await start({ host: '0.0.0.0', trustProxyUser: 'X-Forwarded-User', readerUsers: ['ann'] });
    base = `http://127.0.0.1:${proxied.port}`;
  });
  afterAll(() => proxied.close());

  it('says the proxy must sign in when it named no user (401), that the user may not read when not listed (403), and shows the page to a listed user', async () => {
    const none = await fetch(`${base}/`, { headers: HTML });
    expect(none.status).toBe(401);
    const noneHtml = await none.text();
    expect(noneHtml).toContain('needs signing in through its sign-in gateway');
    expect(noneHtml).not.toContain('page/app.js');
    const stranger = await fetch(`${base}/`, { headers: { ...HTML, 'x-forwarded-user': 'mallory' } });
    expect(stranger.status).toBe(403);
    const strangerHtml = await stranger.text();
    expect(strangerHtml).toContain('not as one of this endpoint\'s readers');
    expect(strangerHtml).not.toContain('mallory');
    const ann = await fetch(`${base}/`, { headers: { ...HTML, 'x-forwarded-user': 'ann' } });
    expect(ann.status).toBe(200);
    expect(await ann.text()).toContain('page/app.js');
  });
});
