#!/usr/bin/env node
// `npm run mutate:table`: writes the mutation scores that `npm run mutate` recorded in
// docs/mutation-scores.json as tables: a compact one in README.md's development section (between the
// `mutation-scores` markers: each module with its score, three to a row, and a summary line) and the
// full one (detected, survived, not covered, ignored, when measured) in docs/mutation.md.
// `--print` shows the README's table without writing anything.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const SCORES = 'docs/mutation-scores.json';
const START = '<!-- mutation-scores:start -->';
const END = '<!-- mutation-scores:end -->';
const TARGET = 85;
const PER_ROW = 3;

if (!existsSync(SCORES)) {
  console.error(`No ${SCORES} yet: run \`npm run mutate -- <modules>\` first.`);
  process.exit(2);
}
const scores = Object.entries(JSON.parse(readFileSync(SCORES, 'utf8'))).sort(([a], [b]) => a.localeCompare(b));
const short = (file) => file.replace(/^src\//, '');
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
const summary = `${scores.length} modules; lowest ${lowest.toFixed(1)}%; ${below.length === 0 ? `all at or above ${TARGET}%` : `${below.length} below ${TARGET}% (in bold)`}. Detail per module: [docs/mutation.md](docs/mutation.md).`;
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
].join('\n');
writeFileSync('docs/mutation.md', full);

const readme = readFileSync('README.md', 'utf8');
const start = readme.indexOf(START);
const end = readme.indexOf(END);
if (start === -1 || end === -1) {
  console.error(`README.md has no ${START} … ${END} markers.`);
  process.exit(2);
}
writeFileSync('README.md', `${readme.slice(0, start + START.length)}\n${readmeTable}\n${readme.slice(end)}`);
console.log(`README.md and docs/mutation.md: ${scores.length} modules.`);
