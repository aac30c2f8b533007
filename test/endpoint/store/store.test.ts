import { appendFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TrackingEndpointError, type StoredRecord } from '../../../src/endpoint/index.js';
import { Q, message, request, start, tempDir, track } from '../helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
let dataFile: string;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  dataFile = join(dir, 'nested', 'records.ndjson');
});
afterEach(() => cleanup());

async function lines(): Promise<string[]> {
  return (await readFile(dataFile, 'utf8')).split('\n').filter((line) => line !== '');
}

function record(seq: number, text: string): string {
  const stored: StoredRecord = {
    seq, receivedAt: `2025-01-01T00:00:0${seq}.000Z`, platform: 'universal', platformKind: 'universal', v: '10.1.1-rest', type: 'incoming', bot: 'abcdefabcdef',
    body: { text, userId: 'u1' },
  };
  return JSON.stringify(stored);
}

describe('the data file', () => {
  it('holds one JSON line per acknowledged record, written before the answer', async () => {
    const endpoint = await start({ dataFile });
    try {
      const res = await track(endpoint, Q.universalIn, message('u1', 'hello'));
      expect(res.status).toBe(200);
      const [line] = await lines();
      expect(JSON.parse(line)).toEqual({
        seq: 1, receivedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), platform: 'universal', platformKind: 'universal',
        v: '10.1.1-rest', type: 'incoming', bot: expect.stringMatching(/^[0-9a-f]{12}$/), body: { text: 'hello', userId: 'u1' },
      });
    } finally {
      await endpoint.close();
    }
  });

  it('keeps a pretty-printed body on one line', async () => {
    const endpoint = await start({ dataFile });
    try {
      await track(endpoint, Q.universalIn, JSON.stringify(message('u1', 'multi\nline'), null, 2));
      const all = await lines();
      expect(all).toHaveLength(1);
      expect(JSON.parse(all[0]).body).toEqual({ text: 'multi\nline', userId: 'u1' });
    } finally {
      await endpoint.close();
    }
  });

  it('keeps every acknowledged record after a restart, and continues the ids', async () => {
    const first = await start({ dataFile });
    for (const text of ['one', 'two', 'three']) await track(first, Q.universalIn, message('u1', text));
    await first.close();

    const second = await start({ dataFile });
    try {
      expect(second.store.size).toBe(3);
      const transcript = await request(second, '/api/transcript?user=u1');
      expect(transcript.body.entries.map((e: { text: string }) => e.text)).toEqual(['one', 'two', 'three']);
      expect((await track(second, Q.universalIn, message('u1', 'four'))).body.id).toBe(4);
    } finally {
      await second.close();
    }
  });

  it('stores every one of many records posted at once, each with its own id', async () => {
    const endpoint = await start({ dataFile });
    try {
      const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => track(endpoint, Q.universalIn, message(`u${i % 7}`, `m${i}`))));
      const ids = answers.map((a) => a.body.id);
      expect(new Set(ids).size).toBe(200);
      const stored = (await lines()).map((line) => JSON.parse(line).seq);
      expect(stored).toEqual([...stored].sort((a, b) => a - b));
      expect(new Set(stored)).toEqual(new Set(ids));
    } finally {
      await endpoint.close();
    }
  });

  it('tolerates a torn last line: loads the complete records, and appends on a new line', async () => {
    dataFile = join(dir, 'records.ndjson');
    await writeFile(dataFile, `${record(1, 'one')}\n${record(2, 'two')}\n${record(3, 'three').slice(0, 40)}`);
    const endpoint = await start({ dataFile });
    try {
      expect(endpoint.store.size).toBe(2);
      expect(endpoint.store.skippedLines).toEqual([3]);
      expect((await track(endpoint, Q.universalIn, message('u1', 'after'))).body.id).toBe(3);
    } finally {
      await endpoint.close();
    }
    const again = await start({ dataFile });
    try {
      expect(again.store.records().map((r) => (r.body as { text: string }).text)).toEqual(['one', 'two', 'after']);
    } finally {
      await again.close();
    }
  });

  it('refuses to start on a data file another running endpoint is using', async () => {
    const first = await start({ dataFile });
    try {
      await expect(start({ dataFile })).rejects.toThrow(TrackingEndpointError);
      await expect(start({ dataFile })).rejects.toThrow(/in use by another tracking endpoint/);
    } finally {
      await first.close();
    }
    const second = await start({ dataFile });
    await second.close();
  });

  it('takes over a lock left by a process that no longer runs', async () => {
    await appendFile(join(dir, 'stale.ndjson'), `${record(1, 'one')}\n`);
    await writeFile(join(dir, 'stale.ndjson.lock'), '999999999\n');
    const endpoint = await start({ dataFile: join(dir, 'stale.ndjson') });
    try {
      expect(endpoint.store.size).toBe(1);
    } finally {
      await endpoint.close();
    }
  });

  it('restarted in a container after kill -9 (same process id as the dead owner), starts at once', async () => {
    await appendFile(join(dir, 'pid1.ndjson'), `${record(1, 'one')}\n`);
    // The dead predecessor was this same process id (PID 1 in a container), with a token of its own; also the old format (no token).
    for (const content of [`${process.pid} 0123456789abcdef01234567\n`, `${process.pid}\n`]) {
      await writeFile(join(dir, 'pid1.ndjson.lock'), content);
      const endpoint = await start({ dataFile: join(dir, 'pid1.ndjson') });
      expect(endpoint.store.size).toBe(1);
      await endpoint.close();
    }
  });

  it('of endpoints started together over a stale lock, exactly one runs', async () => {
    const file = join(dir, 'race.ndjson');
    for (let round = 0; round < 10; round++) {
      await writeFile(`${file}.lock`, '999999999 deadbeef\n');
      const results = await Promise.allSettled(Array.from({ length: 4 }, () => start({ dataFile: file })));
      const started = results.filter((r): r is PromiseFulfilledResult<Awaited<ReturnType<typeof start>>> => r.status === 'fulfilled');
      expect(started).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(String(r.reason)).toMatch(/in use by another tracking endpoint/);
      await started[0].value.close();
    }
  });

  it('defaults to .tracking-data/records.ndjson under the working directory', async () => {
    // The working directory is `dir` (stubbed rather than chdir'd: workers, such as the mutation run's, cannot chdir).
    const cwd = vi.spyOn(process, 'cwd').mockReturnValue(dir);
    try {
      const endpoint = await start({ dataFile: undefined });
      await track(endpoint, Q.universalIn, message('u1', 'hi'));
      await endpoint.close();
      expect(endpoint.dataFile).toBe(join(dir, '.tracking-data', 'records.ndjson'));
      expect(await readFile(join(dir, '.tracking-data', 'records.ndjson'), 'utf8')).toContain('"text":"hi"');
    } finally {
      cwd.mockRestore();
    }
  });

  it('writes no file when running in memory', async () => {
    const cwd = vi.spyOn(process, 'cwd').mockReturnValue(dir);
    try {
      const endpoint = await start({ dataFile: false });
      expect((await track(endpoint, Q.universalIn, message('u1', 'hi'))).status).toBe(200);
      await endpoint.close();
      expect(await readdir(dir)).toEqual([]);
    } finally {
      cwd.mockRestore();
    }
  });
});
