import type { RunMode } from './executionEvents.ts';

/**
 * What a run was for: production traffic (a caller's /execute, /jobs or /step run), a test (a test
 * case, a suite or an author's trial), or a backtest's replay of a production run. Listings show
 * production by default; a backtest selects production runs only.
 */
export const runKinds = ['production', 'test', 'backtest'] as const;
export type RunKind = (typeof runKinds)[number];

export const productionModes = ['sync', 'async', 'step'] as const satisfies readonly RunMode[];

export const modesOfKind = (kind: RunKind): readonly RunMode[] => (kind === 'production' ? productionModes : [kind]);
