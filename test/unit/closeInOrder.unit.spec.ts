import { describe, expect, it } from 'vitest';
import { closeInOrder } from '../../src/runtime/closeInOrder.ts';

describe('closing a process in order', () => {
  it('closes every step in order, each one whatever the steps before it did, and logs those that failed', async () => {
    const closed: string[] = [];
    const warnings: { step: string; message: string }[] = [];
    const step = (name: string, fails = false) => ({
      name,
      close: async () => {
        closed.push(name);
        if (fails) throw new Error(`${name} refused`);
      },
    });
    await closeInOrder([step('the pool', true), step('the event log'), step('tracing', true), step('the embedded PostgreSQL')], {
      warn: (fields: object, message?: string) => void warnings.push({ step: (fields as { step: string }).step, message: message ?? '' }),
    });
    expect(closed).toEqual(['the pool', 'the event log', 'tracing', 'the embedded PostgreSQL']);
    expect(warnings).toEqual([
      { step: 'the pool', message: 'could not close the pool; closing the rest' },
      { step: 'tracing', message: 'could not close tracing; closing the rest' },
    ]);
  });

  it('logs nothing when every step closes', async () => {
    const warnings: unknown[] = [];
    await closeInOrder([{ name: 'a', close: async () => undefined }], { warn: (fields: object) => void warnings.push(fields) });
    expect(warnings).toEqual([]);
  });
});
