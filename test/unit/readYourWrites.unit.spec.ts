import Fastify, { type FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { ReadNeed } from '../../src/database/readRouting.ts';
import { readYourWrites } from '../../src/api/rest/readYourWrites.ts';

/**
 * An API key reads its own writes (src/api/rest/readYourWrites.ts), tested without a database: the
 * routing is a stand-in that records each read's need, the log's position a number the test moves.
 */
describe("a caller's reads after its writes, where replicas serve reads", () => {
  const setUp = () => {
    const needs: ReadNeed[] = [];
    const appended = { position: 5 };
    const positions = readYourWrites({ appendedPosition: () => appended.position, reads: { within: (need, read) => (needs.push(need), read()) } });
    const app = Fastify();
    app.decorateRequest('apiKey', undefined);
    app.addHook('onRequest', async (request) => {
      const keyId = request.headers['x-key'];
      if (typeof keyId === 'string') request.apiKey = { keyId, projectId: 'p', organizationId: 'o', environment: 'test' };
    });
    positions.install(app);
    app.post('/jobs', async () => ({ accepted: true }));
    app.post('/refused', async (_request, reply) => reply.code(400).send({ detail: { code: 'VALIDATION_FAILED' } }));
    const read = (keyId: string | undefined, projections: readonly string[], sent?: string) =>
      positions.read({ headers: sent === undefined ? {} : { 'seqflow-position': sent }, apiKey: keyId ? { keyId } : undefined } as unknown as FastifyRequest, projections, async () => 'read');
    return { needs, appended, app, read };
  };

  it("answers a write with the log's position, and the key's next listing waits for it; another key's does not", async () => {
    const { needs, appended, app, read } = setUp();
    appended.position = 41;
    const written = await app.inject({ method: 'POST', url: '/jobs', headers: { 'x-key': 'alice' } });
    expect(written.headers['seqflow-position']).toBe('41');
    appended.position = 90; // others' appends since
    await read('alice', ['jobs']);
    await read('bob', ['jobs']);
    expect(needs).toEqual([
      { after: 41, projections: ['jobs'] },
      { after: 0, projections: ['jobs'] },
    ]);
  });

  it('waits for the position the caller sent when it is later than any this process answered it; a refused write is no write', async () => {
    const { needs, appended, app, read } = setUp();
    appended.position = 12;
    expect((await app.inject({ method: 'POST', url: '/refused', headers: { 'x-key': 'alice' } })).headers['seqflow-position']).toBeUndefined();
    await read('alice', ['runs'], '77');
    await read(undefined, ['runs'], '3');
    expect(needs).toEqual([
      { after: 77, projections: ['runs'] },
      { after: 3, projections: ['runs'] },
    ]);
  });

  it('reads a need without read models as it is, and refuses a position that is not a number', async () => {
    const { needs, app, read } = setUp();
    await app.inject({ method: 'POST', url: '/jobs', headers: { 'x-key': 'alice' } });
    await read('alice', [], '99');
    expect(needs).toEqual([{ after: 0, projections: [] }]);
    await expect(async () => read('alice', ['jobs'], 'soon')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});
