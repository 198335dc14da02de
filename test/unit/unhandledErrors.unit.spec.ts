import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the test run itself', () => {
  it('fails, and says so on its closing line, when a test leaves an unhandled error behind', () => {
    const run = spawnSync(path.join(ROOT, 'node_modules/.bin/vitest'), ['run', '--config', 'test/fixtures/vitest.fixtures.config.ts'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CI: 'true' } });
    expect(run.status).not.toBe(0);
    expect(run.stdout).toMatch(/Tests: 1 passed, 1 failed, 0 skipped/);
  }, 60_000);
});
