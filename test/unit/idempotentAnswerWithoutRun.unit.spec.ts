import { describe, expect, it } from 'vitest';
import { answerOnce } from '../../src/runs/answerOnce.ts';
import type { ApiError } from '../../src/domain/errors/apiError.ts';
import { createMemoryEventStore } from '../simulation/memoryEventStore.ts';

const caller = { projectId: 'project-1', apiKeyId: null, principal: { kind: 'system' as const, id: 'test' } };
const call = { key: 'key-1', operation: 'execute' as const, params: { slug: 'triage' }, input: { message: 'carol@example.com' } };
const failureAnswer = (error: ApiError) => ({ status: 500, body: { detail: { code: error.code, message: error.message } } });

/**
 * An idempotent answer is kept sealed under its run's key (issue 60). An answer that names no run
 * has no key to be sealed under: it must not be kept in the log in plaintext, so its key is freed and
 * a retry runs again.
 */
describe('an Idempotency-Key whose answer names no run', () => {
  it('is freed, not kept: nothing of the answer reaches the log, and the same call runs again', async () => {
    const eventStore = createMemoryEventStore();
    const deps = { commands: { eventStore, now: () => new Date('2026-12-03T10:00:00Z') }, leaseMs: 60_000, logger: { warn: () => undefined } };
    let handled = 0;
    const handle = async () => ({ status: 200, body: { echoed: `for ${call.input.message}`, n: ++handled } });

    const first = await answerOnce(deps, caller, call, handle, failureAnswer);
    const second = await answerOnce(deps, caller, call, handle, failureAnswer);

    expect(first).toEqual({ response: { status: 200, body: { echoed: 'for carol@example.com', n: 1 } }, replayed: false });
    expect(second).toEqual({ response: { status: 200, body: { echoed: 'for carol@example.com', n: 2 } }, replayed: false });
    const logged = await eventStore.readAll(0, 1000);
    expect(logged.map((e) => e.type)).toEqual(['IdempotencyKeyClaimed', 'IdempotencyKeyReleased', 'IdempotencyKeyClaimed', 'IdempotencyKeyReleased']);
    expect(JSON.stringify(logged)).not.toContain('carol@example.com');
  });

  it('is kept when it names its run: the same call is answered again from the log', async () => {
    const eventStore = createMemoryEventStore();
    const deps = { commands: { eventStore, now: () => new Date('2026-12-03T10:00:00Z') }, leaseMs: 60_000, logger: { warn: () => undefined } };
    let handled = 0;
    const handle = async () => ({ status: 200, body: { executionId: 'run-1', n: ++handled } });

    await answerOnce(deps, caller, call, handle, failureAnswer);
    const again = await answerOnce(deps, caller, call, handle, failureAnswer);

    expect(again).toEqual({ response: { status: 200, body: { executionId: 'run-1', n: 1 } }, replayed: true });
    expect(handled).toBe(1);
  });
});
