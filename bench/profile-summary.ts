/**
 * Summarizes a `.cpuprofile` (from `BENCH_CPU_PROF=1 npm run bench` or `node --cpu-prof`): the
 * functions and files with the most self time, and the inclusive time of the package's functions.
 * The bench's workers are bundles (bench/lib/build.ts); a frame in one is named by the source file
 * esbuild marks it with (`// src/client/intake.ts`), with its line in the bundle.
 *
 *   npx tsx bench/profile-summary.ts bench/profiles/sender-ours-….cpuprofile [top]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

const [file, topArg] = process.argv.slice(2);
if (file === undefined) {
  console.error('usage: tsx bench/profile-summary.ts <file.cpuprofile> [top]');
  process.exit(2);
}
const top = Number(topArg ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
// Idle time and the (program) bucket are left out: percentages are of the time spent working.
const ignored = new Set(['(idle)', '(program)']);
for (const [id] of selfUs) if (ignored.has(byId.get(id)!.callFrame.functionName)) selfUs.delete(id);
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

/** Per bundle: the lines where each bundled source file starts (esbuild's `// path` comments), in order. */
const bundles = new Map<string, { line: number; source: string }[]>();
function bundleSources(path: string): { line: number; source: string }[] {
  let starts = bundles.get(path);
  if (starts === undefined) {
    starts = [];
    try {
      readFileSync(path, 'utf8')
        .split('\n')
        .forEach((text, i) => {
          const m = /^\/\/ ((?:src|bench)\/\S+\.ts)$/.exec(text);
          if (m !== null) starts!.push({ line: i, source: m[1] });
        });
    } catch {
      // not readable: the bundle's own name is used
    }
    bundles.set(path, starts);
  }
  return starts;
}

/** A frame's file: relative to the repository or node_modules; in a bench bundle, the bundled source file it is in. */
function shortUrl(url: string, lineNumber = 0): string {
  const path = url.replace(/^file:\/\//, '');
  if (/\/node_modules\/\.cache\/bench-workers\/[^/]+\.mjs$/.test(path)) {
    let source: string | undefined;
    for (const start of bundleSources(path)) {
      if (start.line > lineNumber) break;
      source = start.source;
    }
    if (source !== undefined) return `${source} (bundle)`;
  }
  return path.replace(/^.*\/node_modules\//, 'node_modules/').replace(/^.*\/work\/main\//, '');
}

const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
for (const [id, us] of selfUs) {
  const frame = byId.get(id)!.callFrame;
  const where = shortUrl(frame.url, frame.lineNumber) || '(native)';
  const fn = `${frame.functionName || '(anonymous)'}  ${where}:${frame.lineNumber + 1}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  const fileKey = frame.url === '' ? frame.functionName || '(native)' : where;
  byFile.set(fileKey, (byFile.get(fileKey) ?? 0) + us);
}
// Inclusive time of functions in this repository (src/, bench/): self time of every node below them, each counted once per stack.
const inclusive = new Map<string, number>();
for (const [id, us] of selfUs) {
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const frame = byId.get(at)!.callFrame;
    const where = shortUrl(frame.url, frame.lineNumber);
    if (!where.startsWith('src/')) continue;
    const key = `${frame.functionName || '(anonymous)'}  ${where}:${frame.lineNumber + 1}`;
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + us);
  }
}
const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
console.log(`${(total / 1000).toFixed(0)} ms working (idle left out)\n\nself time by function:`);
for (const [k, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(us)}  ${k}`);
console.log('\ninclusive time of functions in src/:');
for (const [k, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(us)}  ${k}`);
console.log('\nself time by file:');
for (const [k, us] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(us)}  ${k}`);
