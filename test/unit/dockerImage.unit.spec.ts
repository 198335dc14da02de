import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

/** The first path segment of every path the build reads: `npm run build`'s arguments, the prepare script, tsconfig.build.json's includes and base. */
function pathsTheBuildReads(): Set<string> {
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
  const tokens = [...scripts.build!.split(/\s+/), ...scripts.prepare!.split(/\s+/)].filter((token) => token.includes('/') || token.endsWith('.json'));
  // tsconfig.json allows comments: strip them before parsing.
  const buildConfig = JSON.parse(read('tsconfig.build.json').replace(/^\s*\/\/.*$/gm, '')) as { extends: string; include: string[] };
  return new Set([...tokens, buildConfig.extends, ...buildConfig.include].map((path) => path.replace(/^\.\//, '').split('/')[0]!));
}

/** What the Dockerfile's build stage (up to its second FROM) copies into the image, by first path segment. */
function copiedIntoBuildStage(): Set<string> {
  const buildStage = read('Dockerfile').split(/^FROM /m)[1]!;
  const copied = [...buildStage.matchAll(/^COPY\s+(.+)$/gm)].flatMap((m) => m[1]!.trim().split(/\s+/).slice(0, -1));
  return new Set(copied.map((path) => path.replace(/^\.\//, '').split('/')[0]!));
}

describe('the Docker image', () => {
  it('copies into its build stage everything the build reads (the client package included)', () => {
    const reads = pathsTheBuildReads();
    expect(reads).toContain('packages');
    expect([...reads].filter((path) => !copiedIntoBuildStage().has(path))).toEqual([]);
  });
});
