import { fileURLToPath } from 'node:url';

/**
 * In this repository's tests each package name resolves to its source (as tsconfig.json's paths do
 * for tsc and tsx): a test of one package that uses the other runs today's code of both, with no
 * build between an edit and a test run. Processes the tests start with plain `node` (the samples,
 * the demo) resolve the names through node_modules to the built packages instead.
 */
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export const sourceAliases = [
  { find: /^botbuilder-conversation-analytics$/, replacement: here('./src/index.ts') },
  { find: /^botbuilder-conversation-analytics\/protocol$/, replacement: here('./src/protocol/index.ts') },
  { find: /^botbuilder-conversation-analytics-endpoint$/, replacement: here('./endpoint/src/index.ts') },
];
