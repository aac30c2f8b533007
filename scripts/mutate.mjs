#!/usr/bin/env node
// `npm run mutate -- <file|folder> ...`: mutation testing of the named modules with StrykerJS, then one
// line per module with its score (killed + timeout) / (all mutants - ignored, compile and runtime errors). Scores are kept in
// reports/mutation/scores.json, merged run after run, for `node scripts/mutation-table.mjs`.
// When Stryker fails (its dry run found a failing test, a config error, a crash…) it prints no
// scores and exits non-zero: the report is deleted before each run, so an old one is never read.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const args = process.argv.slice(2);
if (args.length === 0 || args.includes('--help')) {
  console.log('Usage: npm run mutate -- <module.ts|folder> [...]\n  e.g. npm run mutate -- src/client/retry.ts src/protocol');
  process.exit(args.length === 0 ? 2 : 0);
}
const files = [];
for (const arg of args) {
  if (!existsSync(arg)) { console.error(`No such file or folder: ${arg}`); process.exit(2); }
  if (statSync(arg).isDirectory()) {
    for (const name of readdirSync(arg, { recursive: true })) {
      const path = join(arg, String(name));
      if (path.endsWith('.ts') && !path.endsWith('.d.ts') && !path.endsWith('/index.ts') && statSync(path).isFile()) files.push(path);
    }
  } else files.push(arg);
}
if (files.length === 0) { console.error(`No module to mutate in: ${args.join(' ')}`); process.exit(2); }
const reportFile = 'reports/mutation/mutation.json';
rmSync(reportFile, { force: true });
const run = spawnSync('npx', ['--no-install', 'stryker', 'run', '--mutate', files.join(',')], { stdio: 'inherit' });
if (run.status !== 0 || !existsSync(reportFile)) {
  const how = run.error ? `could not start (${run.error.message})` : run.signal ? `was stopped by ${run.signal}` : run.status !== 0 ? `exited with code ${run.status}` : `wrote no ${reportFile}`;
  console.error(`\nThe mutation run failed: Stryker ${how}. No scores were recorded; see Stryker's output above (a failing test in its dry run is the usual cause).`);
  process.exit(run.status || 1);
}
const report = JSON.parse(readFileSync(reportFile, 'utf8'));
const scoresFile = 'reports/mutation/scores.json';
const scores = existsSync(scoresFile) ? JSON.parse(readFileSync(scoresFile, 'utf8')) : {};
const rows = [];
for (const [file, { mutants }] of Object.entries(report.files)) {
  const count = (...statuses) => mutants.filter((m) => statuses.includes(m.status)).length;
  const detected = count('Killed', 'Timeout');
  const valid = mutants.length - count('Ignored', 'CompileError', 'RuntimeError');
  const score = valid === 0 ? 100 : (100 * detected) / valid;
  const name = relative(process.cwd(), join(process.cwd(), file));
  scores[name] = { score: Math.round(score * 10) / 10, killed: detected, survived: count('Survived'), noCoverage: count('NoCoverage'), ignored: count('Ignored'), total: mutants.length, at: new Date().toISOString().slice(0, 10) };
  rows.push(`${score.toFixed(1).padStart(6)}%  ${name}  (${detected} of ${valid} detected; ${count('Survived')} survived, ${count('NoCoverage')} not covered, ${count('Ignored')} ignored)`);
}
mkdirSync('reports/mutation', { recursive: true });
writeFileSync(scoresFile, JSON.stringify(scores, null, 2) + '\n');
console.log('\nMutation score per module:\n' + rows.sort().join('\n'));
