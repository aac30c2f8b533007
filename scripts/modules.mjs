// The modules of a file or folder that mutation testing looks at: its .ts files, without
// declaration files and index.ts barrels (they only re-export). Shared by mutate.mjs and
// mutation-table.mjs, so that what a run measures and what the table expects are the same files.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The modules under `path` (a file is itself); none when it does not exist. */
export function modulesIn(path) {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { recursive: true }).map((name) => join(path, String(name)))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts') && !file.endsWith('/index.ts') && statSync(file).isFile());
}
