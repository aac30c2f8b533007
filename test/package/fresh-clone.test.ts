/**
 * Publishing from a fresh clone: `npm pack` of either package builds what it ships first (its
 * prepack), so a tarball never goes out without its code. The clone is the repository's files as
 * git has them (tracked, and new ones not ignored: no dist/, no node_modules), with this
 * repository's node_modules linked in, as after `npm install`.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let clone: string;

/** `npm pack` (with its prepack) in the clone: the packed files' paths. */
async function packedFiles(args: string[]): Promise<string[]> {
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', clone, ...args], { cwd: clone, maxBuffer: 16 * 1024 * 1024 });
  const json = stdout.slice(stdout.indexOf('[\n'));
  const [result] = JSON.parse(json) as { files: { path: string }[] }[];
  return result.files.map((file) => file.path).sort();
}

beforeAll(async () => {
  clone = join(mkdtempSync(join(tmpdir(), 'fresh-clone-')), 'repo');
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  for (const file of stdout.split('\0').filter(Boolean)) {
    mkdirSync(join(clone, dirname(file)), { recursive: true });
    try {
      cpSync(join(ROOT, file), join(clone, file));
    } catch {
      // Deleted in the working tree but not yet in the index: a fresh clone would not have it either.
    }
  }
  symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
}, 60_000);

afterAll(() => {
  rmSync(dirname(clone), { recursive: true, force: true });
});

describe('npm pack on a fresh clone', () => {
  it('the middleware package builds first and ships its code for require() and import, with types for each', async () => {
    const files = await packedFiles([]);
    for (const file of ['dist/index.js', 'dist/index.cjs', 'dist/index.d.ts', 'dist/index.d.cts', 'dist/protocol.js', 'dist/protocol.cjs', 'dist/protocol.d.ts', 'dist/protocol.d.cts', 'README.md', 'package.json']) {
      expect(files).toContain(file);
    }
  }, 120_000);

  it('the endpoint package builds first and ships its code, its command, its page and its README', async () => {
    const files = await packedFiles(['-w', 'endpoint']);
    for (const file of ['dist/index.js', 'dist/index.cjs', 'dist/index.d.ts', 'dist/index.d.cts', 'dist/cli.js', 'dist/page/app.js', 'dist/page/app.css', 'README.md', 'package.json']) {
      expect(files).toContain(file);
    }
    expect(files.filter((file) => file.startsWith('src/') || file.startsWith('test/'))).toEqual([]);
  }, 180_000);
});
