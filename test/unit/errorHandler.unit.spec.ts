import { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { installErrorHandling } from '../../src/api/rest/errorHandler.ts';
import { ApiError } from '../../src/domain/errors/apiError.ts';

describe('the REST error handler', () => {
  it('answers an internal error with "internal error" and an error id that only the server log ties to the cause', async () => {
    let logged = '';
    const logger = pino({ level: 'error' }, new Writable({ write: (chunk, _e, done) => ((logged += chunk.toString()), done()) }));
    const app = Fastify({ loggerInstance: logger as FastifyBaseLogger });
    installErrorHandling(app, () => []);
    app.get('/boom', async () => {
      throw new Error('relation "secret_table" does not exist at 10.0.0.7');
    });
    app.get('/mine', async () => {
      throw new ApiError('FLOW_NOT_FOUND', 'No flow');
    });
    const answer = await app.inject({ method: 'GET', url: '/boom' });
    expect(answer.statusCode).toBe(500);
    const body = answer.json() as { detail: { code: string; message: string; errorId: string } };
    expect(body.detail).toEqual({ code: 'INTERNAL', message: 'internal error', errorId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(answer.body).not.toContain('secret_table');
    expect(logged).toContain(body.detail.errorId);
    expect(logged).toContain('secret_table');
    expect((await app.inject({ method: 'GET', url: '/mine' })).json()).toEqual({ detail: { code: 'FLOW_NOT_FOUND', message: 'No flow' } });
    await app.close();
  });
});
