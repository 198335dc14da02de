import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, seedProject, serveApi, type TestRuntime } from '../support/testRuntime.ts';

/**
 * Property: whatever a caller sends to a public route, the answer is below 500, an error has the
 * `{detail: {code, message}}` shape, and the service stays healthy. Generated: invalid JSON, wrong
 * content types, deep nesting, huge numbers and strings, `__proto__`/`constructor` keys, NUL and lone
 * surrogates, wrong types in every field, absurd path and query values.
 */
const RUNS = { body: 400, text: 150, path: 150, query: 150 };
export const FUZZ_CASES = Object.values(RUNS).reduce((a, b) => a + b, 0) * 3;

const flows = { echo: [{ block: { name: 'echo', processor_type: 'code', code: 'return { got: input.message };' } }] };

const nasty = fc.oneof(
  fc.constantFrom('\u0000', '\ud800', '\udfff', 'a\u0000b', '__proto__', 'constructor', 'prototype', '../..', '%00', '💥', ''),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
);
const hugeNumber = fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, -0, 1e-320, Number.MAX_SAFE_INTEGER * 1000, 1.2345678901234568e29);
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { depthSize: 'small' },
  fc.jsonValue({ maxDepth: 4 }),
  nasty,
  hugeNumber,
  fc.constant('x'.repeat(300_000)),
  fc.dictionary(nasty, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
);
const fields = ['message', 'parameters', 'attachments', 'tools', 'toolChoice', 'executionId', 'pausedAtStep', 'iterationsUsed', 'toolCallMessages', 'callbackUrl', 'callbackEvents'];
/** An execute/jobs body with some fields of any type, plus some keys it never expects. */
const anyBody = fc.record(Object.fromEntries(fields.map((f) => [f, anyValue])), { requiredKeys: [] }).chain((body) =>
  fc.dictionary(nasty, anyValue, { maxKeys: 2 }).map((extra) => ({ ...extra, ...body })),
);
/** A body that passes the shape checks, so hostile text reaches the run itself (and the log). */
const nearlyValidBody = fc.record(
  {
    message: nasty,
    parameters: fc.dictionary(nasty, fc.oneof(nasty, fc.jsonValue({ maxDepth: 3 }), hugeNumber), { maxKeys: 3 }),
    callbackUrl: fc.constantFrom('https://93.184.216.34/hook', 'https://[::a9fe:a9fe]/x', 'https://example.invalid/\u0000'),
  },
  { requiredKeys: ['message'] },
);
const bodyObject = fc.oneof(anyBody, nearlyValidBody);
/** Body text: JSON of those bodies, of any value, or not JSON at all, or nested far too deep. */
const bodyText = fc.oneof(
  bodyObject.map((b) => JSON.stringify(b)),
  anyValue.map((v) => JSON.stringify(v) ?? 'null'),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.integer({ min: 100, max: 20_000 }).map((n) => `{"message":"m","parameters":${'['.repeat(n)}${']'.repeat(n)}}`),
  fc.constantFrom('', '{', '{"message":', '[1,2', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}', 'null', '"str"', '1e999999'),
);
const contentType = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', '', 'application/json; charset=latin1');
const segment = fc.oneof(nasty.filter((s) => s.length > 0), fc.constantFrom('echo', 'acme', 'web', '00000000-0000-4000-8000-000000000000', 'x'.repeat(150), '%E0%A4%A', '%00', '..', '%2F'));
const queryValue = fc.oneof(nasty, fc.constantFrom('-1', '0', '201', '1e99', 'NaN', 'abc', '2024-13-45T99:99:99Z', '9999-12-31T23:59:59Z', '0001-01-01T00:00:00Z', '1'.repeat(400)));

/** encodeURIComponent, but a lone surrogate is sent as its WTF-8 bytes (as a hostile client would) instead of throwing. */
const encode = (text: string) =>
  text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|[^]/gu, (ch) => {
    if (ch.length === 1 && ch.charCodeAt(0) >= 0xd800 && ch.charCodeAt(0) <= 0xdfff) {
      const c = ch.charCodeAt(0);
      return [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    }
    return encodeURIComponent(ch);
  });

