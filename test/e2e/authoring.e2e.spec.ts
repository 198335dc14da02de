import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addBlock, createFlow, publishDraft, removeBlock, setBlockLoop, setBlockOutputSchema, setProduction, updateBlock } from '../../src/authoring/flowAuthoring.ts';
import { diffFlow, listFlowVersions, showDraft } from '../../src/authoring/flowReading.ts';
import { createApiKey } from '../../src/commands/apiKeyCommands.ts';
import { createOrganization } from '../../src/commands/organizationCommands.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { createTestRuntime, serveApi, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

const languageSchema = { type: 'object', properties: { language_code: { type: 'string' }, language_name: { type: 'string' } }, required: ['language_code', 'language_name'] };
const gradeSchema = {
  type: 'object',
  properties: { overall_score: { type: 'integer', minimum: 0, maximum: 100 }, issues: { type: 'array', items: { type: 'object', properties: { category: { enum: ['grammar', 'vocabulary', 'clarity'] }, excerpt: { type: 'string' } }, required: ['category', 'excerpt'] } } },
  required: ['overall_score', 'issues'],
};

describe('authoring a flow block by block (services over the log), then running it', () => {
  let server: ScriptedModelServer;
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  let projectId: string;
  let organizationId: string;
  const alice = { principal: { kind: 'user' as const, id: 'alice' } };

  beforeAll(async () => {
    server = await startScriptedModelServer();
    t = await createTestRuntime('authoring', { OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'k', SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_DEFAULT_CREDITS: '1000000' });
    organizationId = (await createOrganization(t.runtime.commands, { slug: 'acme', name: 'Acme' }, testPrincipal)).id;
    projectId = (await createProject(t.runtime.commands, { organizationSlug: 'acme', slug: 'web', name: 'Web' }, testPrincipal)).id;
    await createOrganization(t.runtime.commands, { slug: 'other', name: 'Other' }, testPrincipal);
    key = (await createApiKey(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', environment: 'test' }, testPrincipal)).key;
    await t.runtime.projections.start();
    ({ app, base } = await serveApi(t.runtime));
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
    await server?.close();
  });

  it("builds the spec's essay flow (detect -> grade -> translate) with a parallel sibling and a loop, publishes, promotes and executes it", async () => {
    const deps = t.runtime.commands;
    const scope = { organizationIds: [organizationId] };
    const { flowId } = await createFlow(deps, scope, { projectId, name: 'Essay feedback', slug: 'essay' }, alice);
    const detect = await addBlock(deps, scope, { flowId, name: 'detect', processor_type: 'llm', prompt: 'Language of: {{message}}' }, alice);
    const grade = await addBlock(deps, scope, { flowId, name: 'grade', processor_type: 'llm', prompt: 'Grade ({{previous_output.language_name}}): {{message}}', targetId: detect.blockId, direction: 'right' }, alice);
    const translate = await addBlock(deps, scope, { flowId, name: 'translate', processor_type: 'llm', prompt: 'Translate into {{parameters.native_language}}: {{previous_output}}', targetId: grade.blockId, direction: 'right' }, alice);
    await setBlockOutputSchema(deps, scope, { flowId, blockId: detect.blockId, schema: languageSchema }, alice);
    await setBlockOutputSchema(deps, scope, { flowId, blockId: grade.blockId, schema: gradeSchema }, alice);
    await setBlockOutputSchema(deps, scope, { flowId, blockId: translate.blockId, schema: gradeSchema }, alice);
    await updateBlock(deps, scope, { flowId, blockId: grade.blockId, changes: { model: 'gpt-4o' } }, alice);
    // A parallel sibling of the detector (the grader then reads the detector's output by name), and a
    // loop over the translated issues at the end; a block added and removed again leaves no trace.
    const sibling = await addBlock(deps, scope, { flowId, name: 'length', processor_type: 'code', code: 'return { chars: input.message.length };', targetId: detect.blockId, direction: 'bottom' }, alice);
    await updateBlock(deps, scope, { flowId, blockId: grade.blockId, changes: { prompt: 'Grade ({{previous_output.detect.language_name}}, {{previous_output.length.chars}} chars): {{message}}' } }, alice);
    const each = await addBlock(deps, scope, { flowId, name: 'each_issue', processor_type: 'code', code: 'return input.previous_output.category;', targetId: translate.blockId, direction: 'right' }, alice);
    await setBlockLoop(deps, scope, { flowId, blockId: each.blockId, over: 'previous_output.issues' }, alice);
    const scratch = await addBlock(deps, scope, { flowId, name: 'scratch', processor_type: 'passthrough', targetId: grade.blockId, direction: 'right' }, alice);
    await removeBlock(deps, scope, { flowId, blockId: scratch.blockId }, alice);
    const draft = await showDraft(deps, scope, flowId);
    expect(draft.blocks.map((b) => [b.name, b.position.stepIndex, b.position.stepKind])).toEqual([
      ['detect', 0, 'parallel'], ['length', 0, 'parallel'], ['grade', 1, 'block'], ['translate', 2, 'block'], ['each_issue', 3, 'loop'],
    ]);
    expect(draft.blocks[0]!.step_id).toBe(detect.blockId);
    expect(draft.blocks[1]!.step_id).toBe(sibling.blockId);

    const v1 = await publishDraft(deps, scope, { flowId, note: 'first' }, alice);
    await setProduction({ ...deps, db: t.runtime.db }, scope, { flowId, versionId: v1.versionId }, alice);
    await t.runtime.projections.waitForPosition((await t.runtime.eventStore.headPosition()), 10_000);

    const grading = { overall_score: 72, issues: [{ category: 'grammar', excerpt: 'he go' }, { category: 'clarity', excerpt: 'Yesterday' }] };
    server.script({ content: { language_code: 'en', language_name: 'English' } }, { content: grading }, { content: grading });
    const response = await fetch(`${base}/seq/acme/web/essay/execute`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'Yesterday he go.', parameters: { native_language: 'Spanish' } }) });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'completed', result: { value: ['grammar', 'clarity'] }, blockCount: 5 });
    expect(server.requests.map((r) => r.body.model)).toEqual(['gpt-4o-mini', 'gpt-4o', 'gpt-4o-mini']);
    expect(server.requests[1]!.body.messages[0]!.content).toBe('Grade (English, 16 chars): Yesterday he go.');

    // Versions say who published them and when; a diff names what changed since.
    await updateBlock(deps, scope, { flowId, blockId: translate.blockId, changes: { prompt: 'Translate carefully: {{previous_output}}' } }, alice);
    const versions = await listFlowVersions(deps, scope, flowId);
    expect(versions).toEqual([{ versionId: v1.versionId, number: 1, note: 'first', publishedBy: alice.principal, publishedAt: expect.any(String), production: true }]);
    const diff = await diffFlow(deps, scope, { flowId, from: 1, to: 'draft' });
    expect(diff).toMatchObject({ added: [], removed: [], changed: [{ blockId: translate.blockId, name: 'translate', fields: { prompt: { to: 'Translate carefully: {{previous_output}}' } } }] });
    // Every edit is an event with the principal who made it.
    const edits = (await t.runtime.eventStore.readStream(`flow-${flowId}`)).filter((e) => e.type.startsWith('FlowBlock'));
    expect(edits.length).toBeGreaterThan(8);
    expect(new Set(edits.map((e) => e.metadata.principal.id))).toEqual(new Set(['alice']));
  });

  it('refuses every edit of another organization\'s flow exactly as a flow that does not exist', async () => {
    const deps = t.runtime.commands;
    const { flowId } = await createFlow(deps, { organizationIds: [organizationId] }, { projectId, name: 'Mine', slug: 'mine' }, alice);
    const other = (await t.runtime.db.selectFrom('organizations').select('id').where('slug', '=', 'other').executeTakeFirst())?.id ?? 'other-org';
    const stranger = { organizationIds: [other] };
    for (const attempt of [
      () => addBlock(deps, stranger, { flowId, name: 'x', processor_type: 'passthrough' }, alice),
      () => showDraft(deps, stranger, flowId),
      () => publishDraft(deps, stranger, { flowId, note: null }, alice),
      () => addBlock(deps, stranger, { flowId: '00000000-0000-4000-8000-000000000000', name: 'x', processor_type: 'passthrough' }, alice),
    ]) {
      await expect(attempt()).rejects.toMatchObject({ code: 'FLOW_NOT_FOUND' });
    }
    await expect(createFlow(deps, stranger, { projectId, name: 'Sneaky', slug: 'sneaky' }, alice)).rejects.toMatchObject({ code: 'PROJECT_NOT_FOUND' });
    // Publishing an invalid draft lists every problem with its path.
    await addBlock(deps, { organizationIds: [organizationId] }, { flowId, name: 'ask', processor_type: 'llm' }, alice);
    await expect(publishDraft(deps, { organizationIds: [organizationId] }, { flowId, note: null }, alice)).rejects.toMatchObject({ code: 'FLOW_INVALID', extra: { problems: ["steps[0].block (block 'ask').prompt: llm blocks need a prompt"] } });
  });
});
