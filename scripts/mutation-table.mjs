#!/usr/bin/env node
// Writes the table of mutation scores per module into README.md's development section (between the
// `mutation-scores` markers), from what `npm run mutate` recorded in docs/mutation-scores.json.
// `node scripts/mutation-table.mjs` after a run; `--print` shows the table without writing it.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const SCORES = 'docs/mutation-scores.json';
const START = '<!-- mutation-scores:start -->';
const END = '<!-- mutation-scores:end -->';
const TARGET = 85;

if (!existsSync(SCORES)) {
  console.error(`No ${SCORES} yet: run \`npm run mutate -- <modules>\` first.`);
  process.exit(2);
}
const scores = JSON.parse(readFileSync(SCORES, 'utf8'));
const rows = Object.entries(scores)
  .sort(([a], [b]) => a.localeCompare(b))
  .map(([file, s]) => `| \`${file}\` | ${s.score.toFixed(1)}% | ${s.killed} | ${s.survived} | ${s.noCoverage} | ${s.ignored} | ${s.score >= TARGET ? 'pass' : '**below**'} | ${s.at} |`);
const table = [
  `| module | score | detected | survived | not covered | ignored (equivalent, see the module) | ≥ ${TARGET}% | measured |`,
  '|---|---:|---:|---:|---:|---:|---|---|',
  ...rows,
].join('\n');
if (process.argv.includes('--print')) {
  console.log(table);
  process.exit(0);
}
const readme = readFileSync('README.md', 'utf8');
const start = readme.indexOf(START);
const end = readme.indexOf(END);
if (start === -1 || end === -1) {
  console.error(`README.md has no ${START} … ${END} markers.`);
  process.exit(2);
}
writeFileSync('README.md', `${readme.slice(0, start + START.length)}\n${table}\n${readme.slice(end)}`);
console.log(`README.md: ${rows.length} modules.`);
