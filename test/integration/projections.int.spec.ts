import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../src/commands/apiKeyCommands.ts';
import { importFlow, publishVersion } from '../../src/commands/flowCommands.ts';
import { addMember, createOrganization } from '../../src/commands/organizationCommands.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import { decodeEvent } from '../../src/domain/events/domainEvent.ts';
import { allProjections } from '../../src/projections/allProjections.ts';
import { createProjectionRunner } from '../../src/projections/projectionRunner.ts';
import { type ReadModels, readModelTables } from '../../src/projections/readModelSchema.ts';
import { createSupervisor } from '../../src/runtime/supervisor.ts';
import { createTestRuntime, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

const flowFile = (slug: string, blocks: number) => ({
  slug,
  name: `Flow ${slug}`,
  steps: Array.from({ length: blocks }, (_, i) =>
    i % 3 === 1
      ? { parallel: [{ name: `p${i}a`, processor_type: 'passthrough' }, { name: `p${i}b`, processor_type: 'code', code: 'return 1;' }] }
      : { block: { name: `b${i}`, processor_type: 'llm', prompt: `Step ${i}: {{message}}`, model: 'gpt-4o-mini', output_schema: { type: 'object', properties: { x: { type: 'string' } } } } },
  ),
});

/** Every read-model row, in a stable order: what a rebuild must reproduce exactly. */
async function snapshot(t: TestRuntime) {
  const out: Record<string, unknown[]> = {};
  for (const table of readModelTables) {
    const { rows } = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)} ORDER BY 1, 2`.execute(t.runtime.db);
    out[table] = rows;
  }
  return out;
}

describe('projections', () => {
  let t: TestRuntime;

  beforeAll(async () => {
    t = await createTestRuntime('projections');
  });
  afterAll(async () => t?.close());

  it('rebuilds every read model from the log into exactly the rows it had', async () => {
    const deps = t.runtime.commands;
    for (const org of ['alpha', 'beta', 'gamma']) {
      await createOrganization(deps, { slug: org, name: `Org ${org}` }, testPrincipal);
      await addMember(deps, { organizationSlug: org, userSubject: `${org}-owner`, role: 'owner' }, testPrincipal);
      await addMember(deps, { organizationSlug: org, userSubject: `${org}-dev`, role: 'member' }, testPrincipal);
      await addMember(deps, { organizationSlug: org, userSubject: `${org}-dev`, role: 'admin' }, testPrincipal);
      for (const project of ['web', 'api']) {
        await createProject(deps, { organizationSlug: org, slug: project, name: project }, testPrincipal);
        const key = await createApiKey(deps, { organizationSlug: org, projectSlug: project, environment: 'live' }, testPrincipal);
        await createApiKey(deps, { organizationSlug: org, projectSlug: project, environment: 'test' }, testPrincipal);
        await revokeApiKey(deps, { keyId: key.keyId }, testPrincipal);
        const first = await importFlow(deps, { organizationSlug: org, projectSlug: project, file: flowFile('triage', 4), production: true }, testPrincipal);
        await importFlow(deps, { organizationSlug: org, projectSlug: project, file: flowFile('triage', 6) }, testPrincipal);
        await publishVersion(deps, { flowId: first.flowId, note: 'second' }, testPrincipal);
        await importFlow(deps, { organizationSlug: org, projectSlug: project, file: flowFile('summary', 2), publish: true }, testPrincipal);
      }
    }
    await t.runtime.projections.catchUp();
    const before = await snapshot(t);
    expect(before.organizations).toHaveLength(3);
    expect(before.members).toHaveLength(6);
    expect(before.projects).toHaveLength(6);
    expect(before.api_keys).toHaveLength(12);
    expect(before.api_keys!.filter((k) => (k as { revoked_at: Date | null }).revoked_at !== null)).toHaveLength(6);
    expect(before.flows).toHaveLength(12);
    expect(before.flow_versions).toHaveLength(18);
    expect(before.flow_blocks!.length).toBeGreaterThan(0);

    await t.runtime.projections.rebuild();
    expect(await snapshot(t)).toEqual(before);
  });

  it('leaves the same rows when an event is applied twice', async () => {
    const events = await t.runtime.eventStore.readAll(0, 10_000);
    const before = await snapshot(t);
    await t.runtime.db.transaction().execute(async (trx) => {
      for (const recorded of events) {
        const event = decodeEvent(recorded.type, recorded.schemaVersion, recorded.data);
        for (const projection of allProjections) {
          if (!(projection.handles as readonly string[]).includes(recorded.type)) continue;
          await projection.apply(trx, event, { recorded, occurredAt: recorded.metadata.occurredAt });
        }
      }
    });
    expect(await snapshot(t)).toEqual(before);
  });

  it('lets a reader wait until its own write is projected (read-your-writes)', async () => {
    await t.runtime.projections.start();
    try {
      const created = await createOrganization(t.runtime.commands, { slug: 'fresh', name: 'Fresh' }, testPrincipal);
      await t.runtime.projections.waitForPosition(created.position, 5000);
      const row = await t.runtime.db.selectFrom('organizations').selectAll().where('slug', '=', 'fresh').executeTakeFirst();
      expect(row?.id).toBe(created.id);
    } finally {
      await t.runtime.projections.stop();
    }
  });

  it('times out with PROJECTION_TIMEOUT when the read models cannot reach a position', async () => {
    const head = await t.runtime.eventStore.headPosition();
    await expect(t.runtime.projections.waitForPosition(head + 1_000_000, 100)).rejects.toMatchObject({ code: 'PROJECTION_TIMEOUT' });
  });

  it('keeps the rows right when two runners (two processes) project the same log at once', async () => {
    const second = createProjectionRunner({ db: t.runtime.db, eventStore: t.runtime.eventStore, projections: allProjections, logger: t.runtime.logger, supervisor: createSupervisor({ logger: t.runtime.logger }) });
    await t.runtime.projections.start();
    await second.start();
    try {
      const positions = await Promise.all(
        Array.from({ length: 20 }, (_, i) => createOrganization(t.runtime.commands, { slug: `race-${i}`, name: `Race ${i}` }, testPrincipal)),
      );
      await t.runtime.projections.waitForPosition(Math.max(...positions.map((p) => p.position)), 10_000);
      const rows = await t.runtime.db.selectFrom('organizations').select('slug').where('slug', 'like', 'race-%').execute();
      expect(rows).toHaveLength(20);
    } finally {
      await second.stop();
      await t.runtime.projections.stop();
    }
    const before = await snapshot(t);
    await t.runtime.projections.rebuild();
    expect(await snapshot(t)).toEqual(before);
  });

  it('reports how far each projection is behind the head', async () => {
    await createOrganization(t.runtime.commands, { slug: 'lagging', name: 'Lagging' }, testPrincipal);
    const lagging = await t.runtime.projections.status();
    expect(lagging.every((p) => p.behind > 0)).toBe(true);
    await t.runtime.projections.catchUp();
    expect((await t.runtime.projections.status()).map((p) => p.behind)).toEqual(allProjections.map(() => 0));
  });
});

// Type-level check that the snapshot covers every read-model table the schema declares.
const _allTablesCovered: readonly (keyof ReadModels)[] = readModelTables;
