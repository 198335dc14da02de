import type { RunMode } from './executionEvents.ts';

/**
 * What a run was for: production traffic (a caller's /execute, /jobs or /step run), a test (a test
 * case, a suite or an author's trial), a backtest's replay of a production run, or a child run a
 * flow block started (`subflow`: reached from its parent's trace, listed on its own when asked).
 * Listings show production by default; a backtest selects production runs only (a child run is
 * replayed with its parent's replay).
 */
export const runKinds = ['production', 'test', 'backtest', 'subflow'] as const;
export type RunKind = (typeof runKinds)[number];

export const productionModes = ['sync', 'async', 'step'] as const satisfies readonly RunMode[];

export const modesOfKind = (kind: RunKind): readonly RunMode[] => (kind === 'production' ? productionModes : [kind]);
