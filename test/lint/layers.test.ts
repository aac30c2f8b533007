/**
 * The layer rules (docs/architecture.md) as `npm run lint` applies them: ESLint's Node API with the
 * repository's own eslint.config.js, on code written as if it were a file of src/. Each form of an
 * upward import fails naming the rule; the imports the layers allow pass.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint, type Linter } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: root });
});

/** What the layer rule says about `code` as the file `file` (repo-relative); fails on a parse error, so "no errors" means something. */
async function layerErrors(file: string, code: string): Promise<Linter.LintMessage[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  const fatal = result.messages.filter((m) => m.fatal);
  expect(fatal, `${file} did not parse`).toEqual([]);
  return result.messages.filter((m) => m.ruleId === 'local/layers');
}

describe('an upward import fails lint, naming the rule, however it is spelled', () => {
  const upward: [file: string, code: string, rule: RegExp][] = [
    // The root barrel re-exports client/ and middleware/: importing it is importing them.
    ['src/protocol/x.ts', "import * as root from '../index.js';\nexport { root };", /protocol\/ imports nothing of ours/],
    ['src/protocol/x.ts', "export { TrackingClient } from './../client/index.js';", /protocol\/ imports nothing of ours/],
    ['src/protocol/x.ts', "export { TrackingClient } from '../../src/client/index.js';", /protocol\/ imports nothing of ours/],
    ['src/protocol/x.ts', "export const load = () => import('../client/index.js');", /protocol\/ imports nothing of ours/],
    ['src/protocol/x.ts', 'export const load = () => import(`../client/index.js`);', /protocol\/ imports nothing of ours/],
    ['src/protocol/x.ts', "export const client = require('../client/index.js');", /protocol\/ imports nothing of ours/],
    ['src/protocol/x.ts', "export * from '../middleware/index.js';", /protocol\/ imports nothing of ours/],
    ['src/protocol/x.ts', "import type { TrackingClient } from '../client/index.js';\nexport type C = TrackingClient;", /protocol\/ imports nothing of ours/],
    ['src/protocol/x.ts', "export type C = typeof import('../client/index.js');", /protocol\/ imports nothing of ours/],
    ['src/protocol/x.ts', "import '../client';", /protocol\/ imports nothing of ours/],
    ['src/client/transports/x.ts', "import '../../index.js';", /client\/ may import protocol\/ only/],
    ['src/client/x.ts', "export { TrackingMiddleware } from '../middleware/middleware.js';", /client\/ may import protocol\/ only/],
    ['src/client/x.ts', "export { TrackingMiddleware } from 'botbuilder-conversation-analytics';", /client\/ may import protocol\/ only/],
    ['src/middleware/x.ts', "export { startTrackingEndpoint } from '../endpoint/index.js';", /middleware\/ may import client\/ and protocol\/ only/],
    ['src/middleware/x.ts', "export const cli = () => import('../cli/main.js');", /middleware\/ may import client\/ and protocol\/ only/],
    ['src/endpoint/api/x.ts', "export { TrackingClient } from '../../client/index.js';", /endpoint\/ may import protocol\/ only/],
    ['src/endpoint/store/x.ts', "export * from '../../middleware/intents.js';", /endpoint\/ may import protocol\/ only/],
    ['src/endpoint/x.ts', "export * from 'botbuilder-conversation-analytics';", /endpoint\/ may import protocol\/ only/],
    ['src/endpoint/page/browser/x.ts', "export { startTrackingEndpoint } from '../../endpoint.js';", /page\/browser\/ is bundled for the browser/],
    ['src/endpoint/page/browser/x.ts', "export { validate } from '../../../protocol/index.js';", /page\/browser\/ is bundled for the browser/],
    ['src/index.ts', "export * from './endpoint/index.js';", /the root entry re-exports protocol\/, client\/ and middleware\/ only/],
  ];

  it.each(upward)('%s: %s', async (file, code, rule) => {
    const errors = await layerErrors(file, code);
    expect(errors).toHaveLength(1);
    expect(errors[0].severity).toBe(2);
    expect(errors[0].message).toMatch(/^Layer rule \(local\/layers\): /);
    expect(errors[0].message).toMatch(rule);
    expect(errors[0].message).toContain('see docs/architecture.md');
  });

  it('the page it points to is in the repository and has the layer table', async () => {
    const { readFile } = await import('node:fs/promises');
    const page = await readFile(path.join(root, 'docs/architecture.md'), 'utf8');
    for (const folder of ['src/protocol/', 'src/client/', 'src/middleware/', 'src/endpoint/', 'src/cli/']) expect(page).toContain(`\`${folder}\``);
    expect(existsSync(path.join(root, 'eslint-rules/layers.js'))).toBe(true);
  });
});

describe('the browser page takes only types from the endpoint', () => {
  it('a value import of ../../types.js fails; a type import passes', async () => {
    const value = await layerErrors('src/endpoint/page/browser/x.ts', "import { RecordsEvent } from '../../types.js';\nexport const e: RecordsEvent | undefined = undefined;");
    expect(value.map((e) => e.message)).toEqual([expect.stringMatching(/import types only from it \(`import type`\)/)]);
    expect(await layerErrors('src/endpoint/page/browser/x.ts', "import type { RecordsEvent } from '../../types.js';\nexport type E = RecordsEvent;")).toEqual([]);
    expect(await layerErrors('src/endpoint/page/browser/x.ts', "import { type RecordsEvent } from '../../types.js';\nexport type E = RecordsEvent;")).toEqual([]);
  });
});

describe('no file of src/ imports a bot SDK, in any form', () => {
  it.each([
    ['src/client/x.ts', "export const sdk = () => import('botbuilder');"],
    ['src/middleware/x.ts', "import type { TurnContext } from 'botbuilder-core';\nexport type T = TurnContext;"],
    ['src/middleware/x.ts', "export const hosting = require('@microsoft/agents-hosting');"],
    ['src/cli/x.ts', "export { CloudAdapter } from 'botframework-connector';"],
  ])('%s: %s', async (file, code) => {
    const errors = await layerErrors(file, code);
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/^Layer rule \(local\/layers\): the package never imports a bot SDK/)]);
  });
});

describe('the imports the layers allow pass', () => {
  it.each([
    ['src/protocol/x.ts', "export * from './types.js';\nexport * from '../protocol/platforms.js';"],
    ['src/client/x.ts', "export * from '../protocol/index.js';\nexport * from './../protocol/types.js';\nexport * from '../../src/protocol/schema.js';"],
    ['src/client/x.ts', "export const load = () => import('../protocol/index.js');\nexport const axios = () => import('axios');\nexport * from 'node:http';"],
    ['src/client/transports/x.ts', "export * from '../transport.js';\nexport * from '../../protocol/index.js';"],
    ['src/middleware/x.ts', "export * from '../client/index.js';\nexport * from '../protocol/index.js';\nexport * from './options.js';"],
    ['src/endpoint/api/x.ts', "export * from '../../protocol/index.js';\nexport * from '../store/store.js';\nexport * from '../http/respond.js';"],
    ['src/endpoint/page/browser/x.ts', "export * from './dom.js';"],
    ['src/cli/x.ts', "export * from '../index.js';\nexport * from '../endpoint/index.js';\nexport * from '../client/index.js';\nexport * from 'botbuilder-conversation-analytics/endpoint';"],
    ['src/index.ts', "export * from './protocol/index.js';\nexport * from './client/index.js';\nexport * from './middleware/index.js';"],
  ])('%s: %s', async (file, code) => {
    expect(await layerErrors(file, code)).toEqual([]);
  });
});
