#!/usr/bin/env node
// `npm run mutate:table`: writes the mutation scores that `npm run mutate` recorded in
// docs/mutation-scores.json as tables: a compact one in CONTRIBUTING.md (between the
// `mutation-scores` markers: each module with its score, three to a row, and a summary line) and the
// full one (detected, survived, not covered, ignored, when measured) in docs/mutation.md.
// `--print` shows CONTRIBUTING.md's table without writing anything.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { modulesIn } from './modules.mjs';

const SCORES = 'docs/mutation-scores.json';
const START = '<!-- mutation-scores:start -->';
const END = '<!-- mutation-scores:end -->';
const TARGET = 85;
const PER_ROW = 3;

if (!existsSync(SCORES)) {
  console.error(`No ${SCORES} yet: run \`npm run mutate -- <modules>\` first.`);
  process.exit(2);
}
// The modules the target applies to (issue 18): the tracking API, the client, the middleware, the
// endpoint's HTTP, API and store rooms, and the CLI's import parsing. Type-only files have no mutants.
const SCOPE = ['src/protocol', 'src/client', 'src/middleware', 'src/moved', 'endpoint/src/http', 'endpoint/src/api', 'endpoint/src/store', 'endpoint/src/cli/csv.ts', 'endpoint/src/cli/import-rows.ts', 'endpoint/src/cli/timestamp.ts'];
// Files Stryker finds no mutant in: types only, or (transport.ts) types and constants marked equivalent.
const NO_MUTANTS = new Set(['src/protocol/types.ts', 'src/client/client-types.ts', 'src/client/transport.ts', 'src/middleware/sdk-types.ts', 'endpoint/src/store/schema.ts']);
const recorded = JSON.parse(readFileSync(SCORES, 'utf8'));
// A score of a module that no longer exists (moved or split) says nothing about today's code.
const gone = Object.keys(recorded).filter((file) => !existsSync(file));
const scores = Object.entries(recorded).filter(([file]) => existsSync(file)).sort(([a], [b]) => a.localeCompare(b));
const unmeasured = SCOPE.flatMap(modulesIn).filter((file) => !(file in recorded) && !NO_MUTANTS.has(file)).sort();
const short = (file) => file.replace(/^src\//, '').replace(/^endpoint\/src\//, 'endpoint/');
const mark = (s) => (s.score >= TARGET ? `${s.score.toFixed(1)}%` : `**${s.score.toFixed(1)}%**`);

const compact = [];
compact.push(`| ${Array(PER_ROW).fill('module | score').join(' | ')} |`);
compact.push(`|${Array(PER_ROW).fill('---|---:').join('|')}|`);
for (let i = 0; i < scores.length; i += PER_ROW) {
  const cells = scores.slice(i, i + PER_ROW).map(([file, s]) => `\`${short(file)}\` | ${mark(s)}`);
  while (cells.length < PER_ROW) cells.push(' | ');
  compact.push(`| ${cells.join(' | ')} |`);
}
const below = scores.filter(([, s]) => s.score < TARGET);
const lowest = scores.reduce((min, [, s]) => Math.min(min, s.score), 100);
const notYet = unmeasured.length === 0 ? '' : ` Not measured yet, of the modules the target covers (${unmeasured.length}): ${unmeasured.map((file) => `\`${short(file)}\``).join(', ')}.`;
const summary = `${scores.length} modules; lowest ${lowest.toFixed(1)}%; ${below.length === 0 ? `all at or above ${TARGET}%` : `${below.length} below ${TARGET}% (in bold)`}.${notYet} Detail per module: [docs/mutation.md](docs/mutation.md).`;
const readmeTable = `${compact.join('\n')}\n\n${summary}`;
if (process.argv.includes('--print')) {
  console.log(readmeTable);
  process.exit(0);
}

const full = [
  '# Mutation scores',
  '',
  `What \`npm run mutate\` measured, per module (\`npm run mutate:table\` writes this page from ${SCORES}). The score is`,
  'detected (killed or timed out) over all mutants less the ignored ones: mutants marked equivalent in the',
  'module itself (`// Stryker disable … : why`), counted neither as detected nor in the total. The target is',
  `${TARGET}%.`,
  '',
  `| module | score | detected | survived | not covered | ignored | ≥ ${TARGET}% | measured |`,
  '|---|---:|---:|---:|---:|---:|---|---|',
  ...scores.map(([file, s]) => `| \`${file}\` | ${s.score.toFixed(1)}% | ${s.killed} | ${s.survived} | ${s.noCoverage} | ${s.ignored} | ${s.score >= TARGET ? 'pass' : '**below**'} | ${s.at} |`),
  '',
  ...(unmeasured.length === 0 ? [] : [`Not measured yet (the target covers them; files with types only have no mutants): ${unmeasured.map((file) => `\`${file}\``).join(', ')}.`, '']),
  ...(gone.length === 0 ? [] : [`Recorded for files that no longer exist (moved or split since; not shown above): ${gone.map((file) => `\`${file}\``).join(', ')}.`, '']),
].join('\n');
writeFileSync('docs/mutation.md', full);

const readme = readFileSync('CONTRIBUTING.md', 'utf8');
const start = readme.indexOf(START);
const end = readme.indexOf(END);
if (start === -1 || end === -1) {
  console.error(`CONTRIBUTING.md has no ${START} … ${END} markers.`);
  process.exit(2);
}
writeFileSync('CONTRIBUTING.md', `${readme.slice(0, start + START.length)}\n${readmeTable}\n${readme.slice(end)}`);
console.log(`CONTRIBUTING.md and docs/mutation.md: ${scores.length} modules.`);
