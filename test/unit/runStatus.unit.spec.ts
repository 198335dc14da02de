import { describe, expect, it } from 'vitest';
import { foldRunHistory } from '../../src/domain/execution/runHistory.ts';
import { jobStatusOf } from '../../src/domain/execution/runStatus.ts';
import { eventsOf, runStatusCases } from '../support/runStatusCases.ts';

const flow = { flowId: 'f', versionId: 'v', organizationId: 'o', projectId: 'p' };

describe('one run status, folded once from the run\'s events', () => {
  for (const c of runStatusCases) {
    it(`${c.name}: ${c.status}`, () => {
      const history = foldRunHistory(eventsOf(c, 'e', flow).map((event, i) => ({ event, occurredAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString() })));
      expect(history.status).toBe(c.status);
      // The poll of a job is a mapping of the same status; other runs have no job view.
      expect(history.job?.status ?? null).toBe(c.mode === 'async' ? jobStatusOf(c.status) : null);
    });
  }

  it('maps the run statuses onto the spec\'s job statuses', () => {
    expect(['queued', 'running', 'retrying', 'paused', 'completed', 'failed'].map((s) => jobStatusOf(s as never))).toEqual(['started', 'running', 'running', 'running', 'completed', 'failed']);
  });

  it('has no status before the run was requested', () => {
    expect(foldRunHistory([]).status).toBeNull();
  });
});
