import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayExecution } from '../../src/audit/runAudit.ts';
import { executionStream } from '../../src/domain/execution/executionEvents.ts';
import { runTrace, stepTrace } from '../../src/testing/runTrace.ts';
import { type HttpsReceiver, startHttpsReceiver } from '../support/httpsReceiver.ts';
import { CAPPED_READ_SENT_BOUND, streamHugeBody } from '../support/hugeBody.ts';
import { type SeededService, startSeededService } from '../support/seededService.ts';

/**
 * An http block (issue 61, an addition to the spec's processor types) against a real HTTPS server on
 * loopback that behaves as servers do on a bad day: it drips, floods, answers NULs and broken UTF-8,
 * redirects to the cloud's metadata address, resets, and fails before it succeeds.
 */
describe('http blocks', () => {
  let receiver: HttpsReceiver;
  let service: SeededService;
  const hugeSent = { bytes: 0 };
  let ticketTries = 0;

  beforeAll(async () => {
    receiver = await startHttpsReceiver((request, res, req) => {
      const path = request.path.split('?')[0]!;
      if (path.startsWith('/customers/')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ name: 'Carol', email: decodeURIComponent(path.slice('/customers/'.length)) }));
      }
      if (path === '/tickets') {
        // Down once, then files the ticket: both tries carry one Idempotency-Key.
        if (ticketTries++ === 0) return res.writeHead(503).end('down for a moment');
        res.writeHead(201, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ ticket: 'T-1', subject: JSON.parse(request.body).subject }));
      }
      if (path === '/drip') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"a":');
        const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write(' ')), 100);
        return res.on('close', () => clearInterval(drip));
      }
      if (path === '/huge') return streamHugeBody(res, 30 * (1 << 20), hugeSent);
      if (path === '/hostile') {
        res.writeHead(200, { 'content-type': 'application/json' });
        // A NUL escape, a lone surrogate escape, a raw byte that is not UTF-8, and an emoji.
        return res.end(Buffer.concat([Buffer.from('{"note":"a\\u0000b\\ud800c","raw":"'), Buffer.from([0xff, 0xfe]), Buffer.from('","ok":"🙂"}')]));
      }
      if (path === '/archive') return res.writeHead(204).end();
      if (path === '/redirect') return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      if (path === '/reset') return req.socket.destroy();
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end('<html>not json</html>');
    });
    const http = (name: string, request: Record<string, unknown>, config: Record<string, unknown> = {}) => ({ block: { name, processor_type: 'http', processor_config: { request, ...config } } });
    service = await startSeededService(
      'http_blocks',
      {
        lookup: [http('lookup', { method: 'GET', url: `${receiver.url}/customers/{{parameters.email}}` }), { block: { name: 'greet', processor_type: 'code', code: 'return { greeting: "hi " + input.steps.lookup.name, email: input.steps.lookup.email };' } }],
        file: [http('file', { method: 'POST', url: `${receiver.url}/tickets`, body: { subject: '{{message}}' } }, { expect_status: [201] })],
        drip: [http('drip', { method: 'GET', url: `${receiver.url}/drip` }, { timeout_ms: 300 })],
        huge: [http('huge', { method: 'GET', url: `${receiver.url}/huge` })],
        hostile: [http('hostile', { method: 'GET', url: `${receiver.url}/hostile` })],
        redirect: [http('redirect', { method: 'GET', url: `${receiver.url}/redirect` })],
        reset: [http('reset', { method: 'GET', url: `${receiver.url}/reset` })],
        archive: [http('archive', { method: 'DELETE', url: `${receiver.url}/archive` })],
        page: [http('page', { method: 'GET', url: `${receiver.url}/page` })],
        metadata: [http('metadata', { method: 'GET', url: 'http://169.254.169.254/latest/meta-data/' })],
      },
      { SEQFLOW_OUTBOUND_EXTRA_CA_FILE: receiver.caFile },
    );
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await receiver?.close();
  });

  const eventsOf = async (executionId: string) => service.t.runtime.eventStore.readStream(executionStream(executionId));
  const attemptsOf = async (executionId: string) => (await eventsOf(executionId)).filter((e) => e.type === 'HttpRequestAttempted').map((e) => e.data as { attempt: number; outcome: string; status: number | null; url: string; idempotencyKey: string | null });

  it('looks a customer up: the response is the step’s output, read by name by the next block; the address is encoded into the URL', async () => {
    const { status, body } = await service.execute('lookup', { message: 'hello', parameters: { email: 'carol+vip@example.com' } });
    expect(status).toBe(200);
    expect((body as { result?: unknown }).result).toEqual({ greeting: 'hi Carol', email: 'carol+vip@example.com' });
    expect(receiver.received.at(-1)!.path).toBe('/customers/carol%2Bvip%40example.com');
    // A GET carries no Idempotency-Key; its attempt is an event, its URL sealed with the run's data.
    expect(receiver.received.at(-1)!.headers['idempotency-key']).toBeUndefined();
    const attempts = await attemptsOf(body.executionId!);
    expect(attempts).toEqual([expect.objectContaining({ attempt: 1, outcome: 'response', status: 200, idempotencyKey: null, url: `${receiver.url}/customers/carol%2Bvip%40example.com` })]);
    const stored = (await sql<{ data: string }>`SELECT data::text AS data FROM seqflow_events WHERE stream_id = ${executionStream(body.executionId!)}`.execute(service.t.runtime.db)).rows.map((r) => r.data).join('\n');
    expect(stored).not.toContain('carol');
    const trace = await runTrace(service.t.runtime.eventStore, {}, body.executionId!);
    expect(trace.steps.map((s) => [s.name, s.status])).toEqual([['lookup', 'completed'], ['greet', 'completed']]);
    // An audit's replay of the run agrees with its log.
    expect((await replayExecution(service.t.runtime.eventStore, body.executionId!)).divergence).toBeNull();
  });

  it('files a ticket once through a 503: the retry sends the same Idempotency-Key, each attempt recorded', async () => {
    const before = receiver.received.length;
    const { status, body } = await service.execute('file', { message: 'refund please' });
    expect(status).toBe(200);
    expect((body as { result?: unknown }).result).toEqual({ ticket: 'T-1', subject: 'refund please' });
    const sent = receiver.received.slice(before);
    expect(sent).toHaveLength(2);
    const key = sent[0]!.headers['idempotency-key'];
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(sent[1]!.headers['idempotency-key']).toBe(key);
    expect(sent[0]!.headers['content-type']).toBe('application/json');
    expect((await attemptsOf(body.executionId!)).map((a) => [a.attempt, a.status, a.idempotencyKey])).toEqual([
      [1, 503, key],
      [2, 201, key],
    ]);
    // The trace (the console's waterfall, MCP's get_run_trace and get_step_trace) shows each request with its timing and status.
    const trace = await runTrace(service.t.runtime.eventStore, {}, body.executionId!);
    expect(trace.steps[0]).toMatchObject({ processorType: 'http', requests: [{ attempt: 1, status: 503, outcome: 'failed' }, { attempt: 2, status: 201, outcome: 'answered' }] });
    const step = await stepTrace(service.t.runtime.eventStore, {}, body.executionId!, String(trace.steps[0]!.stepId));
    expect(step.executions[0]!.requests).toEqual([
      { attempt: 1, startMs: expect.any(Number), durationMs: expect.any(Number), status: 503, outcome: 'response' },
      { attempt: 2, startMs: expect.any(Number), durationMs: expect.any(Number), status: 201, outcome: 'response' },
    ]);
    expect(step.executions[0]!.requests[1]!.startMs).toBeGreaterThanOrEqual(step.executions[0]!.requests[0]!.startMs + step.executions[0]!.requests[0]!.durationMs);
  });

  it('fails a server that drips its answer at the timeout, after three tries', async () => {
    const { status, body } = await service.execute('drip', { message: 'x' });
    expect(status).toBe(502);
    expect(body.detail?.code).toBe('HTTP_REQUEST_FAILED');
    expect((await attemptsOf(body.detail!.executionId!)).map((a) => a.outcome)).toEqual(['timeout', 'timeout', 'timeout']);
  });

  it('stops reading a 30 MB answer at its cap, and does not try again', async () => {
    const { status, body } = await service.execute('huge', { message: 'x' });
    expect(status).toBe(502);
    expect(body.detail?.code).toBe('HTTP_RESPONSE_TOO_LARGE');
    expect((await attemptsOf(body.detail!.executionId!)).map((a) => a.outcome)).toEqual(['too_large']);
    expect(hugeSent.bytes).toBeLessThanOrEqual(CAPPED_READ_SENT_BOUND);
  });

  it('keeps an answer of NULs and broken UTF-8 as storable text, the emoji whole', async () => {
    const { status, body } = await service.execute('hostile', { message: 'x' });
    expect(status).toBe(200);
    expect((body as { result?: unknown }).result).toEqual({ note: 'a\ufffdb\ufffdc', raw: '\ufffd\ufffd', ok: '🙂' });
  });

  it('takes a 204 No Content as a null output, and still sends a DELETE its key', async () => {
    const { status, body } = await service.execute('archive', { message: 'x' });
    expect(status).toBe(200);
    // A result that is not an object is wrapped, as for any block (docs/api.md).
    expect(body).toMatchObject({ result: { value: null } });
    expect(receiver.received.at(-1)!.headers['idempotency-key']).toMatch(/^[0-9a-f]{64}$/);
  });

  it('never follows a redirect (here to the metadata address): the 302 fails the step', async () => {
    const { status, body } = await service.execute('redirect', { message: 'x' });
    expect(status).toBe(502);
    expect(body.detail?.code).toBe('HTTP_STATUS_UNEXPECTED');
    expect((await attemptsOf(body.detail!.executionId!)).map((a) => a.status)).toEqual([302]);
  });

  it('tries a reset connection three times, then fails the step', async () => {
    const { status, body } = await service.execute('reset', { message: 'x' });
    expect(status).toBe(502);
    expect(body.detail?.code).toBe('HTTP_REQUEST_FAILED');
    expect((await attemptsOf(body.detail!.executionId!)).map((a) => a.outcome)).toEqual(['network_error', 'network_error', 'network_error']);
  });

  it('refuses an address the outbound guard refuses, without trying again', async () => {
    const { status, body } = await service.execute('metadata', { message: 'x' });
    expect(status).toBe(422);
    expect(body.detail?.code).toBe('HTTP_BLOCKED_HOST');
    expect((await attemptsOf(body.detail!.executionId!)).map((a) => a.outcome)).toEqual(['blocked_address']);
  });

  it('fails an answer that is not JSON, saying so', async () => {
    const { status, body } = await service.execute('page', { message: 'x' });
    expect(status).toBe(502);
    expect(body.detail).toMatchObject({ code: 'HTTP_RESPONSE_INVALID', message: expect.stringContaining('the response is not JSON') });
  });
});
