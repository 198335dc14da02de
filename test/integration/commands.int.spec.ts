import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/commands/apiKeyCommands.ts';
import { handleCommand } from '../../src/commands/commandHandler.ts';
import { apiKey } from '../../src/domain/apiKeys/apiKey.ts';
import { apiKeyStream } from '../../src/domain/apiKeys/apiKeyEvents.ts';
import { exportFlow, importFlow, publishVersion, setProductionVersion } from '../../src/commands/flowCommands.ts';
import { createOrganization } from '../../src/commands/organizationCommands.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import { allEventText } from '../support/testDatabase.ts';
import { createTestRuntime, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

describe('commands', () => {
  let t: TestRuntime;

  beforeAll(async () => {
    t = await createTestRuntime('commands');
    await createOrganization(t.runtime.commands, { slug: 'acme', name: 'Acme' }, testPrincipal);
    await createProject(t.runtime.commands, { organizationSlug: 'acme', slug: 'web', name: 'Web' }, testPrincipal);
  });
  afterAll(async () => t?.close());

  it('lets exactly one of eight concurrent creations take an organization slug', async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => createOrganization(t.runtime.commands, { slug: 'contested', name: `Contender ${i}` }, testPrincipal)),
    );
    const winners = outcomes.filter((o) => o.status === 'fulfilled');
    expect(winners).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason.code)).toEqual(Array(7).fill('SLUG_TAKEN'));
  });

  it('keeps project slugs unique per organization, not globally', async () => {
    await createOrganization(t.runtime.commands, { slug: 'other', name: 'Other' }, testPrincipal);
    await expect(createProject(t.runtime.commands, { organizationSlug: 'other', slug: 'web', name: 'Web' }, testPrincipal)).resolves.toMatchObject({ slug: 'web' });
    await expect(createProject(t.runtime.commands, { organizationSlug: 'acme', slug: 'web', name: 'Again' }, testPrincipal)).rejects.toMatchObject({ code: 'SLUG_TAKEN' });
    await expect(createProject(t.runtime.commands, { organizationSlug: 'nope', slug: 'web', name: 'x' }, testPrincipal)).rejects.toMatchObject({ code: 'ORGANIZATION_NOT_FOUND' });
  });

  it('starts from the state a caller already holds without reading it, and decides again on what it reads when the stream moved on', async () => {
    const reads: string[] = [];
    const real = t.runtime.eventStore;
    const eventStore = Object.assign(Object.create(real) as typeof real, { readStream: (...args: Parameters<typeof real.readStream>) => (reads.push(args[0]), real.readStream(...args)) });
    const deps = { ...t.runtime.commands, eventStore };
    const create = (keyId: string) => handleCommand(deps, apiKeyStream(keyId), apiKey, { type: 'CreateApiKey', data: { keyId, projectId: 'p', organizationId: 'o', environment: 'test', keyPrefix: 'sf', secretHash: 'a'.repeat(64) } }, testPrincipal);

    const held = await create('h'.repeat(24));
    reads.length = 0;
    const revoked = await handleCommand(deps, apiKeyStream('h'.repeat(24)), apiKey, { type: 'RevokeApiKey', data: { keyId: 'h'.repeat(24) } }, testPrincipal, held);
    expect(reads).toEqual([]);
    expect(revoked.events.map((e) => e.type)).toEqual(['ApiKeyRevoked']);
    expect(revoked.revision).toBe(1);

    const stale = await create('m'.repeat(24));
    // Someone else revokes it meanwhile; the held state still says active.
    await handleCommand(deps, apiKeyStream('m'.repeat(24)), apiKey, { type: 'RevokeApiKey', data: { keyId: 'm'.repeat(24) } }, testPrincipal);
    const again = await handleCommand(deps, apiKeyStream('m'.repeat(24)), apiKey, { type: 'RevokeApiKey', data: { keyId: 'm'.repeat(24) } }, testPrincipal, stale);
    expect(again.events).toEqual([]); // decided on the fresh state: already revoked, nothing to add
    expect((await real.readStream(apiKeyStream('m'.repeat(24)))).map((e) => e.type)).toEqual(['ApiKeyCreated', 'ApiKeyRevoked']);
  });

  it('never writes the plaintext API key or its secret to the log', async () => {
    const { key, keyId } = await createApiKey(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', environment: 'live' }, testPrincipal);
    const secret = key.split('_').at(-1)!;
    const log = await allEventText(t.database.url);
    expect(log).toContain(keyId);
    expect(log).not.toContain(secret);
    expect(t.logs()).not.toContain(secret);
  });

  it('imports a flow, replaces its draft on re-import, and exports draft and versions in the file format', async () => {
    const v1File = { slug: 'triage', name: 'Triage', steps: [{ block: { name: 'only', processor_type: 'passthrough' } }] };
    const first = await importFlow(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: v1File, publish: true, note: 'v1' }, testPrincipal);
    const v2File = { ...v1File, name: 'Triage 2', steps: [...v1File.steps, { block: { name: 'code', processor_type: 'code', code: 'return input;' } }] };
    const second = await importFlow(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: v2File }, testPrincipal);
    expect(second.flowId).toBe(first.flowId);
    expect(second.versionId).toBeNull();

    const slugs = { organizationSlug: 'acme', projectSlug: 'web', flowSlug: 'triage' };
    expect(await exportFlow(t.runtime.commands, slugs)).toEqual(v2File);
    expect(await exportFlow(t.runtime.commands, { ...slugs, version: 1 })).toEqual(v1File);
    await expect(exportFlow(t.runtime.commands, { ...slugs, version: 7 })).rejects.toMatchObject({ code: 'VERSION_NOT_FOUND' });
  });

  it('refuses to import-and-publish an invalid flow before writing anything: no flow, no draft, no version', async () => {
    const bad = { slug: 'broken', name: 'Broken', steps: [{ block: { name: 'c', processor_type: 'code' } }] };
    const before = await t.runtime.eventStore.headPosition();
    await expect(importFlow(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: bad, publish: true }, testPrincipal)).rejects.toMatchObject({
      code: 'FLOW_INVALID',
      extra: { problems: ["steps[0].block (block 'c').code: code blocks need code"] },
    });
    expect(await t.runtime.eventStore.headPosition()).toBe(before);
  });

  it('points production at a published version and records the previous one', async () => {
    const file = { slug: 'prod', name: 'Prod', steps: [{ block: { name: 'a', processor_type: 'passthrough' } }] };
    const imported = await importFlow(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file, production: true }, testPrincipal);
    const v2 = await publishVersion(t.runtime.commands, { flowId: imported.flowId, note: null }, testPrincipal);
    await setProductionVersion(t.runtime.commands, { flowId: imported.flowId, versionId: v2.versionId }, testPrincipal);
    await t.runtime.projections.catchUp();
    const row = await t.runtime.db.selectFrom('flows').selectAll().where('id', '=', imported.flowId).executeTakeFirstOrThrow();
    expect(row.production_version_id).toBe(v2.versionId);
    expect(row.production_version_number).toBe(2);
    const events = await t.runtime.eventStore.readStream(`flow-${imported.flowId}`);
    expect(events.filter((e) => e.type === 'FlowProductionVersionSet').map((e) => (e.data as { previousVersionId: string | null }).previousVersionId)).toEqual([
      null,
      imported.versionId,
    ]);
    await expect(setProductionVersion(t.runtime.commands, { flowId: imported.flowId, versionId: 'not-a-version' }, testPrincipal)).rejects.toMatchObject({ code: 'VERSION_NOT_FOUND' });
  });

  it('records who acted, when, and a correlation id on every event', async () => {
    const events = await t.runtime.eventStore.readAll(0, 100_000);
    for (const event of events) {
      expect(event.metadata).toMatchObject({ principal: testPrincipal.principal, correlationId: expect.any(String), occurredAt: expect.any(String) });
    }
    // One command, one correlation id across the streams it touched (slug reservation and organization).
    const [reserved, created] = events.filter((e) => e.type === 'SlugReserved' || e.type === 'OrganizationCreated').slice(0, 2);
    expect([reserved?.type, created?.type]).toEqual(['SlugReserved', 'OrganizationCreated']);
    expect(created!.metadata.correlationId).toBe(reserved!.metadata.correlationId);
    const otherCommand = events.find((e) => e.type === 'ProjectCreated')!;
    expect(otherCommand.metadata.correlationId).not.toBe(created!.metadata.correlationId);
  });
});

