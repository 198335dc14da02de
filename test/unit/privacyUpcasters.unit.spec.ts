import { describe, expect, it } from 'vitest';
import { decodeEvent } from '../../src/domain/domainEvent.ts';

/** Issue 60: events recorded before failures, erasures and judges' words were split still read, as what they were. */
describe('events recorded before the privacy split, read through the upcasters', () => {
  it('reads an earlier failure with its message as written and no detail', () => {
    const failed = { executionId: 'e', reason: 'error', code: 'CODE_BLOCK_FAILED', message: 'code block threw Error: no', stepIndex: 0, blockName: 'boom', durationMs: 6 };
    for (const version of [1, 2]) expect(decodeEvent('ExecutionFailed', version, failed).data).toEqual({ ...failed, detail: null });
    const step = { executionId: 'e', stepIndex: 0, blockId: 'b', blockName: 'boom', iteration: null, code: 'CODE_BLOCK_FAILED', message: 'code block threw Error: no', durationMs: 6, model: null, usage: null, attempts: [] };
    expect(decodeEvent('ExecutionStepFailed', 1, step).data).toEqual({ ...step, detail: null });
  });

  it('reads an earlier erasure as one that records no match', () => {
    const erased = { executionId: 'e', trigger: 'request', reason: 'ticket 12 (input.parameters.customer_id=42)', erasedAt: '2026-11-26T10:00:00.000Z' };
    expect(decodeEvent('RunDataErased', 1, erased).data).toEqual({ ...erased, match: null });
  });

  it("splits an earlier comparison's judge into its verdict and its words", () => {
    const side = { status: 'completed', durationMs: 1, tokens: 0, error: null };
    const compared = { backtestId: 'b', executionId: 'e', backtestExecutionId: 'x', outcome: 'different', changes: [], more: 0, original: side, candidate: side };
    const judge = { type: 'llm_judge', passed: true, score: 0.9, reason: 'the same answer, said otherwise', judge: { model: 'gpt-4.1-mini', promptHash: 'h', rationale: 'both name Bergen' } };
    expect(decodeEvent('BacktestRunCompared', 1, { ...compared, judge }).data).toEqual({
      ...compared,
      judge: { type: 'llm_judge', passed: true, score: 0.9, judge: { model: 'gpt-4.1-mini', promptHash: 'h' } },
      judgeWords: { reason: 'the same answer, said otherwise', rationale: 'both name Bergen' },
    });
    expect(decodeEvent('BacktestRunCompared', 1, { ...compared, judge: null }).data).toMatchObject({ judge: null, judgeWords: null });
  });
});
