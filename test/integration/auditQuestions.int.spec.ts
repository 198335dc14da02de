import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changesOf, productionAt } from '../../src/audit/auditQuestions.ts';
import { setProduction } from '../../src/authoring/flowAuthoring.ts';
import { createApiKey } from '../../src/commands/apiKeyCommands.ts';
import { importFlow, publishVersion } from '../../src/commands/flowCommands.ts';
import { addMember, createOrganization, grantCredits } from '../../src/commands/organizationCommands.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import { createTestRuntime, type TestRuntime } from '../support/testRuntime.ts';

const alice = { principal: { kind: 'user' as const, id: 'alice' } };
const bob = { principal: { kind: 'user' as const, id: 'bob', via: 'mcp' as const, clientId: 'claude' } };

describe('questions an auditor asks, answered from the log', () => {
  let t: TestRuntime;
  let clock = '2026-03-01T09:00:00.000Z';
  const deps = () => ({ ...t.runtime.commands, db: t.runtime.db, now: () => new Date(clock) });
  let flowId: string;
  let v1: string;
  let v2: string;
  let orgId: string;

  beforeAll(async () => {
    t = await createTestRuntime('audit_questions');
    orgId = (await createOrganization(deps(), { slug: 'acme', name: 'Acme' }, alice)).id;
    await createOrganization(deps(), { slug: 'other', name: 'Other' }, alice);
    await addMember(deps(), { organizationSlug: 'acme', userSubject: 'bob', role: 'admin' }, alice);
    await createProject(deps(), { organizationSlug: 'acme', slug: 'web', name: 'Web' }, alice);
    await createProject(deps(), { organizationSlug: 'other', slug: 'web', name: 'Web' }, alice);
    clock = '2026-03-01T10:00:00.000Z';
    const imported = await importFlow(deps(), { organizationSlug: 'acme', projectSlug: 'web', file: { slug: 'hello', name: 'Hello', steps: [{ block: { name: 'echo', processor_type: 'passthrough' } }] }, publish: true, production: true }, alice);
    flowId = imported.flowId;
    v1 = imported.versionId!;
    clock = '2026-03-02T10:00:00.000Z';
    v2 = (await publishVersion(deps(), { flowId, note: 'second' }, bob)).versionId;
    await setProduction(deps(), {}, { flowId, versionId: v2 }, bob);
    clock = '2026-03-03T10:00:00.000Z';
    await grantCredits(deps(), { organizationSlug: 'acme', tokens: 500, note: 'top-up' }, alice);
    await createApiKey(deps(), { organizationSlug: 'acme', projectSlug: 'web', environment: 'live' }, bob);
    await grantCredits(deps(), { organizationSlug: 'other', tokens: 7, note: null }, alice);
  });
  afterAll(async () => t?.close());

  it('says which version was in production at a time, who promoted it, and until when', async () => {
    expect(await productionAt(t.runtime.eventStore, { flowId, at: '2026-03-01T09:30:00Z' })).toMatchObject({ production: null });
    expect(await productionAt(t.runtime.eventStore, { flowId, at: '2026-03-01T12:00:00Z' })).toMatchObject({
      production: { versionId: v1, number: 1, promotedBy: alice.principal, promotedAt: '2026-03-01T10:00:00.000Z', until: '2026-03-02T10:00:00.000Z', forced: null },
    });
    expect(await productionAt(t.runtime.eventStore, { flowId, at: '2026-03-05T00:00:00Z' })).toMatchObject({ production: { versionId: v2, number: 2, promotedBy: bob.principal, until: null } });
    await expect(productionAt(t.runtime.eventStore, { flowId, at: 'yesterday' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('lists every change to an organization with who made it, since a time, and nothing of another organization', async () => {
    const all = await changesOf(t.runtime.eventStore, { organizationId: orgId });
    const types = all.changes.map((c) => c.type);
    expect(types).toEqual(expect.arrayContaining(['OrganizationCreated', 'MemberAdded', 'ProjectCreated', 'FlowCreated', 'FlowVersionPublished', 'FlowProductionVersionSet', 'CreditsGranted', 'ApiKeyCreated']));
    expect(all.changes.filter((c) => c.type === 'CreditsGranted')).toEqual([expect.objectContaining({ summary: { organizationId: orgId, tokens: 500, note: 'top-up' }, principal: alice.principal })]);
    const since = await changesOf(t.runtime.eventStore, { organizationId: orgId, since: '2026-03-02T00:00:00Z' });
    expect(since.changes.map((c) => [c.type, c.principal])).toEqual([
      ['FlowVersionPublished', bob.principal],
      ['FlowProductionVersionSet', bob.principal],
      ['CreditsGranted', alice.principal],
      ['ApiKeyCreated', bob.principal],
    ]);
    expect(JSON.stringify(all)).not.toContain('secretHash');
  });
});
