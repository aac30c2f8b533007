/**
 * The package's types against each bot SDK alone, as a TypeScript user installs it: the packed
 * tarball (not this repository, so nothing of ours can reach a dependency we do not declare) in a
 * project with only that SDK, `strict`, without `skipLibCheck`, for each module setup users have.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const TSC = join(ROOT, 'node_modules', '.bin', 'tsc');

/** The SDK packages each project gets, linked from this repository's install (their own dependencies resolve from there). */
const SDKS = {
  'agents-sdk': ['@microsoft/agents-hosting', '@microsoft/agents-activity'],
  botbuilder: ['botbuilder'],
  'no-sdk': [],
} as const;
type Sdk = keyof typeof SDKS;

/** The other SDK's packages, which must not be reachable from a project that has only one of them (else its check proves nothing). */
const ABSENT: Record<Sdk, readonly string[]> = {
  'agents-sdk': ['botbuilder', 'botbuilder-core', 'botframework-schema'],
  botbuilder: ['@microsoft/agents-hosting', '@microsoft/agents-activity'],
  'no-sdk': ['botbuilder', 'botbuilder-core', 'botframework-schema', '@microsoft/agents-hosting', '@microsoft/agents-activity'],
};

const SETUPS = {
  'ESM, nodenext': { type: 'module', module: 'nodenext', moduleResolution: 'nodenext' },
  'CommonJS, nodenext': { type: 'commonjs', module: 'nodenext', moduleResolution: 'nodenext' },
  'bundler': { type: 'module', module: 'esnext', moduleResolution: 'bundler' },
} as const;
type Setup = keyof typeof SETUPS;

let work: string;
let unpacked: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sdk-types-'));
  // npm test builds dist/ first; pack it as npm would publish it.
  const { stdout } = await run('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', work], { cwd: ROOT });
  const tarball = join(work, stdout.trim().split('\n').pop() as string);
  unpacked = join(work, 'unpacked');
  mkdirSync(unpacked);
  await run('tar', ['xzf', tarball, '-C', unpacked]);
}, 60_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

/** A project with the packed package and one SDK (or none), and the file tsc checks. */
function project(sdk: Sdk, setup: Setup, label: string = setup): string {
  const dir = join(work, `${sdk}-${label.replace(/\W+/g, '-')}`);
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '@types'), { recursive: true });
  cpSync(join(unpacked, 'package'), join(modules, 'botbuilder-conversation-analytics'), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules', '@types', 'node'), join(modules, '@types', 'node'));
  for (const name of SDKS[sdk]) {
    mkdirSync(join(modules, name, '..'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), join(modules, name));
  }
  const { type, module, moduleResolution } = SETUPS[setup];
  cpSync(join(FIXTURES, `${sdk}.ts`), join(dir, 'main.ts'));
  // The other SDK must be out of the compiler's reach too: each import is expected to fail (TS2307),
  // and an import that compiles makes its @ts-expect-error unused, a type error of its own.
  writeFileSync(join(dir, 'absent.ts'), ABSENT[sdk].map((name, i) => `// @ts-expect-error ${name} is not installed in this project\nimport type * as absent${i} from '${name}';\nexport type { absent${i} };\n`).join(''));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, skipLibCheck: false, module, moduleResolution, target: 'es2022', noEmit: true, types: ['node'] },
      files: ['main.ts', 'absent.ts'],
    }),
  );
  return dir;
}

/** Where Node resolves `name` from `dir`'s package.json, or `undefined` when it cannot. */
function resolvedFrom(dir: string, name: string): string | undefined {
  try {
    return createRequire(join(dir, 'package.json')).resolve(name);
  } catch {
    return undefined;
  }
}

async function typeCheck(sdk: Sdk, setup: Setup): Promise<string> {
  const dir = project(sdk, setup);
  return run(TSC, ['-p', dir]).then(
    () => '',
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
}

describe('a TypeScript project with the package and one bot SDK (strict, no skipLibCheck)', () => {
  for (const setup of Object.keys(SETUPS) as Setup[]) {
    it.concurrent(`@microsoft/agents-hosting alone (${setup}): adapter.use(new TrackingMiddleware()) and the turn helpers compile`, async () => {
      expect(await typeCheck('agents-sdk', setup)).toBe('');
    }, 120_000);
    it.concurrent(`botbuilder alone (${setup}): CloudAdapter, BotFrameworkAdapter and TestAdapter take the middlewares`, async () => {
      expect(await typeCheck('botbuilder', setup)).toBe('');
    }, 120_000);
  }
  for (const setup of ['ESM, nodenext', 'CommonJS, nodenext'] as const) {
    it.concurrent(`neither SDK (${setup}): the client and the structural turn types compile`, async () => {
      expect(await typeCheck('no-sdk', setup)).toBe('');
    }, 120_000);
  }
});

describe('each project has only the SDK it is meant to have', () => {
  for (const sdk of Object.keys(SDKS) as Sdk[]) {
    it(`${sdk}: its own SDK resolves from the project and the package; the other SDK from neither`, () => {
      const dir = project(sdk, 'bundler', 'resolution');
      const packageDir = join(dir, 'node_modules', 'botbuilder-conversation-analytics');
      for (const name of SDKS[sdk]) expect(resolvedFrom(dir, name), name).toBeDefined();
      for (const name of ABSENT[sdk]) {
        expect(resolvedFrom(dir, name), name).toBeUndefined();
        expect(resolvedFrom(packageDir, name), name).toBeUndefined();
      }
    });
  }
});

describe('the package at run time with neither SDK installed', () => {
  it('imports and requires, and a middleware records a turn given a plain context', async () => {
    const dir = join(work, 'runtime-no-sdk');
    mkdirSync(join(dir, 'node_modules'), { recursive: true });
    cpSync(join(unpacked, 'package'), join(dir, 'node_modules', 'botbuilder-conversation-analytics'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    // A turn as a bot SDK would run it, without one: the middleware queues the incoming message.
    const script = `
      import { TrackingClient, TrackingMiddleware } from 'botbuilder-conversation-analytics';
      import { createRequire } from 'node:module';
      const cjs = createRequire(import.meta.url)('botbuilder-conversation-analytics');
      for (const sdk of ['botbuilder', '@microsoft/agents-hosting']) {
        await import(sdk).then(() => { throw new Error(sdk + ' should not be installed here'); }, () => undefined);
      }
      const http = await import('node:http');
      const logged = [];
      const sink = http.createServer((req, res) => {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => { logged.push(JSON.parse(body)); res.end('{}'); });
      });
      await new Promise((r) => sink.listen(0, '127.0.0.1', r));
      const client = new TrackingClient({ apiKey: 'k', baseUrl: 'http://127.0.0.1:' + sink.address().port, logger: false });
      const middleware = new TrackingMiddleware(client);
      const context = {
        activity: { type: 'message', text: 'hi', channelId: 'webchat', from: { id: 'u1' }, recipient: { id: 'b' }, conversation: { id: 'c' } },
        turnState: new Map(), onSendActivities() {}, onUpdateActivity() {}, onDeleteActivity() {},
      };
      await middleware.onTurn(context, async () => undefined);
      await client.close(5000);
      sink.close();
      console.log(JSON.stringify({ cjs: typeof cjs.TrackingMiddleware, texts: logged.map((r) => r.text) }));
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: dir });
    expect(JSON.parse(stdout.trim())).toEqual({ cjs: 'function', texts: ['hi'] });
  }, 30_000);
});