describe('slug reservations left by a creation that died half-way', () => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await createTestRuntime('abandoned');
  });
  afterAll(async () => t?.close());

  it('are completed by a later creation of the same slug once abandoned, and stay taken while recent', async () => {
    const { slugReservationStream } = await import('../../src/domain/slugs/slugReservation.ts');
    const { ABANDONED_RESERVATION_MS } = await import('../../src/commands/slugReservationCommands.ts');
    const { randomUUID } = await import('node:crypto');
    const orphanId = randomUUID();
    // The first append of a creation (the reservation) happened; the second (the organization) never did.
    await t.runtime.eventStore.append(
      slugReservationStream('organization', null, 'orphan'),
      [
        {
          id: randomUUID(),
          type: 'SlugReserved',
          schemaVersion: 1,
          data: { scope: 'organization', parentId: null, slug: 'orphan', ownerId: orphanId },
          metadata: { correlationId: randomUUID(), causationId: null, principal: testPrincipal.principal, occurredAt: new Date().toISOString() },
        },
      ],
      'no_stream',
    );
    await expect(createOrganization(t.runtime.commands, { slug: 'orphan', name: 'Too soon' }, testPrincipal)).rejects.toMatchObject({ code: 'SLUG_TAKEN' });

    const later = { ...t.runtime.commands, now: () => new Date(Date.now() + ABANDONED_RESERVATION_MS + 1000) };
    const created = await createOrganization(later, { slug: 'orphan', name: 'Recovered' }, testPrincipal);
    expect(created.id).toBe(orphanId);
    await expect(createOrganization(later, { slug: 'orphan', name: 'Third' }, testPrincipal)).rejects.toMatchObject({ code: 'SLUG_TAKEN' });
  });
});
