#!/usr/bin/env node
// Builds dist/ only when it is missing or older than a source file, and quietly: the build's own
// output is shown only when it fails. Used by `npm start` and the sample scripts, so a user sees
// the demo's output and nothing else.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const built = join(root, 'dist', 'index.js');

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

const sources = Math.max(newest(join(root, 'src')), statSync(join(root, 'package.json')).mtimeMs, statSync(join(root, 'tsup.config.ts')).mtimeMs);
if (existsSync(built) && existsSync(join(root, 'dist', 'page', 'app.js')) && statSync(built).mtimeMs >= sources) process.exit(0);

const result = spawnSync('npx', ['--no-install', 'tsup', '--silent'], { cwd: root, encoding: 'utf8', shell: process.platform === 'win32' });
if (result.status !== 0) {
  process.stderr.write(result.stdout + result.stderr);
  console.error('\nThe package failed to build (above). Run `npm run build` to see it again.');
  process.exit(result.status ?? 1);
}
