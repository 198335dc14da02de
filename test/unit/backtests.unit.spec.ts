import { describe, expect, it } from 'vitest';
import { backtest } from '../../src/domain/backtests/backtest.ts';
import type { BacktestEvent } from '../../src/domain/backtests/backtestEvents.ts';
import { comparePair, type ObservedSide } from '../../src/domain/backtests/pairComparison.ts';
import { MAX_CHANGES, diffResults } from '../../src/domain/backtests/resultDiff.ts';
import { answerFromRecorded, recordedCalls } from '../../src/domain/backtests/toolReplay.ts';
import { deciderSpec } from '../support/deciderSpec.ts';

const completed = (result: unknown, steps: Record<string, unknown> = {}): ObservedSide => ({ status: 'completed', result, durationMs: 10, tokens: 5, error: null, steps });
const failed = (code: string, steps: Record<string, unknown> = {}): ObservedSide => ({ status: 'failed', result: null, durationMs: 10, tokens: 5, error: { code, message: code }, steps });

describe('the structural diff of two results', () => {
  it('names each added, removed and changed path, descending into objects and arrays, keys in order', () => {
    expect(diffResults({ a: 1, list: [1, 2, 3], nested: { keep: true, gone: 'x' } }, { a: 2, list: [1, 5], nested: { keep: true }, extra: [null] })).toEqual({
      changes: [
        { path: 'a', kind: 'changed', before: '1', after: '2' },
        { path: 'extra', kind: 'added', after: '[null]' },
        { path: 'list[1]', kind: 'changed', before: '2', after: '5' },
        { path: 'list[2]', kind: 'removed', before: '3' },
        { path: 'nested.gone', kind: 'removed', before: '"x"' },
      ],
      more: 0,
    });
  });

  it('finds nothing between equal results whatever their key order, and quotes keys that are not names', () => {
    expect(diffResults({ a: { b: 1, c: 2 } }, { a: { c: 2, b: 1 } })).toEqual({ changes: [], more: 0 });
    expect(diffResults({ 'a b': 1 }, { 'a b': 2 }).changes[0]!.path).toBe('["a b"]');
    expect(diffResults('x', { a: 1 }).changes).toEqual([{ path: '', kind: 'changed', before: '"x"', after: '{"a":1}' }]);
  });

  it(`keeps the first ${MAX_CHANGES} changes and counts the rest; cuts long values with their length`, () => {
    const before = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${String(i).padStart(2, '0')}`, i]));
    const after = Object.fromEntries(Object.keys(before).map((k) => [k, -1]));
    const diff = diffResults(before, after);
    expect(diff.changes).toHaveLength(MAX_CHANGES);
    expect(diff.more).toBe(10);
    expect(diffResults({ t: 'x'.repeat(500) }, { t: 'y' }).changes[0]!.before).toMatch(/… \(502 characters\)$/);
  });
});

describe('comparing a recorded run with its replay', () => {
  it('is the same when both completed with equal results, different with the changes otherwise', () => {
    expect(comparePair(completed({ a: 1, b: 2 }), completed({ b: 2, a: 1 }))).toEqual({ outcome: 'same', changes: [], more: 0 });
    expect(comparePair(completed({ a: 1 }), completed({ a: 2 }))).toMatchObject({ outcome: 'different', changes: [{ path: 'a', kind: 'changed' }] });
  });

  it('is failed when the replay did not complete where the original did: the regression a promotion must not ship', () => {
    expect(comparePair(completed({ a: 1 }), failed('OUTPUT_VALIDATION_FAILED')).outcome).toBe('failed');
    expect(comparePair(completed({ a: 1 }), { ...completed(null), status: 'paused' }).outcome).toBe('failed');
  });

  it('compares two failures by their code, and a fixed failure as different', () => {
    expect(comparePair(failed('PROVIDER_ERROR'), failed('PROVIDER_ERROR')).outcome).toBe('same');
    expect(comparePair(failed('PROVIDER_ERROR'), failed('CODE_ERROR')).outcome).toBe('different');
    expect(comparePair(failed('PROVIDER_ERROR'), completed({ a: 1 }))).toMatchObject({ outcome: 'different', changes: [{ path: '', kind: 'changed' }] });
  });
});

describe('comparing the blocks of a recorded run and its replay', () => {
  it('names the block whose output changed, under steps.<block>.output, even when the result did not change', () => {
    const original = completed({ answer: 'refund' }, { route: { queue: 'billing', urgent: false }, escalate: null, items: [1, 2] });
    const replay = completed({ answer: 'refund' }, { route: { queue: 'sales', urgent: false }, escalate: null, items: [1, 3], 'new-block': 'x' });
    expect(comparePair(original, replay)).toEqual({
      outcome: 'same',
      changes: [
        { path: 'steps.route.output.queue', kind: 'changed', before: '"billing"', after: '"sales"' },
        { path: 'steps.items.output[1]', kind: 'changed', before: '2', after: '3' },
        { path: 'steps.new-block.output', kind: 'added', after: '"x"' },
      ],
      more: 0,
    });
  });

  it('lists the result changes first, then the blocks, a block one side never ran as added or removed whole', () => {
    const diff = comparePair(completed({ a: 1 }, { route: 'x', gone: { n: 1 } }), failed('CODE_BLOCK_FAILED', { route: 'y' }));
    expect(diff).toEqual({ outcome: 'failed', changes: [{ path: 'steps.route.output', kind: 'changed', before: '"x"', after: '"y"' }, { path: 'steps.gone.output', kind: 'removed', before: '{"n":1}' }], more: 0 });
    expect(comparePair(completed({ a: 1 }, { b: 1 }), completed({ a: 2 }, { b: 2 })).changes.map((c) => c.path)).toEqual(['a', 'steps.b.output']);
    // The last block's output is the result: its changes are the result's, not listed twice.
    expect(comparePair(completed({ a: 1 }, { first: 'x', last: { a: 1 } }), completed({ a: 2 }, { first: 'x', last: { a: 2 } })).changes.map((c) => c.path)).toEqual(['a']);
  });
});

describe('answering a replay\'s tool calls from the recorded ones', () => {
  const rounds = [
    { toolCalls: [{ id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}' }, { id: 'c2', name: 'weather', arguments: '{"city":"Rome"}' }], toolResults: [{ toolCallId: 'c2', name: 'weather', content: 'hot' }, { toolCallId: 'c1', name: 'weather', content: 'cold' }] },
    { toolCalls: [{ id: 'c3', name: 'time', arguments: '{}' }], toolResults: [{ toolCallId: 'c3', name: 'time', content: 'noon' }] },
  ];

  it('joins each pause\'s calls with the results of the resume that answered it, in call order', () => {
    expect(recordedCalls(rounds)).toEqual([
      { name: 'weather', arguments: '{"city":"Oslo"}', content: 'cold' },
      { name: 'weather', arguments: '{"city":"Rome"}', content: 'hot' },
      { name: 'time', arguments: '{}', content: 'noon' },
    ]);
    expect(recordedCalls([{ ...rounds[0]!, toolResults: null }])).toBeNull();
  });

  it('prefers the same tool with the same arguments, then the next unused call of the tool, then its last one again', () => {
    const recorded = recordedCalls(rounds)!;
    const used = new Set<number>();
    expect(answerFromRecorded(recorded, used, [{ id: 'n1', name: 'weather', arguments: '{"city":"Rome"}' }]).answers).toEqual([{ toolCallId: 'n1', content: 'hot' }]);
    expect(answerFromRecorded(recorded, used, [{ id: 'n2', name: 'weather', arguments: '{"city":"Paris"}' }]).answers).toEqual([{ toolCallId: 'n2', content: 'cold' }]);
    expect(answerFromRecorded(recorded, used, [{ id: 'n3', name: 'weather', arguments: '{}' }]).answers).toEqual([{ toolCallId: 'n3', content: 'hot' }]);
  });

  it('cannot answer a tool the original never called', () => {
    expect(answerFromRecorded(recordedCalls(rounds)!, new Set(), [{ id: 'n', name: 'search', arguments: '{}' }])).toEqual({ answers: [], unanswered: ['search'] });
  });
});

describe('a backtest (decider)', () => {
  const spec = deciderSpec(backtest);
  const started: BacktestEvent = {
    type: 'BacktestStarted',
    data: { backtestId: 'b', flowId: 'f', organizationId: 'o', projectId: 'p', target: { kind: 'draft', steps: [] }, selection: { kind: 'last', count: 2 }, onlyCompleted: false, judge: null, runs: [{ executionId: 'r1', backtestExecutionId: 'x1' }, { executionId: 'r2', backtestExecutionId: 'x2' }], repeatOf: null, runner: null },
  };
  const side = { status: 'completed' as const, durationMs: 1, tokens: 0, error: null };
  const compared = (executionId: string, backtestExecutionId: string): BacktestEvent => ({
    type: 'BacktestRunCompared',
    data: { backtestId: 'b', executionId, backtestExecutionId, outcome: 'same', changes: [], more: 0, original: side, candidate: side, judge: null, judgeWords: null },
  });

  it('compares each run it chose once; a run it did not choose is refused', () => {
    const first = compared('r1', 'x1');
    spec.given([started]).when({ type: 'Compare', data: first.data as never }).then([first]);
    spec.given([started, first]).when({ type: 'Compare', data: first.data as never }).then([]);
    spec.given([started]).when({ type: 'Compare', data: compared('r3', 'x3').data as never }).thenRefuses('CONFLICT');
    spec.given([started]).when({ type: 'Compare', data: compared('r1', 'x2').data as never }).thenRefuses('CONFLICT');
  });

  it('skips a run erased before its comparison, refuses a comparison after that, and finishes with it counted as erased', () => {
    const skipped: BacktestEvent = { type: 'BacktestRunSkipped', data: { backtestId: 'b', executionId: 'r2', backtestExecutionId: 'x2', reason: 'original_erased', erasedAt: '2026-12-02T00:00:00.000Z' } };
    spec.given([started, compared('r1', 'x1')]).when({ type: 'Skip', data: skipped.data as never }).then([skipped]);
    spec.given([started, skipped]).when({ type: 'Compare', data: compared('r2', 'x2').data as never }).thenRefuses('CONFLICT');
    spec.given([started, skipped]).when({ type: 'Skip', data: skipped.data as never }).then([]);
    // Compared before the erasure: the comparison stands (its excerpts are cleared), no skip follows.
    spec.given([started, compared('r2', 'x2')]).when({ type: 'Skip', data: skipped.data as never }).then([]);
    spec.given([started]).when({ type: 'Skip', data: { ...skipped.data, backtestExecutionId: 'x1' } as never }).thenRefuses('CONFLICT');
    spec.given([started, compared('r1', 'x1'), skipped]).when({ type: 'Finish', status: 'finished' }).then((events) => {
      expect(events).toEqual([{ type: 'BacktestFinished', data: { backtestId: 'b', status: 'finished', summary: { total: 2, same: 1, different: 0, failed: 0, notRun: 0, erased: 1 }, runs: [{ executionId: 'r1', backtestExecutionId: 'x1', outcome: 'same' }, { executionId: 'r2', backtestExecutionId: 'x2', outcome: 'erased' }] } }]);
    });
  });

  it('finishes once every run is compared, with the summary; interrupted before that, the rest counted as not run', () => {
    spec.given([started, compared('r1', 'x1')]).when({ type: 'Finish', status: 'finished' }).thenRefuses('CONFLICT');
    spec.given([started, compared('r1', 'x1'), compared('r2', 'x2')]).when({ type: 'Finish', status: 'finished' }).then((events) => {
      expect(events).toEqual([{ type: 'BacktestFinished', data: { backtestId: 'b', status: 'finished', summary: { total: 2, same: 2, different: 0, failed: 0, notRun: 0, erased: 0 }, runs: [{ executionId: 'r1', backtestExecutionId: 'x1', outcome: 'same' }, { executionId: 'r2', backtestExecutionId: 'x2', outcome: 'same' }] } }]);
    });
    spec.given([started, compared('r1', 'x1')]).when({ type: 'Finish', status: 'interrupted' }).then((events) => {
      expect(events[0]).toMatchObject({ data: { status: 'interrupted', summary: { same: 1, notRun: 1 } } });
    });
    const finished: BacktestEvent = { type: 'BacktestFinished', data: { backtestId: 'b', status: 'interrupted', summary: { total: 2, same: 0, different: 0, failed: 0, notRun: 2, erased: 0 }, runs: [] } };
    spec.given([started, finished]).when({ type: 'Finish', status: 'interrupted' }).thenRefuses('CONFLICT');
    spec.given([]).when({ type: 'Finish', status: 'interrupted' }).thenRefuses('BACKTEST_NOT_FOUND');
  });
});
