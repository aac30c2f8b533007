/**
 * Serving the page at `/`: HTML for browsers and the JSON index for everything else, its files,
 * its security headers, and the key it needs off loopback. (test/viewer drives it in a browser.)
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../../src/endpoint/index.js';
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
    const code = await script.text();
    expect(code.length).toBeGreaterThan(1000);
    expect(code).not.toMatch(/\binnerHTML\b|\bouterHTML\b|insertAdjacentHTML|document\.write|\beval\(|new Function/);
    expect(code).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)[\w.-]+/); // no remote address but the SVG namespace
    const style = await fetch(`${endpoint.url}/page/app.css`);
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await style.text()).toContain('.bubble');
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
    wide = await start({ host: '0.0.0.0' });
    base = `http://127.0.0.1:${wide.port}`;
  });
  afterAll(() => wide.close());

  it('asks for a key instead of showing the page, with a form that reloads it as /?key=', async () => {
    const res = await fetch(`${base}/`, { headers: HTML });
    expect(res.status).toBe(401);
    const html = await res.text();
    expect(html).toContain('<form method="get" action="./"');
    expect(html).toContain('name="key"');
    expect(html).not.toContain('page/app.js');
    expect(res.headers.get('content-security-policy')).toContain("form-action 'self'");
  });

  it('shows the page with one of the endpoint\'s keys, and says so when the key is wrong', async () => {
    expect((await fetch(`${base}/?key=${KEY}`, { headers: HTML })).status).toBe(200);
    const wrong = await fetch(`${base}/?key=not-a-key-of-this-endpoint`, { headers: HTML });
    expect(wrong.status).toBe(401);
    const html = await wrong.text();
    expect(html).toContain('not one of the keys');
    expect(html).not.toContain('not-a-key-of-this-endpoint');
  });

  it('serves the page\'s files without a key (they hold no data)', async () => {
    expect((await fetch(`${base}/page/app.js`)).status).toBe(200);
    expect((await fetch(`${base}/api/timeseries`)).status).toBe(401);
  });
});
