import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFlow } from '../../src/commands/flowCommands.ts';
import { findOrganizationId } from '../../src/commands/organizationCommands.ts';
import { deleteSecret, setSecret } from '../../src/commands/secretCommands.ts';
import { runTrace, stepTrace } from '../../src/testing/runTrace.ts';
import { type HttpsReceiver, startHttpsReceiver } from '../support/httpsReceiver.ts';
import { encodedForms, streamsHoldingAny, tablesHoldingAny } from '../support/plaintextScan.ts';
import { runCli } from '../support/runProcess.ts';
import { type SeededService, startSeededService } from '../support/seededService.ts';
import { testPrincipal } from '../support/testRuntime.ts';

/**
 * An organization's secrets (issue 61 point 3): set from the CLI's standard input, sent in an http
 * block's URL and headers to a real HTTPS server that echoes them back, and found nowhere in
 * plaintext afterwards: not in the log, not in a read model, not in the trace, the output, the
 * failure or the service's log lines.
 */
describe('secrets in http requests', () => {
  let receiver: HttpsReceiver;
  let service: SeededService;
  let organizationId: string;
  const masterKey = randomBytes(32).toString('base64');
  const token = `tok_${randomBytes(12).toString('hex')}`;
  const pathKey = `pk/${randomBytes(8).toString('hex')}+x`;
  const rotated = `tok_${randomBytes(12).toString('hex')}`;
  const every = [token, pathKey, rotated].flatMap((value) => [...encodedForms(value), encodeURIComponent(value)]);

  const publish = async (slug: string, request: Record<string, unknown>) => {
    await importFlow(service.t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug, name: slug, steps: [{ block: { name: 'crm', processor_type: 'http', processor_config: { request } } }] }, production: true }, testPrincipal);
    await service.t.runtime.projections.catchUp();
  };
  /** The run's trace and its step's, as the console and MCP read them. */
  const traced = async (executionId: string) => {
    const trace = await runTrace(service.t.runtime.eventStore, {}, executionId);
    const step = await stepTrace(service.t.runtime.eventStore, {}, executionId, String(trace.steps[0]!.stepId));
    return JSON.stringify([trace, step]);
  };
  const lookup = () => ({ method: 'GET', url: `${receiver.url}/echo/{{secrets.path_key}}/{{parameters.id}}`, headers: { authorization: 'Bearer {{secrets.crm_token}}' } });

  beforeAll(async () => {
    receiver = await startHttpsReceiver((request, res) => {
      // Echoes what it was sent, as a debugging endpoint or a careless error page does.
      const echoed = { auth: request.headers.authorization, path: request.path };
      if (request.path.startsWith('/fail')) return res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'bad token', ...echoed }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(echoed));
    });
    service = await startSeededService('request_secrets', {}, { SEQFLOW_OUTBOUND_EXTRA_CA_FILE: receiver.caFile, SEQFLOW_MASTER_KEY: masterKey });
    organizationId = await findOrganizationId(service.t.runtime.commands, 'acme');
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await receiver?.close();
  });

  it('are set from standard input by the CLI and listed by name and version only', { timeout: 120_000 }, async () => {
    const env = { DATABASE_URL: service.t.database.url, SEQFLOW_MASTER_KEY: masterKey, LOG_LEVEL: 'warn' };
    const set = await runCli(['secret', 'set', '--org', 'acme', '--name', 'crm_token'], env, `${token}\n`);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout.trim().split('\n').at(-1)!)).toMatchObject({ organizationId, name: 'crm_token', version: 1 });
    const short = await runCli(['secret', 'set', '--org', 'acme', '--name', 'path_key'], env, 'k3y-7x\n');
    expect(short.code).not.toBe(0);
    expect(short.stderr).toContain('at least 8 characters');
    // The refusal says what is wrong with the value, never what it was.
    expect(short.stderr + short.stdout).not.toContain('k3y-7x');
    await setSecret(service.t.runtime.commands, { organizationId, name: 'path_key', value: pathKey }, service.t.runtime.masterKey, testPrincipal);
    const listed = await runCli(['secret', 'list', '--org', 'acme'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout.trim().split('\n').at(-1)!).secrets).toEqual([
      { name: 'crm_token', version: 1, setAt: expect.any(String) },
      { name: 'path_key', version: 1, setAt: expect.any(String) },
    ]);
    expect(set.stdout + listed.stdout + set.stderr).not.toContain(token);
  });

  it('go into the URL and the header sent; what is echoed back reads [secret:<name>] in the output, the trace and the attempts', async () => {
    await publish('lookup', lookup());
    const { status, body } = await service.execute('lookup', { message: 'hi', parameters: { id: 'c-7' } });
    expect(status, JSON.stringify(body)).toBe(200);
    const sent = receiver.received.at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${token}`);
    expect(sent.path).toBe(`/echo/${encodeURIComponent(pathKey)}/c-7`);
    expect((body as { result?: unknown }).result).toEqual({ auth: 'Bearer [secret:crm_token]', path: '/echo/[secret:path_key]/c-7' });
    const trace = await traced(body.executionId!);
    expect(trace).toContain('Bearer [secret:crm_token]');
    expect(trace).toContain(`${receiver.url}/echo/[secret:path_key]/c-7`);
    for (const form of every) expect(trace).not.toContain(form);
  });

  it('are kept out of a failure the server answers with them in it', async () => {
    await publish('refused', { ...lookup(), url: `${receiver.url}/fail/{{secrets.path_key}}` });
    const { status, body } = await service.execute('refused', { message: 'hi' });
    expect(status).toBe(502);
    expect(body.detail?.code).toBe('HTTP_STATUS_UNEXPECTED');
    const trace = await traced(body.detail!.executionId!);
    expect(trace).toContain('[secret:crm_token]');
    for (const form of every) expect(JSON.stringify(body) + trace).not.toContain(form);
  });

  it('are refused at publish when the organization has no such secret, and fail a version that names one deleted since, sending nothing', async () => {
    await expect(publish('unknown', { method: 'GET', url: `${receiver.url}/echo`, headers: { 'x-key': '{{secrets.nope}}' } })).rejects.toMatchObject({ code: 'FLOW_INVALID', message: expect.stringContaining("the organization has no secret 'nope'") });
    await setSecret(service.t.runtime.commands, { organizationId, name: 'brief', value: 'brief-value-1' }, service.t.runtime.masterKey, testPrincipal);
    await publish('brief', { method: 'GET', url: `${receiver.url}/echo`, headers: { 'x-key': '{{secrets.brief}}' } });
    await deleteSecret(service.t.runtime.commands, { organizationId, name: 'brief' }, testPrincipal);
    const before = receiver.received.length;
    const { status, body } = await service.execute('brief', { message: 'hi' });
    expect(status).toBe(422);
    expect(body.detail).toMatchObject({ code: 'HTTP_SECRET_MISSING', message: expect.stringContaining("no secret 'brief'") });
    expect(receiver.received.length).toBe(before);
  });

  it('a rotation sends the new value at once; no value is anywhere in the log, the read models or the log lines', async () => {
    await setSecret(service.t.runtime.commands, { organizationId, name: 'crm_token', value: rotated }, service.t.runtime.masterKey, testPrincipal);
    const { status } = await service.execute('lookup', { message: 'again', parameters: { id: 'c-8' } });
    expect(status).toBe(200);
    expect(receiver.received.at(-1)!.headers.authorization).toBe(`Bearer ${rotated}`);
    await service.t.runtime.projections.catchUp();
    const db = service.t.runtime.db;
    expect(await streamsHoldingAny(db, every)).toEqual([]);
    expect(await tablesHoldingAny(db, every)).toEqual([]);
    for (const form of every) expect(service.t.logs()).not.toContain(form);
  });
});
