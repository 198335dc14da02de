import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstClosedFolder } from '../../src/database/embeddedPostgres.ts';
import { runCli } from '../support/runProcess.ts';

/**
 * Issue 39 point 6: as root the embedded PostgreSQL runs as the `postgres` user, which must enter
 * every folder above its programs and its data. A folder it cannot enter is named before anything
 * starts, with what to do, instead of failing deep inside initdb (`spawn … EACCES`).
 */
describe('the embedded PostgreSQL and folders the postgres user cannot enter', () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'seqflow-private-'));
    await mkdir(path.join(scratch, 'private', 'deep'), { recursive: true });
    await chmod(path.join(scratch, 'private'), 0o700);
  });
  afterAll(async () => rm(scratch, { recursive: true, force: true }));

  it('finds the first folder above a path that others cannot enter, and none above an open one', async () => {
    expect(await firstClosedFolder(path.join(scratch, 'private', 'deep', 'initdb'))).toEqual({ folder: path.join(scratch, 'private'), mode: '700' });
    await chmod(scratch, 0o755);
    expect(await firstClosedFolder(path.join(scratch, 'file'))).toBeNull();
  });

  it.runIf(process.getuid?.() === 0)('as root, refuses a data folder below a private one with one clear line, before starting anything', async () => {
    const dataDir = path.join(scratch, 'private', 'deep', 'data');
    const started = await runCli(['serve'], { DATABASE_URL: '', SEQFLOW_DATA_DIR: dataDir, SEQFLOW_MASTER_KEY: '', PORT: '0', SEQFLOW_DEMO: 'false' });
    expect(started.code).toBe(1);
    expect(started.stderr).toContain(`cannot enter ${path.join(scratch, 'private')} (mode 700), where its data would be`);
    expect(started.stderr).toContain('Set SEQFLOW_DATA_DIR to a folder outside it');
    expect(started.stderr).not.toContain('EACCES');
  });
});