// Hundreds of requests per property: on a loaded machine (load 7) one property took over a minute.
describe('fuzzing every public route', { timeout: 180_000 }, () => {
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  let orgId: string;

  beforeAll(async () => {
    t = await createTestRuntime('fuzz', { SEQFLOW_DEFAULT_CREDITS: '1000' });
    key = await seedProject(t.runtime, flows);
    await t.runtime.projections.catchUp();
    orgId = (await t.runtime.db.selectFrom('organizations').select('id').where('slug', '=', 'acme').executeTakeFirstOrThrow()).id;
    await t.runtime.projections.start();
    ({ app, base } = await serveApi(t.runtime));
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
  });

  /** Sends one request and checks the property; a 2xx stream is read to its end. */
  async function probe(method: string, path: string, body?: string, type?: string) {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(type ? { 'content-type': type } : {}) },
      ...(body === undefined ? {} : { body }),
    });
    const text = await response.text();
    if (response.status >= 500) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
    if (response.status >= 400) {
      const parsed = JSON.parse(text) as { detail?: { code?: unknown; message?: unknown } };
      expect(typeof parsed.detail?.code).toBe('string');
      expect(typeof parsed.detail?.message).toBe('string');
    }
  }

  const bodyRoutes = (flow: string) => [
    ['POST', `/seq/acme/web/${flow}/execute`],
    ['POST', `/seq/acme/web/${flow}/jobs`],
    ['POST', `/seq/acme/web/${flow}/step`],
  ];

  it(`POST bodies of every shape to /execute, /jobs and /step (${RUNS.body} x 3 cases)`, async () => {
    for (const [method, path] of bodyRoutes('echo')) {
      await fc.assert(fc.asyncProperty(bodyObject, async (body) => probe(method!, path!, JSON.stringify(body), 'application/json')), { numRuns: RUNS.body });
    }
  });

  it(`POST raw text under any content type (${RUNS.text} x 3 cases)`, async () => {
    for (const [method, path] of bodyRoutes('echo')) {
      await fc.assert(fc.asyncProperty(bodyText, contentType, async (text, type) => probe(method!, path!, text, type || undefined)), { numRuns: RUNS.text });
    }
  });

  it(`absurd path segments on every route (${RUNS.path} x 3 cases)`, async () => {
    const routes: ((s: string[]) => [string, string, string?])[] = [
      (s) => ['POST', `/seq/${s[0]}/${s[1]}/${s[2]}/execute`, '{"message":"m"}'],
      (s) => ['GET', `/seq/acme/web/${s[0]}/jobs/${s[1]}`],
      (s) => ['GET', `/seq/acme/${s[0]}/echo/step/${s[1]}`],
    ];
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(fc.array(segment, { minLength: 3, maxLength: 3 }), async (segments) => {
          const [method, path, body] = route(segments.map((s) => (/%/.test(s) ? s : encode(s))));
          await probe(method, path, body, body ? 'application/json' : undefined);
        }),
        { numRuns: RUNS.path },
      );
    }
  });

  it(`absurd query values, Last-Event-ID values and organization ids on webhook management, jobs and health (${RUNS.query} x 3 cases)`, async () => {
    await fc.assert(
      fc.asyncProperty(queryValue, queryValue, async (limit, before) => probe('GET', `/organizations/${orgId}/webhooks/deliveries?limit=${encode(limit)}&before=${encode(before)}`)),
      { numRuns: RUNS.query },
    );
    await fc.assert(
      fc.asyncProperty(segment, fc.constantFrom('GET', 'POST'), async (org, method) => {
        await probe(method, method === 'GET' ? `/organizations/${encode(org)}/webhooks/secret` : `/organizations/${encode(org)}/webhooks/secret/rotate`);
      }),
      { numRuns: RUNS.query },
    );
    await fc.assert(
      fc.asyncProperty(queryValue, async (value) => {
        await probe('GET', `/seq/acme/web/echo/step/00000000-0000-4000-8000-000000000000?lastEventId=${encode(value)}`);
        await probe('GET', `/health?x=${encode(value)}`);
      }),
      { numRuns: RUNS.query },
    );
  });

  it('the service is healthy after all of it', async () => {
    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
  });
});
