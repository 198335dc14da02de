import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/runProcess.ts';
import { createOrganization } from '../../src/commands/organizationCommands.ts';
import { createTestRuntime, testPrincipal } from '../support/testRuntime.ts';
import { allEventText, countEventRows, createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';

// Each test starts the CLI as its own process several times: on a loaded machine (load 7) that alone took over a minute.
describe('the seqflow CLI', { timeout: 180_000 }, () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  let dir: string;

  const cli = async (...args: string[]) => cliWith({}, undefined, ...args);
  const cliWith = async (extraEnv: Record<string, string>, input: string | undefined, ...args: string[]) => {
    const result = await runCli(args, { ...env, ...extraEnv }, input);
    return { ...result, json: result.code === 0 && result.stdout.trim() ? JSON.parse(result.stdout.trim().split('\n').at(-1)!) : undefined };
  };

  beforeAll(async () => {
    database = await createTestDatabase('cli');
    env = { DATABASE_URL: database.url, SEQFLOW_MASTER_KEY: randomBytes(32).toString('base64'), LOG_LEVEL: 'warn' };
    dir = await mkdtemp(path.join(tmpdir(), 'seqflow-cli-'));
  });
  afterAll(async () => database?.drop());

  it('creates an organization, a member, a project and a key, printing JSON', async () => {
    const org = await cli('org', 'create', '--slug', 'acme', '--name', 'Acme Inc');
    expect(org.code).toBe(0);
    expect(org.json).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), slug: 'acme' });

    const member = await cli('member', 'add', '--org', 'acme', '--user', 'auth0|alice', '--role', 'admin');
    expect(member.json).toEqual({ organizationId: org.json.id, userSubject: 'auth0|alice', role: 'admin' });

    const project = await cli('project', 'create', '--org', 'acme', '--slug', 'web', '--name', 'Web');
    expect(project.json).toEqual({ id: expect.any(String), slug: 'web', organizationId: org.json.id });

    const key = await cli('apikey', 'create', '--org', 'acme', '--project', 'web', '--env', 'live');
    expect(key.json).toEqual({ key: expect.stringMatching(/^sf_live_[a-f0-9]{24}_[a-f0-9]{64}$/), keyId: expect.any(String) });
    expect(key.stderr).toContain('only time the full key is shown');

    const revoked = await cli('apikey', 'revoke', '--key-id', key.json.keyId);
    expect(revoked.json).toEqual({ keyId: key.json.keyId, revoked: true });

    // A member gets a one-time sign-in code for the embedded OAuth server; the log keeps only its hash.
    const code = await cli('login-code', '--user', 'auth0|alice');
    expect(code.json).toEqual({ code: expect.stringMatching(/^[A-HJ-NP-Z2-9]{5}-[A-HJ-NP-Z2-9]{5}$/), subject: 'auth0|alice', expiresAt: expect.any(String) });
    const log = (await cli('events', '--all')).stdout;
    expect(log).toContain('"type":"LoginCodeIssued"');
    expect(log).not.toContain(code.json.code);
    expect(log).not.toContain(code.json.code.replace('-', ''));
    // The operator role, as events; and a one-time console link (only its hash in the log).
    expect((await cli('operator', 'grant', '--user', 'auth0|alice')).json).toEqual({ subject: 'auth0|alice', operator: true, changed: true });
    expect((await cli('operator', 'grant', '--user', 'auth0|alice')).json).toEqual({ subject: 'auth0|alice', operator: true, changed: false });
    expect((await cli('operator', 'revoke', '--user', 'auth0|alice')).json).toEqual({ subject: 'auth0|alice', operator: false, changed: true });
    const link = await cli('console', 'link');
    expect(link.json).toEqual({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:8081\/login\?token=[A-Za-z0-9_-]{43}$/), expiresAt: expect.any(String) });
    expect((await cli('events', '--all')).stdout).not.toContain(new URL(link.json.url).searchParams.get('token'));
    const stranger = await cli('login-code', '--user', 'nobody');
    expect(stranger.code).toBe(1);
    expect(stranger.stderr).toContain('USER_NOT_MEMBER');
  });

  it('imports, publishes, sets production and exports a flow file', async () => {
    const file = path.join(dir, 'flow.json');
    const flow = { slug: 'hello', name: 'Hello', steps: [{ block: { name: 'greet', processor_type: 'code', code: 'return 1;' } }] };
    await writeFile(file, JSON.stringify(flow));
    const imported = await cli('flow', 'import', '--org', 'acme', '--project', 'web', '--file', file, '--publish', '--note', 'first', '--production');
    expect(imported.json).toEqual({ flowId: expect.any(String), slug: 'hello', versionId: expect.any(String) });

    const exported = await cli('flow', 'export', '--org', 'acme', '--project', 'web', '--flow', 'hello', '--version', '1');
    expect(exported.json).toEqual(flow);

    const events = await cli('events', '--stream', `flow-${imported.json.flowId}`);
    const lines = events.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((e) => e.type)).toEqual(['FlowCreated', 'FlowDraftReplaced', 'FlowVersionPublished', 'FlowProductionVersionSet']);
    expect(lines[2]).toMatchObject({ revision: 2, data: { number: 1, note: 'first' }, metadata: { principal: { kind: 'cli' } } });
  });

  it('lists versions and promotes an existing one without publishing again', async () => {
    const file = path.join(dir, 'flow2.json');
    await writeFile(file, JSON.stringify({ slug: 'hello', name: 'Hello', steps: [{ block: { name: 'greet', processor_type: 'code', code: 'return 2;' } }] }));
    expect((await cli('flow', 'import', '--org', 'acme', '--project', 'web', '--file', file, '--publish')).code).toBe(0);
    const listed = await cli('flow', 'versions', '--org', 'acme', '--project', 'web', '--flow', 'hello');
    expect(listed.json.versions).toEqual([
      { versionId: expect.any(String), number: 1, note: 'first', blockCount: 1, production: true },
      { versionId: expect.any(String), number: 2, note: null, blockCount: 1, production: false },
    ]);
    const promoted = await cli('flow', 'promote', '--org', 'acme', '--project', 'web', '--flow', 'hello', '--version', '2');
    expect(promoted.json).toEqual({ flowId: listed.json.flowId, versionId: listed.json.versions[1].versionId, number: 2 });
    const after = await cli('flow', 'versions', '--org', 'acme', '--project', 'web', '--flow', 'hello');
    expect(after.json.versions.map((v: { production: boolean }) => v.production)).toEqual([false, true]);
    const missing = await cli('flow', 'promote', '--org', 'acme', '--project', 'web', '--flow', 'hello', '--version', '9');
    expect([missing.code, missing.stderr]).toEqual([1, expect.stringContaining('VERSION_NOT_FOUND')]);
  });

  // 27 CLI processes, each starting the CLI from the sources: a few seconds each on a loaded 2-core machine.
  it('edits a flow block by block: create, add right and bottom, schema, update, show, publish, diff', async () => {
    const projectId = (await cli('project', 'create', '--org', 'acme', '--slug', 'authoring', '--name', 'Authoring')).json.id;
    const created = await cli('flow', 'create', '--project', projectId, '--name', 'Built', '--slug', 'built');
    expect(created.json).toEqual({ flowId: expect.any(String), slug: 'built' });
    const flow = created.json.flowId;
    const first = (await cli('block', 'add', '--flow', flow, '--name', 'ask', '--type', 'llm', '--prompt', 'Answer {{message}}')).json;
    expect(first).toEqual({ flowId: flow, blockId: expect.any(String) });
    const side = (await cli('block', 'add', '--flow', flow, '--name', 'count', '--type', 'code', '--code', 'return 1;', '--target', first.blockId, '--direction', 'bottom')).json;
    await cli('block', 'add', '--flow', flow, '--name', 'relay', '--type', 'passthrough', '--target', first.blockId, '--direction', 'right');
    const schema = path.join(dir, 'schema.json');
    await writeFile(schema, JSON.stringify({ type: 'object', properties: { answer: { type: 'string' } } }));
    expect((await cli('block', 'schema', '--flow', flow, '--block', first.blockId, '--file', schema)).code).toBe(0);
    expect((await cli('block', 'update', '--flow', flow, '--block', first.blockId, '--model', 'gpt-4o', '--config', '{"receive_attachments": false}')).code).toBe(0);
    const shown = (await cli('flow', 'show', '--flow', flow)).json;
    expect(shown.blocks.map((b: { name: string; position: { stepKind: string } }) => [b.name, b.position.stepKind])).toEqual([['ask', 'parallel'], ['count', 'parallel'], ['relay', 'block']]);
    expect(shown.blocks[0]).toMatchObject({ step_id: first.blockId, model: 'gpt-4o', output_schema: { type: 'object' }, processor_config: { receive_attachments: false } });
    expect((await cli('flow', 'publish', '--flow', flow, '--note', 'v1')).json).toMatchObject({ versionId: expect.any(String), number: 1 });
    expect((await cli('block', 'remove', '--flow', flow, '--block', side.blockId)).code).toBe(0);
    const diff = (await cli('flow', 'diff', '--flow', flow, '--from', '1', '--to', 'draft')).json;
    expect(diff).toMatchObject({ removed: [{ blockId: side.blockId, name: 'count' }], changed: [{ name: 'ask', fields: { position: expect.any(Object) } }] });
    const taken = await cli('block', 'add', '--flow', flow, '--name', 'relay', '--type', 'passthrough', '--target', first.blockId);
    expect([taken.code, taken.stderr]).toEqual([1, expect.stringContaining('BLOCK_NAME_TAKEN')]);
    expect((await cli('flow', 'list', '--project', projectId)).json).toEqual([expect.objectContaining({ flowId: flow, slug: 'built', draftBlockCount: 2 })]);

    // Test cases of that flow: added from a file, listed, updated, removed; an invalid one names its path.
    const file = path.join(dir, 'case.json');
    await writeFile(file, JSON.stringify({ name: 'answers', input: { message: 'q' }, assertions: [{ type: 'json_schema', schema: { type: 'object' } }, { type: 'max_tokens', value: 1000 }] }));
    const added = (await cli('test', 'add', '--flow', flow, '--file', file)).json;
    expect(added).toEqual({ testCaseId: expect.any(String), flowId: flow, name: 'answers' });
    expect((await cli('test', 'list', '--flow', flow)).json).toEqual([{ testCaseId: added.testCaseId, name: 'answers', definition: expect.objectContaining({ assertions: expect.any(Array) }), fromExecutionId: null, updatedAt: expect.any(String) }]);
    await writeFile(file, JSON.stringify({ name: 'renamed', input: { message: 'q' }, assertions: [{ type: 'contains', value: 'x' }] }));
    // A case is named by its name within its flow, or by its id.
    expect((await cli('test', 'update', '--flow', 'built', '--case', 'answers', '--file', file)).json).toEqual({ testCaseId: added.testCaseId, name: 'renamed' });
    await writeFile(file, JSON.stringify({ name: 'bad', input: { message: 'q' }, assertions: [{ type: 'number_range' }] }));
    const bad = await cli('test', 'add', '--flow', flow, '--file', file);
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining('assertions[0].path')]);
    expect((await cli('test', 'remove', '--case', 'renamed')).json).toEqual({ testCaseId: added.testCaseId, removed: true });
    expect((await cli('test', 'list', '--flow', flow)).json).toEqual([]);

    // A test run from the CLI: exit code 0 only when the case passed.
    const counter = (await cli('flow', 'create', '--project', projectId, '--name', 'Counter', '--slug', 'counter')).json.flowId;
    const countBlock = (await cli('block', 'add', '--flow', counter, '--name', 'count', '--type', 'code', '--code', 'return { n: input.message.length };')).json.blockId;
    await writeFile(file, JSON.stringify({ name: 'counts', input: { message: 'four' }, assertions: [{ type: 'path_equals', path: 'n', value: 4 }] }));
    const passing = (await cli('test', 'add', '--flow', counter, '--file', file)).json.testCaseId;
    await writeFile(file, JSON.stringify({ name: 'miscounts', input: { message: 'four' }, assertions: [{ type: 'path_equals', path: 'n', value: 5 }] }));
    const failing = (await cli('test', 'add', '--flow', counter, '--file', file)).json.testCaseId;
    const green = await cli('test', 'run', '--flow', 'counter', '--case', 'counts', '--draft');
    expect([green.code, green.json]).toEqual([0, expect.objectContaining({ passed: true, target: { kind: 'draft' } })]);
    const trace = (await cli('runs', 'trace', '--execution', green.json.executionId)).json;
    expect(trace).toMatchObject({ mode: 'test', target: { kind: 'draft' }, status: 'completed', result: { n: 4 }, steps: [{ name: 'count', status: 'completed', output: { n: 4 } }] });
    const step = (await cli('runs', 'step', '--execution', green.json.executionId, '--step', countBlock)).json;
    expect(step).toMatchObject({ name: 'count', processorType: 'code', executions: [{ input: { message: 'four' }, output: { n: 4 } }] });
    const red = await runCli(['test', 'run', '--case', failing, '--draft'], env);
    expect(red.code).toBe(1);
    expect(JSON.parse(red.stdout.trim())).toMatchObject({ passed: false, results: [{ type: 'path_equals', passed: false, reason: 'result.n is 4, expected 5' }] });
    const unknown = await runCli(['test', 'run', '--flow', 'counter', '--case', 'count'], env);
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining("No test case 'count' in flow counter. Its cases: counts, miscounts")]);
    const unpublished = await cli('test', 'run', '--case', passing);
    expect([unpublished.code, unpublished.stderr]).toEqual([1, expect.stringContaining('has no published version')]);
    // The whole flow as a suite, with a JUnit report for CI systems.
    const junit = path.join(dir, 'junit.xml');
    const suite = await runCli(['test', 'run', '--flow', counter, '--draft', '--junit', junit], env);
    expect(suite.code).toBe(1);
    expect(JSON.parse(suite.stdout.trim())).toMatchObject({ totals: { total: 2, passed: 1, failed: 1 }, target: { kind: 'draft' } });
    const xml = await readFile(junit, 'utf8');
    expect(xml).toContain('<testsuite name="counter (draft)" tests="2" failures="1"');
    expect(xml).toMatch(/<testcase classname="counter" name="miscounts" time="[\d.]+">\s*<failure message="path_equals: result.n is 4, expected 5">/);
  }, 180_000);

  it('names organizations, projects and flows one way, by slug or id; lists them and the keys; an unknown or shared name says what exists', async () => {
    const lists = await Promise.all([cli('org', 'list'), cli('project', 'list', '--org', 'acme'), cli('apikey', 'list', '--org', 'acme', '--project', 'web')]);
    const [orgs, projects, keys] = lists.map((l) => l.json);
    expect(orgs).toContainEqual(expect.objectContaining({ slug: 'acme', name: 'Acme Inc', projects: expect.any(Number) }));
    expect(projects).toContainEqual(expect.objectContaining({ organization: 'acme', slug: 'web' }));
    expect(keys[0]).toEqual({ keyId: expect.any(String), organization: 'acme', project: 'web', environment: 'live', startsWith: expect.stringMatching(/^sf_live_[a-f0-9]{24}_$/), createdAt: expect.any(String), revokedAt: expect.any(String) });
    // Never the key itself: nothing that long in the listing.
    expect(lists[2]!.stdout).not.toMatch(/[a-f0-9]{64}/);

    // The same flow by its slugs, by its id, by its slug alone while it is unique.
    const byId = (await cli('flow', 'versions', '--flow', (await cli('flow', 'versions', '--org', 'acme', '--project', 'web', '--flow', 'hello')).json.flowId)).json;
    expect(byId).toMatchObject({ versions: expect.any(Array) });
    expect((await cli('flow', 'versions', '--flow', 'hello')).json).toEqual(byId);
    const acmeId = orgs.find((o: { slug: string }) => o.slug === 'acme').id;
    expect((await cli('flow', 'list', '--org', acmeId, '--project', 'web')).json).toContainEqual(expect.objectContaining({ slug: 'hello' }));

    // Unknown names are errors that say what exists, never an empty success.
    const unknownProject = await cli('flow', 'list', '--org', 'acme', '--project', 'support');
    expect([unknownProject.code, unknownProject.stderr]).toEqual([1, expect.stringMatching(/PROJECT_NOT_FOUND: No project 'support' in acme\. Projects: .*acme\/web/)]);
    const unknownFlow = await cli('flow', 'show', '--flow', 'nope');
    expect([unknownFlow.code, unknownFlow.stderr]).toEqual([1, expect.stringMatching(/FLOW_NOT_FOUND: No flow 'nope'\. Flows: .*acme\/web\/hello/)]);
    // A slug two projects share is refused, naming both.
    await cli('project', 'create', '--org', 'acme', '--slug', 'mobile', '--name', 'Mobile');
    await cli('flow', 'create', '--org', 'acme', '--project', 'mobile', '--name', 'Hello', '--slug', 'hello');
    const shared = await cli('flow', 'show', '--flow', 'hello');
    expect([shared.code, shared.stderr]).toEqual([1, expect.stringContaining("Flow 'hello' is in several projects (acme/mobile/hello, acme/web/hello): add --org and --project")]);
    expect((await cli('flow', 'show', '--project', 'mobile', '--flow', 'hello')).code).toBe(0);
  });

  it('leaves the draft unchanged when an import with --publish cannot be published', async () => {
    const draftBefore = (await cli('flow', 'export', '--org', 'acme', '--project', 'web', '--flow', 'hello')).json;
    const before = await countEventRows(database.url);
    const file = path.join(dir, 'unpublishable.json');
    await writeFile(file, JSON.stringify({ slug: 'hello', name: 'Hello', steps: [{ block: { name: 'ask', processor_type: 'llm' } }] }));
    const refused = await cli('flow', 'import', '--org', 'acme', '--project', 'web', '--file', file, '--publish');
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining('FLOW_INVALID')]);
    expect(refused.stderr).toContain("steps[0].block (block 'ask').prompt: llm blocks need a prompt");
    expect(await countEventRows(database.url)).toBe(before);
    expect((await cli('flow', 'export', '--org', 'acme', '--project', 'web', '--flow', 'hello')).json).toEqual(draftBefore);
  });

  it('prints the full webhook signing secret for receivers, and rotates it', async () => {
    const first = await cli('webhooks', 'secret', '--org', 'acme');
    expect(first.json).toEqual({ organizationId: expect.any(String), secret: expect.stringMatching(/^whsec_/), previousSecret: null, version: 1, createdAt: expect.any(String), rotatedAt: null, graceUntil: null });
    expect((await cli('webhooks', 'secret', '--org', 'acme')).json.secret).toBe(first.json.secret);
    const rotated = await cli('webhooks', 'secret', '--org', 'acme', '--rotate');
    expect(rotated.json).toMatchObject({ version: 2, previousSecret: first.json.secret, graceUntil: expect.any(String) });
    expect(rotated.json.secret).not.toBe(first.json.secret);
    expect(await allEventText(database.url)).not.toContain(rotated.json.secret);
  });

  it('says which variable to set when the port is taken, and warns about a model server the guard refuses', async () => {
    const taken = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => taken.once('listening', r));
    try {
      const port = (taken.address() as { port: number }).port;
      const refused = await runCli(['serve', '--role', 'api'], { ...env, PORT: String(port), SEQFLOW_CONSOLE_PORT: '0', SEQFLOW_DEMO: 'false', OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`Port ${port} on 127.0.0.1 is already in use: set PORT to a free port`);
      expect(refused.stderr).not.toContain('    at '); // a message, not a stack trace
    } finally {
      taken.close();
    }
  });

  it('answers --version', async () => {
    const version = await runCli(['--version'], env);
    expect([version.code, version.stdout.trim()]).toEqual([0, '0.1.0']);
  });

  it('prints the whole log as JSON lines in position order, from a position', async () => {
    // Wait until every committed event is below the visibility horizon (other tests' open transactions hold it back).
    const rows = await countEventRows(database.url);
    let all: { id: string; position: number }[] = [];
    for (let i = 0; i < 50 && all.length < rows; i++) all = (await cli('events', '--all')).stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(all.length).toBeGreaterThan(8);
    expect(all.map((e) => e.position)).toEqual([...all.map((e) => e.position)].sort((a, b) => a - b));
    const after = (await cli('events', '--all', '--from', String(all[4]!.position))).stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(after.map((e) => e.id)).toEqual(all.slice(5).map((e) => e.id));
  });

  it('refuses an invalid flow file naming the offending path, with a non-zero exit and nothing written', async () => {
    const before = await countEventRows(database.url);
    const file = path.join(dir, 'bad.json');
    await writeFile(file, JSON.stringify({ slug: 'bad', name: 'Bad', steps: [{ block: { name: 'x', processor_type: 'llm', temperature: 2 } }] }));
    const result = await cli('flow', 'import', '--org', 'acme', '--project', 'web', '--file', file);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('FLOW_FILE_INVALID');
    expect(result.stderr).toContain('steps[0].block.temperature: unknown field');
    expect(await countEventRows(database.url)).toBe(before);
  });

  it('refuses files holding text the log cannot store (a \\u0000 escape, an unpaired surrogate) naming the file and the path, with nothing written', async () => {
    const before = await countEventRows(database.url);
    const flowFile = path.join(dir, 'nul-flow.json');
    await writeFile(flowFile, JSON.stringify({ slug: 'nul', name: 'Nul\u0000name', steps: [{ block: { name: 'x', processor_type: 'code', code: 'return 1;' } }] }));
    const flow = await cli('flow', 'import', '--org', 'acme', '--project', 'web', '--file', flowFile, '--publish');
    expect([flow.code, flow.stdout]).toEqual([1, '']);
    expect(flow.stderr).toContain(`INVALID_TEXT: --file ${flowFile}: value.name contains a NUL character`);
    expect(flow.stderr).not.toContain('    at ');

    const caseFile = path.join(dir, 'nul-case.json');
    await writeFile(caseFile, JSON.stringify({ name: 'n', input: { message: 'm' }, tool_results: [{ id: 'c1', content: 'half \ud83d' }], assertions: [{ type: 'max_tokens', value: 10 }] }));
    const testCase = await cli('test', 'add', '--org', 'acme', '--project', 'web', '--flow', 'hello', '--file', caseFile);
    expect([testCase.code, testCase.stderr]).toEqual([1, expect.stringContaining(`INVALID_TEXT: --file ${caseFile}: value.tool_results[0].content contains an unpaired UTF-16 surrogate`)]);

    const config = await cli('block', 'update', '--org', 'acme', '--project', 'web', '--flow', 'hello', '--block', 'greet', '--config', '{"note": "a\\u0000b"}');
    expect([config.code, config.stderr]).toEqual([1, expect.stringContaining('INVALID_TEXT: --config: value.note contains a NUL character')]);
    expect(await countEventRows(database.url)).toBe(before);
    // The slug was never reserved: the same flow, made storable, imports.
    await writeFile(flowFile, JSON.stringify({ slug: 'nul', name: 'Nul name', steps: [{ block: { name: 'x', processor_type: 'code', code: 'return 1;' } }] }));
    expect((await cli('flow', 'import', '--org', 'acme', '--project', 'web', '--file', flowFile)).code).toBe(0);
  });

  it('grants and shows credits, and stores an own provider key encrypted, showing only a hint', async () => {
    expect((await cli('org', 'credits', '--org', 'acme', '--show')).json).toEqual({ organizationId: expect.any(String), balance: 0 });
    expect((await cli('org', 'credits', '--org', 'acme', '--grant', '5000')).json).toMatchObject({ balance: 5000 });
    expect((await cli('org', 'credits', '--org', 'acme', '--grant', '250')).json).toMatchObject({ balance: 5250 });
    const neither = await cli('org', 'credits', '--org', 'acme');
    expect(neither.code).toBe(1);

    // The key comes from standard input or SEQFLOW_PROVIDER_KEY, never from the command line (where `ps` shows it).
    const set = await cliWith({}, 'sk-secret-provider-key-9876\n', 'org', 'provider-key', '--org', 'acme', '--base-url', 'https://llm.example.com/v1');
    expect(set.json).toEqual({ organizationId: expect.any(String), provider: 'openai', keyHint: '…9876', baseUrl: 'https://llm.example.com/v1' });
    const claude = await cliWith({}, 'sk-ant-org-1111\n', 'org', 'provider-key', '--org', 'acme', '--provider', 'anthropic');
    expect(claude.json).toEqual({ organizationId: expect.any(String), provider: 'anthropic', keyHint: '…1111', baseUrl: null });
    const unknown = await cliWith({}, 'k', 'org', 'provider-key', '--org', 'acme', '--provider', 'mistral');
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining('provider must be one of openai, anthropic, google, azure, compatible')]);
    const azureWithoutEndpoint = await cliWith({}, 'k', 'org', 'provider-key', '--org', 'acme', '--provider', 'azure');
    expect([azureWithoutEndpoint.code, azureWithoutEndpoint.stderr]).toEqual([1, expect.stringContaining('--base-url https://<resource>.openai.azure.com')]);
    const fromEnv = await cliWith({ SEQFLOW_PROVIDER_KEY: 'sk-secret-provider-key-5432' }, undefined, 'org', 'provider-key', '--org', 'acme');
    expect(fromEnv.json).toMatchObject({ keyHint: '…5432' });
    expect(await allEventText(database.url)).not.toContain('sk-secret-provider-key');
    expect(await allEventText(database.url)).not.toContain('sk-ant-org');
    const inArgv = await cli('org', 'provider-key', '--org', 'acme', '--key', 'sk-visible-in-ps');
    expect(inArgv.code).toBe(1);
    expect(inArgv.stderr).toContain("unknown option '--key'");
    const none = await cliWith({}, '', 'org', 'provider-key', '--org', 'acme');
    expect([none.code, none.stderr]).toEqual([1, expect.stringContaining('SEQFLOW_PROVIDER_KEY')]);
    const bad = await cliWith({}, 'k', 'org', 'provider-key', '--org', 'acme', '--base-url', 'ftp://x');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('VALIDATION_FAILED');
  });

  it('rebuilds the projections and says so', async () => {
    const rebuilt = await cli('projections', 'rebuild');
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.json).toMatchObject({ rebuilt: true, position: expect.any(Number), projections: expect.arrayContaining([expect.objectContaining({ name: 'flows', behind: 0 })]) });
    const verified = await cli('projections', 'verify');
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.json).toMatchObject({ ok: true, tables: expect.arrayContaining([{ table: 'flows', liveRows: expect.any(Number), shadowRows: expect.any(Number), same: true }]) });
  });

  it('prints the model catalog with SEQFLOW_MODEL_CATALOG over the built-in one, and stops at a catalog it cannot use', async () => {
    const catalog = path.join(dir, 'models.json');
    await writeFile(catalog, JSON.stringify({
      'claude-sonnet-5-5': { inputUsdPerMTok: 3, outputUsdPerMTok: 15 },
      'llama3:8b': { provider: 'compatible', imageMimeTypes: [], tools: false, structuredOutput: false, contextWindow: 8192, inputUsdPerMTok: 0, outputUsdPerMTok: 0 },
    }));
    const listed = await cliWith({ SEQFLOW_MODEL_CATALOG: catalog }, undefined, 'models', 'list');
    expect(listed.code).toBe(0);
    const byName = new Map((listed.json.models as { model: string }[]).map((m) => [m.model, m]));
    expect(byName.get('gpt-4o-mini')).toEqual({ model: 'gpt-4o-mini', provider: 'openai', imageMimeTypes: ['image/jpeg', 'image/png', 'image/webp', 'image/gif'], tools: true, structuredOutput: true, contextWindow: 128_000, inputUsdPerMTok: 0.15, outputUsdPerMTok: 0.6 });
    expect(byName.get('claude-sonnet-5-5')).toMatchObject({ provider: 'anthropic', inputUsdPerMTok: 3, outputUsdPerMTok: 15, contextWindow: 200_000 });
    expect(byName.get('llama3:8b')).toMatchObject({ provider: 'compatible', tools: false, contextWindow: 8192 });

    await writeFile(catalog, JSON.stringify({ 'my-model': { provider: 'compatible' } }));
    const incomplete = await cliWith({ SEQFLOW_MODEL_CATALOG: catalog }, undefined, 'models', 'list');
    expect(incomplete.code).toBe(2);
    expect(incomplete.stderr).toMatch(/SEQFLOW_MODEL_CATALOG .*my-model: a model not in the built-in catalog needs every field/);
    const missing = await cliWith({ SEQFLOW_MODEL_CATALOG: path.join(dir, 'none.json') }, undefined, 'models', 'list');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/SEQFLOW_MODEL_CATALOG cannot read .*none\.json: ENOENT/);
  });

  it('fails with the error code for a missing organization, and names a bad variable', async () => {
    const missing = await cli('project', 'create', '--org', 'ghost', '--slug', 'x', '--name', 'X');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('ORGANIZATION_NOT_FOUND');

    const badConfig = await runCli(['migrate'], { ...env, PORT: 'not-a-port' });
    expect(badConfig.code).toBe(2);
    expect(badConfig.stderr).toContain('PORT');
  });

  it('finds what another process wrote before it ran, though no process has projected it yet', async () => {
    // A runtime that appends but runs no projections: its organization is in the log only.
    const other = await createTestRuntime('cli-behind');
    try {
      await createOrganization(other.runtime.commands, { slug: 'fresh', name: 'Fresh' }, testPrincipal);
      const otherEnv = { DATABASE_URL: other.database.url, SEQFLOW_MASTER_KEY: other.runtime.masterKey.toString('base64'), LOG_LEVEL: 'warn' };
      expect(await other.runtime.db.selectFrom('organizations').select('slug').execute()).toEqual([]);

      const project = await runCli(['project', 'create', '--org', 'fresh', '--slug', 'web', '--name', 'Web'], otherEnv);
      expect(project.stderr).toBe('');
      expect(JSON.parse(project.stdout)).toEqual({ id: expect.any(String), slug: 'web', organizationId: expect.any(String) });
      const ghost = await runCli(['project', 'create', '--org', 'ghost', '--slug', 'web', '--name', 'Web'], otherEnv);
      expect([ghost.code, ghost.stderr]).toEqual([1, expect.stringContaining('ORGANIZATION_NOT_FOUND')]);
    } finally {
      await other.close();
    }
  });
});
