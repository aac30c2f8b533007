/**
 * What a user reads on the registry's page: each package's README is shown there without the
 * repository beside it, so its links and images are absolute (to this repository's files, which
 * must exist) and each package.json says where the repository, its home page and its issues are.
 * The docs inside the repository link to files that exist, and the tracking API the READMEs cite
 * is in the repository, identical to the spec it copies.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const manifest = (path: string) => JSON.parse(read(path)) as { repository?: { url?: string; directory?: string }; homepage?: string; bugs?: { url?: string } };

const REPOSITORY = manifest('package.json').repository?.url?.replace(/^git\+/, '').replace(/\.git$/, '') ?? '';

/** Every link and image target of a markdown text (code spans and blocks left out). */
function targets(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((match) => match[1]);
}

describe.each(['package.json', 'endpoint/package.json'])('%s', (file) => {
  it('names the repository, its home page and where to report a bug, all on the same repository', () => {
    const pkg = manifest(file);
    expect(REPOSITORY).toMatch(/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/);
    expect(pkg.repository?.url).toBe(`git+${REPOSITORY}.git`);
    expect(pkg.homepage?.startsWith(REPOSITORY)).toBe(true);
    expect(pkg.bugs?.url).toBe(`${REPOSITORY}/issues`);
    if (file.startsWith('endpoint/')) expect(pkg.repository?.directory).toBe('endpoint');
  });
});

describe.each(['README.md', 'endpoint/README.md'])('%s, as the registry shows it', (file) => {
  it('links and images are absolute, and those into this repository name files that exist', () => {
    const links = targets(read(file));
    expect(links.length).toBeGreaterThan(3);
    for (const link of links) {
      if (link.startsWith('#')) continue;
      expect(link, `${file}: ${link} is relative: the registry's page cannot follow it`).toMatch(/^https:\/\//);
      const ours = new RegExp(`^${REPOSITORY}/(?:blob|raw|tree)/main/([^#?]*)`).exec(link);
      if (ours) expect(existsSync(join(ROOT, ours[1] || '.')), `${file}: ${link} names a file that is not in the repository`).toBe(true);
    }
  });
});

describe('the docs in the repository', () => {
  const pages = ['CONTRIBUTING.md', 'samples/README.md', 'bench/README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

  it.each(pages)('%s links only to files that exist', (page) => {
    for (const link of targets(read(page))) {
      if (/^(https?:|mailto:|#)/.test(link)) continue;
      const path = join(ROOT, page, '..', link.split('#')[0]);
      expect(existsSync(path), `${page}: ${link}`).toBe(true);
    }
  });

  it('the tracking API the READMEs cite is in the repository, identical to the spec', () => {
    const spec = join(ROOT, '..', 'shared', 'spec', 'tracking-api.md');
    const copy = read('docs/tracking-api.md');
    expect(copy).toContain('POST');
    // Beside the repository on the project's machines and in CI; a clone elsewhere has only the copy.
    if (existsSync(spec)) expect(copy).toBe(readFileSync(spec, 'utf8'));
  });
});
