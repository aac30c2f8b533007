/**
 * The layer rules (docs/architecture.md) as `npm run lint` applies them: ESLint's Node API with the
 * repository's own eslint.config.js, on code written as if it were a file of a package's src/ (the
 * middleware package's src/, or the endpoint's endpoint/src/). Each form of an upward import, and
 * every path into the other package's folder, fails naming the rule; the imports the layers allow pass.
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
    ['src/middleware/x.ts', "export { startTrackingEndpoint } from '../../endpoint/src/index.js';", /in another package\. Import that package by its name/],
    ['src/middleware/x.ts', "export const cli = () => import('../../endpoint/src/cli/main.js');", /in another package\. Import that package by its name/],
    ['src/middleware/x.ts', "export { startTrackingEndpoint } from 'botbuilder-conversation-analytics-endpoint';", /the middleware package never imports the endpoint package/],
    ['src/client/x.ts', "export const ep = () => import('botbuilder-conversation-analytics-endpoint');", /the middleware package never imports the endpoint package/],
    ['src/moved/x.ts', "export * from '../client/index.js';", /moved\/ .* imports nothing of ours/],
    ['endpoint/src/api/x.ts', "export { TrackingClient } from '../../../src/client/index.js';", /in another package\. Import that package by its name/],
    ['endpoint/src/store/x.ts', "export * from '../../../src/protocol/index.js';", /in another package\. Import that package by its name/],
    ['endpoint/src/x.ts', "export * from '../../src/middleware/intents.js';", /in another package\. Import that package by its name/],
    ['endpoint/src/x.ts', "export * from 'botbuilder-conversation-analytics';", /from the middleware package's protocol export only/],
    ['endpoint/src/http/x.ts', "export { TrackingClient } from 'botbuilder-conversation-analytics';", /from the middleware package's protocol export only/],
    ['endpoint/src/store/x.ts', "export * from '../read/filter.js';", /store\/ is the bottom of the endpoint/],
    ['endpoint/src/store/x.ts', "export * from '../http/respond.js';", /store\/ is the bottom of the endpoint/],
    ['endpoint/src/read/x.ts', "export * from '../api/params.js';", /read\/ may import store\/ and the endpoint's shared types/],
    ['endpoint/src/page/browser/x.ts', "export { startTrackingEndpoint } from '../../endpoint.js';", /page\/browser\/ is bundled for the browser/],
    ['endpoint/src/page/browser/x.ts', "export { TrackingEndpointError } from '../../errors.js';", /page\/browser\/ is bundled for the browser/],
    ['src/index.ts', "export * from './moved/endpoint.js';", /the root entry re-exports protocol\/, client\/ and middleware\/ only/],
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
    for (const folder of ['src/protocol/', 'src/client/', 'src/middleware/', 'endpoint/src/store/', 'endpoint/src/read/', 'endpoint/src/cli/']) expect(page).toContain(`\`${folder}\``);
    expect(existsSync(path.join(root, 'eslint-rules/layers.js'))).toBe(true);
  });
});

describe('the browser page takes only types from the endpoint', () => {
  it('a value import of ../../types.js fails; a type import passes', async () => {
    const value = await layerErrors('endpoint/src/page/browser/x.ts', "import { RecordsEvent } from '../../types.js';\nexport const e: RecordsEvent | undefined = undefined;");
    expect(value.map((e) => e.message)).toEqual([expect.stringMatching(/import types only from it \(`import type`\)/)]);
    expect(await layerErrors('endpoint/src/page/browser/x.ts', "import type { RecordsEvent } from '../../types.js';\nexport type E = RecordsEvent;")).toEqual([]);
    expect(await layerErrors('endpoint/src/page/browser/x.ts', "import { type RecordsEvent } from '../../types.js';\nexport type E = RecordsEvent;")).toEqual([]);
  });
});

describe('no file of src/ imports a bot SDK, in any form', () => {
  it.each([
    ['src/client/x.ts', "export const sdk = () => import('botbuilder');"],
    ['src/middleware/x.ts', "import type { TurnContext } from 'botbuilder-core';\nexport type T = TurnContext;"],
    ['src/middleware/x.ts', "export const hosting = require('@microsoft/agents-hosting');"],
    ['endpoint/src/cli/x.ts', "export { CloudAdapter } from 'botframework-connector';"],
    ['endpoint/src/store/x.ts', "import type { TurnContext } from 'botbuilder';\nexport type T = TurnContext;"],
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
    ['src/moved/x.ts', "export * from './message.js';"],
    ['endpoint/src/api/x.ts', "export * from 'botbuilder-conversation-analytics/protocol';\nexport * from '../store/store.js';\nexport * from '../http/respond.js';"],
    ['endpoint/src/store/x.ts', "export * from 'botbuilder-conversation-analytics/protocol';\nexport * from './dialect.js';\nexport * from '../types.js';\nexport * from '../errors.js';"],
    ['endpoint/src/read/x.ts', "export * from '../store/store.js';\nexport * from './filter.js';\nexport type * from '../types.js';"],
    ['endpoint/src/page/browser/x.ts', "export * from './dom.js';"],
    ['endpoint/src/cli/x.ts', "export * from '../index.js';\nexport * from '../store/open.js';\nexport * from 'botbuilder-conversation-analytics';\nexport * from 'botbuilder-conversation-analytics/protocol';"],
    ['src/index.ts', "export * from './protocol/index.js';\nexport * from './client/index.js';\nexport * from './middleware/index.js';"],
  ])('%s: %s', async (file, code) => {
    expect(await layerErrors(file, code)).toEqual([]);
  });
});
