#!/usr/bin/env node
// `npm run mutate -- <file|folder> ...`: mutation testing of the named modules with StrykerJS, then one
// line per module with its score (killed + timeout) / (all mutants - ignored, compile and runtime errors). Scores are kept in
// docs/mutation-scores.json, merged run after run, for `npm run mutate:table` (CONTRIBUTING.md's table).
// Mutants marked equivalent in the code (`// Stryker disable next-line <mutator>: why`) are Ignored:
// counted neither as detected nor in the total. Each run has its own sandbox and report, so several
// runs (on different modules) can go on at once; `--incremental` re-tests only what changed since
// the last run on the same modules.
// When Stryker fails (its dry run found a failing test, a config error, a crash…) it prints no
// scores and exits non-zero: the report is deleted before each run, so an old one is never read.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { modulesIn } from './modules.mjs';
import { join, relative } from 'node:path';

// `--tests a,b`: only these test files or folders run (faster; a module's score can only be lower
// than with every test, never higher). Default: every test vitest.mutate.config.ts keeps.
const testsArg = process.argv.find((arg) => arg.startsWith('--tests='));
const args = process.argv.slice(2).filter((arg) => arg !== '--incremental' && !arg.startsWith('--tests='));
if (args.length === 0 || args.includes('--help')) {
  console.log('Usage: npm run mutate -- [--incremental] [--tests=test/dir,test/x.test.ts] <module.ts|folder> [...]\n  e.g. npm run mutate -- src/client/retry.ts src/protocol');
  process.exit(args.length === 0 ? 2 : 0);
}
const files = [];
for (const arg of args) {
  if (!existsSync(arg)) { console.error(`No such file or folder: ${arg}`); process.exit(2); }
  files.push(...modulesIn(arg));
}
if (files.length === 0) { console.error(`No module to mutate in: ${args.join(' ')}`); process.exit(2); }
const slot = `run-${process.pid}`;
const reportFile = `reports/mutation/${slot}.json`;
rmSync(reportFile, { force: true });
const incremental = process.argv.includes('--incremental');
const key = files.slice().sort().join(',').replace(/[^\w.-]+/g, '_').slice(0, 150);
const strykerArgs = ['--no-install', 'stryker', 'run', '--mutate', files.join(',')];
if (incremental) strykerArgs.push('--incremental', '--incrementalFile', `reports/mutation/incremental/${key}.json`);
const run = spawnSync('npx', strykerArgs, {
  stdio: 'inherit',
  env: { ...process.env, STRYKER_REPORT: reportFile, STRYKER_TEMP: `.stryker-tmp/${slot}`, ...(testsArg ? { STRYKER_TESTS: testsArg.slice('--tests='.length) } : {}) },
});
if (run.status !== 0 || !existsSync(reportFile)) {
  const how = run.error ? `could not start (${run.error.message})` : run.signal ? `was stopped by ${run.signal}` : run.status !== 0 ? `exited with code ${run.status}` : `wrote no ${reportFile}`;
  console.error(`\nThe mutation run failed: Stryker ${how}. No scores were recorded; see Stryker's output above (a failing test in its dry run is the usual cause).`);
  process.exit(run.status || 1);
}
const report = JSON.parse(readFileSync(reportFile, 'utf8'));
rmSync(reportFile, { force: true });
const scoresFile = 'docs/mutation-scores.json';
// Read as late as possible: another run may have written its modules' scores meanwhile.
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
const sorted = Object.fromEntries(Object.entries(scores).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(scoresFile, JSON.stringify(sorted, null, 2) + '\n');
console.log('\nMutation score per module:\n' + rows.sort().join('\n'));
