#!/usr/bin/env node
// Builds each package's dist/ only when it is missing or older than a source file, and quietly: the
// build's own output is shown only when it fails. Used by `npm start`, the sample scripts and the
// endpoint's build (which needs the middleware package's declarations).
//   node scripts/build-if-stale.mjs              both packages (the middleware first)
//   node scripts/build-if-stale.mjs middleware   only the middleware package (the repository root)
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');

/** The two packages: where each lives, what it is built from, and the files a build leaves. */
const PACKAGES = {
  middleware: { dir: root, sources: ['src', 'package.json', 'tsup.config.ts'], outputs: ['dist/index.js', 'dist/protocol.js'] },
  endpoint: { dir: join(root, 'endpoint'), sources: ['src', 'package.json', 'tsup.config.ts'], outputs: ['dist/index.js', 'dist/cli.js', 'dist/page/app.js'] },
};

function newest(path) {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

const wanted = process.argv[2] ? [process.argv[2]] : ['middleware', 'endpoint'];
const unknown = wanted.find((name) => !PACKAGES[name]);
if (unknown !== undefined) {
  console.error(`Unknown package '${unknown}': say middleware or endpoint, or nothing for both.`);
  process.exit(2);
}

/** Whether a package's dist/ is missing or older than one of its sources. */
function stale(name) {
  const pkg = PACKAGES[name];
  // The endpoint's declarations are built against the middleware's: a newer middleware source makes it stale too.
  const sources = Math.max(...pkg.sources.map((path) => newest(join(pkg.dir, path))), name === 'endpoint' ? newest(join(root, 'src')) : 0);
  const outputs = pkg.outputs.map((path) => join(pkg.dir, path));
  return !outputs.every((path) => existsSync(path) && statSync(path).mtimeMs >= sources);
}

const building = wanted.filter(stale);
// Said before the build's silent half minute, so the first `npm start` does not look stuck.
if (building.length > 0) console.log(`Building the ${building.length === 1 ? `${building[0]} package` : 'packages'} (first run only, or after a source changed; ~30 s)…`);
for (const name of building) {
  const pkg = PACKAGES[name];
  const result = spawnSync('npx', ['--no-install', 'tsup', '--silent'], { cwd: pkg.dir, encoding: 'utf8', shell: process.platform === 'win32' });
  if (result.status !== 0) {
    process.stderr.write(result.stdout + result.stderr);
    console.error(`\nThe ${name} package failed to build (above). Run \`npm run build\` to see it again.`);
    process.exit(result.status ?? 1);
  }
}
