/**
 * The files of `persistDir` (UndeliveredStore): what a line holds, which files a client takes over
 * (and which it leaves alone), the order records come back in, the size bound, and what is left on
 * disk when a client is done with what it claimed.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UndeliveredStore, type PersistedRecord } from '../../src/client/persistence.js';

let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bca-store-'));
});

afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const files = () => fs.readdirSync(dir).sort();
const size = () => files().reduce((sum, f) => sum + fs.statSync(path.join(dir, f)).size, 0);
const record = (text: string, at: readonly [number, number] = [1, 1], userId = 'u'): PersistedRecord => ({ platform: 'sms', type: 'incoming', at, key: `key-${text}`, body: JSON.stringify({ text, userId }) });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const accept = (r: { body: unknown }) => ({ userId: (r.body as { userId: string }).userId });
const texts = (records: readonly { body: string }[]) => records.map((r) => (JSON.parse(r.body) as { text: string }).text);

/** A PID no process has: one of a process that has just exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('a saved line', () => {
  it('holds the platform, the type, when it was logged, its idempotency key and the body, one record per line, in a file of its own', () => {
    const store = new UndeliveredStore(dir, 1_000_000);
    expect(store.save([record('a', [5, 1]), record('b', [5, 2])])).toBe(2);
    expect(files()).toHaveLength(1);
    expect(files()[0]).toMatch(new RegExp(`^records-${process.pid}-[0-9a-z]+-[0-9a-f]{6}\\.ndjson$`));
    expect(fs.readFileSync(path.join(dir, files()[0]), 'utf8')).toBe(
      '\n{"platform":"sms","type":"incoming","at":[5,1],"key":"key-a","body":{"text":"a","userId":"u"}}\n{"platform":"sms","type":"incoming","at":[5,2],"key":"key-b","body":{"text":"b","userId":"u"}}\n',
    );
    expect(store.save([])).toBe(0);
  });

  it('creates the directory (mode 0700) when it is missing', () => {
    const nested = path.join(dir, 'a', 'b');
    new UndeliveredStore(nested, 1_000);
    expect(fs.statSync(nested).isDirectory()).toBe(true);
    expect(fs.statSync(nested).mode & 0o777).toBe(0o700);
  });
});

describe('the size bound', () => {
  it('writes records while the directory stays within maxBytes, counting what is already there, and says how many it wrote', () => {
    const probe = new UndeliveredStore(path.join(dir, 'probe'), 1_000_000);
    probe.save([record('x')]);
    const lineSize = fs.statSync(path.join(dir, 'probe', fs.readdirSync(path.join(dir, 'probe'))[0])).size - 1;
    fs.rmSync(path.join(dir, 'probe'), { recursive: true });
    // Room for exactly two lines and the leading newline.
    const store = new UndeliveredStore(dir, 1 + 2 * lineSize);
    expect(store.save([record('x'), record('y'), record('z')])).toBe(2);
    expect(size()).toBe(1 + 2 * lineSize);
    expect(store.save([record('w')])).toBe(0);
    // Past the bound only when told so (records already on disk, moved).
    expect(store.save([record('v')], true)).toBe(1);
    // Another store on the same directory counts the files already there.
    const other = new UndeliveredStore(dir, size() + 1 + lineSize);
    expect(other.save([record('q'), record('r')])).toBe(1);
  });
});

describe('claiming what earlier processes left', () => {
  it('takes unclaimed files and claims of processes that are gone, and leaves foreign files and live claims alone', () => {
    fs.writeFileSync(path.join(dir, 'records-1-a.ndjson'), `${JSON.stringify({ platform: 'sms', type: 'incoming', at: [1, 1], body: { text: 'unclaimed', userId: 'u' } })}\n`);
    fs.writeFileSync(path.join(dir, `records-2-b.ndjson.claimed-${deadPid()}-abcdef`), `${JSON.stringify({ platform: 'sms', type: 'incoming', at: [1, 2], body: { text: 'dead claimant', userId: 'u' } })}\n`);
    fs.writeFileSync(path.join(dir, 'records-3-c.ndjson.claimed-nopid-abcdef'), `${JSON.stringify({ platform: 'sms', type: 'incoming', at: [1, 3], body: { text: 'no pid', userId: 'u' } })}\n`);
    fs.writeFileSync(path.join(dir, 'records-4-d.ndjson.claimed-0-abcdef'), `${JSON.stringify({ platform: 'sms', type: 'incoming', at: [1, 4], body: { text: 'pid 0', userId: 'u' } })}\n`);
    fs.writeFileSync(path.join(dir, `records-5-e.ndjson.claimed-${deadPid()}`), `${JSON.stringify({ platform: 'sms', type: 'incoming', at: [1, 5], body: { text: 'no token', userId: 'u' } })}\n`);
    fs.writeFileSync(path.join(dir, `records-6-f.ndjson.claimed-${process.ppid}-abcdef`), `${JSON.stringify({ platform: 'sms', type: 'incoming', at: [1, 6], body: { text: 'live claimant', userId: 'u' } })}\n`);
    fs.writeFileSync(path.join(dir, 'notes.txt'), '{"platform":"sms","type":"incoming","body":{"text":"foreign","userId":"u"}}\n');
    const store = new UndeliveredStore(dir, 1_000_000);
    const claimed = store.claim(accept);
    expect(texts(claimed.records)).toEqual(['unclaimed', 'dead claimant', 'no pid', 'pid 0', 'no token']);
    expect(files().filter((f) => f.includes(`.claimed-${process.pid}-`))).toHaveLength(5);
    expect(files()).toContain('notes.txt');
    expect(files()).toContain(`records-6-f.ndjson.claimed-${process.ppid}-abcdef`);
    // A second claim in this process leaves this process's claims alone.
    expect(new UndeliveredStore(dir, 1_000_000).claim(accept).records).toEqual([]);
    claimed.release([]);
    expect(files()).toEqual(['notes.txt', `records-6-f.ndjson.claimed-${process.ppid}-abcdef`]);
  });

  it('takes a live claim untouched for more than 10 minutes, and leaves one touched less than 10 minutes ago', () => {
    const stale = path.join(dir, `records-1-s.ndjson.claimed-${process.ppid}-aaaaaa`);
    const recent = path.join(dir, `records-2-r.ndjson.claimed-${process.ppid}-bbbbbb`);
    fs.writeFileSync(stale, `${JSON.stringify({ platform: 'sms', type: 'incoming', body: { text: 'stale', userId: 'u' } })}\n`);
    fs.writeFileSync(recent, `${JSON.stringify({ platform: 'sms', type: 'incoming', body: { text: 'recent', userId: 'u' } })}\n`);
    const eleven = new Date(Date.now() - 11 * 60_000);
    const nine = new Date(Date.now() - 9 * 60_000);
    fs.utimesSync(stale, eleven, eleven);
    fs.utimesSync(recent, nine, nine);
    const claimed = new UndeliveredStore(dir, 1_000_000).claim(accept);
    expect(texts(claimed.records)).toEqual(['stale']);
    claimed.release([]);
  });

  it('leaves a live claim touched exactly 10 minutes ago alone', () => {
    const claim = path.join(dir, `records-1-s.ndjson.claimed-${process.ppid}-aaaaaa`);
    fs.writeFileSync(claim, `${JSON.stringify({ platform: 'sms', type: 'incoming', body: { text: 'ten minutes', userId: 'u' } })}\n`);
    // On a whole second, so that the file's time holds it exactly.
    const now = Math.floor(Date.now() / 1_000) * 1_000;
    const tenMinutesAgo = new Date(now - 10 * 60_000);
    fs.utimesSync(claim, tenMinutesAgo, tenMinutesAgo);
    expect(fs.statSync(claim).mtimeMs).toBe(now - 10 * 60_000);
    vi.useFakeTimers({ now, toFake: ['Date'] });
    try {
      expect(new UndeliveredStore(dir, 1_000_000).claim(accept).records).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
    expect(files()).toEqual([`records-1-s.ndjson.claimed-${process.ppid}-aaaaaa`]);
  });

  it('reads the claim wherever it is in the name: a file named only by the claim of a process that is gone is taken', () => {
    fs.writeFileSync(path.join(dir, `.claimed-${deadPid()}-abcdef`), `${JSON.stringify({ platform: 'sms', type: 'incoming', body: { text: 'bare claim', userId: 'u' } })}\n`);
    const claimed = new UndeliveredStore(dir, 1_000_000).claim(accept);
    expect(texts(claimed.records)).toEqual(['bare claim']);
    claimed.release([]);
    expect(files()).toEqual([]);
  });

  it('never takes its own file: what it saved stays where it is', () => {
    const store = new UndeliveredStore(dir, 1_000_000);
    expect(store.save([record('mine')])).toBe(1);
    const before = files();
    const claimed = store.claim(accept);
    expect(claimed.records).toEqual([]);
    claimed.release([]);
    expect(files()).toEqual(before);
    expect(files()[0]).toMatch(/\.ndjson$/);
  });

  it('skips a claimed file it cannot read (a directory named like one), counted as unreadable, and reads the others', () => {
    fs.mkdirSync(path.join(dir, 'records-1-a.ndjson'));
    fs.writeFileSync(path.join(dir, 'records-2-b.ndjson'), `${JSON.stringify({ platform: 'sms', type: 'incoming', body: { text: 'readable', userId: 'u' } })}\n`);
    const claimed = new UndeliveredStore(dir, 1_000_000).claim(accept);
    expect(claimed.skipped).toEqual({ unreadable: 1 });
    expect(texts(claimed.records)).toEqual(['readable']);
    claimed.release([]);
  });

  it('finds nothing, and throws nothing, when the directory was removed from under it', () => {
    const store = new UndeliveredStore(dir, 1_000_000);
    fs.rmSync(dir, { recursive: true, force: true });
    const claimed = store.claim(accept);
    expect(claimed.records).toEqual([]);
    expect(claimed.skipped).toEqual({});
    expect(claimed.release([])).toBe(0);
    expect(store.save([record('a')])).toBe(0);
  });

  it('keeps the files it claimed touched, so no other process takes them for dead', () => {
    fs.writeFileSync(path.join(dir, 'records-1-a.ndjson'), `${JSON.stringify({ platform: 'sms', type: 'incoming', body: { text: 'a', userId: 'u' } })}\n`);
    const claimed = new UndeliveredStore(dir, 1_000_000).claim(accept);
    const file = path.join(dir, files()[0]);
    const old = new Date(Date.now() - 60 * 60_000);
    fs.utimesSync(file, old, old);
    claimed.touch();
    expect(Date.now() - fs.statSync(file).mtimeMs).toBeLessThan(60_000);
    claimed.release([]);
    claimed.touch(); // the files are gone: nothing to touch, nothing thrown
  });

  it('returns the records in the order they were logged, whichever file holds them; lines without a time first', () => {
    const line = (text: string, at?: unknown) => `${JSON.stringify({ platform: 'sms', type: 'incoming', ...(at === undefined ? {} : { at }), body: { text, userId: 'u' } })}\n`;
    fs.writeFileSync(path.join(dir, 'records-1-a.ndjson'), line('b2', [2, 1]) + line('a2', [1, 2]) + line('old', undefined));
    fs.writeFileSync(path.join(dir, 'records-2-b.ndjson'), line('a1', [1, 1]) + line('b1-later-in-file', [2, 1]) + line('odd at', ['1', 2]) + line('three', [1, 2, 3]) + line('first', [0, 0]));
    const claimed = new UndeliveredStore(dir, 1_000_000).claim(accept);
    const order = texts(claimed.records);
    expect(order.slice(0, 4).sort()).toEqual(['first', 'odd at', 'old', 'three']);
    expect(order.slice(4)).toEqual(['a1', 'a2', 'b2', 'b1-later-in-file']);
    expect(claimed.records.find((r) => JSON.parse(r.body).text === 'odd at')!.at).toEqual([0, 0]);
    expect(claimed.records.find((r) => JSON.parse(r.body).text === 'a2')!.at).toEqual([1, 2]);
    claimed.release([]);
  });

  it('skips lines that are no record, by reason, and gives the user of each record the check found', () => {
    fs.writeFileSync(
      path.join(dir, 'records-1-a.ndjson'),
      [
        '  ',
        'null',
        '"text"',
        '[1]',
        '{"platform":5,"type":"incoming","body":{}}',
        '{"platform":"sms","type":5,"body":{}}',
        '{"platform":"sms","type":"incoming","body":{"text":"refused","userId":"x"}}',
        '{"platform":"sms","type":"incoming","body":{"text":"kept","userId":"someone"}}',
      ].join('\n'),
    );
    const claimed = new UndeliveredStore(dir, 1_000_000).claim((r) => ((r.body as { text: string }).text === 'refused' ? { problem: 'too odd' } : { userId: 'checked-user' }));
    expect(claimed.skipped).toEqual({ unreadable: 3, 'unknown platform': 1, 'unknown type': 1, 'too odd': 1 });
    expect(claimed.records).toEqual([{ platform: 'sms', type: 'incoming', at: [0, 0], key: expect.stringMatching(UUID), body: '{"text":"kept","userId":"someone"}', userId: 'checked-user' }]);
    claimed.release([]);
  });
});

describe('idempotency keys of saved lines', () => {
  it('reads back the key a line was saved with, and gives a line without one (or with one the endpoint would refuse) a new key', () => {
    fs.writeFileSync(
      path.join(dir, 'records-1-a.ndjson'),
      [
        JSON.stringify({ platform: 'sms', type: 'incoming', at: [1, 1], key: 'saved key ~!', body: { text: 'kept key', userId: 'u' } }),
        JSON.stringify({ platform: 'sms', type: 'incoming', at: [1, 2], body: { text: 'no key', userId: 'u' } }),
        JSON.stringify({ platform: 'sms', type: 'incoming', at: [1, 3], key: '', body: { text: 'empty key', userId: 'u' } }),
        JSON.stringify({ platform: 'sms', type: 'incoming', at: [1, 4], key: 'k'.repeat(201), body: { text: 'long key', userId: 'u' } }),
        JSON.stringify({ platform: 'sms', type: 'incoming', at: [1, 5], key: 'clé', body: { text: 'odd key', userId: 'u' } }),
        JSON.stringify({ platform: 'sms', type: 'incoming', at: [1, 6], key: 42, body: { text: 'number key', userId: 'u' } }),
        JSON.stringify({ platform: 'sms', type: 'incoming', at: [1, 7], key: 'k'.repeat(200), body: { text: 'longest key', userId: 'u' } }),
      ].join('\n'),
    );
    const claimed = new UndeliveredStore(dir, 1_000_000).claim(accept);
    const keys = claimed.records.map((r) => r.key);
    expect(keys[0]).toBe('saved key ~!');
    for (const key of keys.slice(1, 6)) expect(key).toMatch(UUID);
    expect(new Set(keys).size).toBe(7);
    expect(keys[6]).toBe('k'.repeat(200));
    claimed.release([]);
  });
});

describe('done with what it claimed', () => {
  it('writes what is still to send to its own file, then deletes the claimed files; once only', () => {
    fs.writeFileSync(path.join(dir, 'records-1-a.ndjson'), `${JSON.stringify({ platform: 'sms', type: 'incoming', at: [3, 4], key: 'k-left', body: { text: 'left', userId: 'u' } })}\n`);
    const store = new UndeliveredStore(dir, 1);
    const claimed = store.claim(accept);
    // Its records are written back even past maxBytes: they are on disk already.
    expect(claimed.release(claimed.records)).toBe(1);
    expect(files()).toHaveLength(1);
    expect(files()[0]).toMatch(/^records-\d+-[0-9a-z]+-[0-9a-f]{6}\.ndjson$/);
    expect(fs.readFileSync(path.join(dir, files()[0]), 'utf8')).toBe('\n{"platform":"sms","type":"incoming","at":[3,4],"key":"k-left","body":{"text":"left","userId":"u"}}\n');
    expect(claimed.release(claimed.records)).toBe(0);
    expect(files()).toHaveLength(1);
  });

  it('hands the claimed files back unclaimed when it cannot write what is left, so nothing is lost', () => {
    fs.writeFileSync(path.join(dir, 'records-1-a.ndjson'), `${JSON.stringify({ platform: 'sms', type: 'incoming', body: { text: 'left', userId: 'u' } })}\n`);
    const store = new UndeliveredStore(dir, 1_000_000);
    const claimed = store.claim(accept);
    // Its own file cannot be written: a directory stands where it would be.
    fs.mkdirSync((store as unknown as { file: string }).file);
    expect(claimed.release(claimed.records)).toBe(0);
    expect(files().filter((f) => !fs.statSync(path.join(dir, f)).isDirectory())).toEqual(['records-1-a.ndjson']);
  });

  it('counts the claimed files against maxBytes until they are deleted', () => {
    const text = `${JSON.stringify({ platform: 'sms', type: 'incoming', body: { text: 'x'.repeat(100), userId: 'u' } })}\n`;
    fs.writeFileSync(path.join(dir, 'records-1-a.ndjson'), text);
    const store = new UndeliveredStore(dir, text.length + 150);
    const claimed = store.claim(accept);
    expect(store.save([record('y'.repeat(100))])).toBe(0);
    claimed.release([]);
    expect(store.save([record('y'.repeat(100))])).toBe(1);
  });
});
