import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/commands/organizationCommands.ts';
import { readModelsCurrent } from '../../src/projections/readModelsCurrent.ts';
import { createTestRuntime, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

/** What an erasure waits for before it reads its closure from the read models (src/projections/readModelsCurrent.ts). */
describe('the read models caught up with the log', () => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await createTestRuntime('read-models-current');
    await t.runtime.projections.catchUp();
  });
  afterAll(async () => t?.close());

  const organizationRow = (slug: string) => t.runtime.db.selectFrom('organizations').select('slug').where('slug', '=', slug).execute();

  it('in a process that projects itself (the CLI): brings them up to the head, so what was appended a moment ago shows', async () => {
    const slug = `o-${randomUUID().slice(0, 8)}`;
    await createOrganization(t.runtime.commands, { slug, name: 'Current' }, testPrincipal);
    expect(await organizationRow(slug)).toEqual([]);
    await readModelsCurrent(t.runtime.projections, t.runtime.eventStore, { projectsItself: true, waitMs: 10_000 })();
    expect(await organizationRow(slug)).toEqual([{ slug }]);
  });

  it('in a server: waits for whoever runs the projections, and fails with PROJECTION_TIMEOUT while nobody brings them to the head', async () => {
    const slug = `o-${randomUUID().slice(0, 8)}`;
    await createOrganization(t.runtime.commands, { slug, name: 'Behind' }, testPrincipal);
    const current = readModelsCurrent(t.runtime.projections, t.runtime.eventStore, { projectsItself: false, waitMs: 100 });
    await expect(current()).rejects.toMatchObject({ code: 'PROJECTION_TIMEOUT' });
    expect(await organizationRow(slug)).toEqual([]);
    // Another process's projections (here this one's, caught up) reach the head: the wait resolves.
    await t.runtime.projections.catchUp();
    await expect(current()).resolves.toBeUndefined();
  });
});
