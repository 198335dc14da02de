import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Json, Problem, Section, StatusChip } from '../components.tsx';
import { useClient } from '../consoleContext.tsx';
import { when } from '../format.ts';

/** A flow's versions (production marked), the latest test result per test case, a diff, and promotion through the test gate. */
export function FlowVersions({ flowId }: { flowId: string }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const versions = useQuery({ queryKey: ['flows.versions', flowId], queryFn: () => client.flows.versions.query({ flowId }) });
  const tests = useQuery({ queryKey: ['tests.results', flowId], queryFn: () => client.tests.results.query({ flowId }) });
  const [diff, setDiff] = useState<{ from: number | 'draft'; to: number | 'draft' } | null>(null);
  const diffed = useQuery({ queryKey: ['flows.diff', flowId, diff], queryFn: () => client.flows.diff.query({ flowId, ...diff! }), enabled: diff !== null });
  const promote = useMutation({
    mutationFn: (input: { versionId: string; force?: { reason: string } }) => client.flows.promote.mutate({ flowId, ...input }),
    onSuccess: () => void queryClient.invalidateQueries(),
  });
  const list = versions.data ?? [];
  const latest = list.at(-1);
  return (
    <Section title="Versions">
      {versions.error ? <Problem error={versions.error} /> : null}
      {promote.error ? <Problem error={promote.error} /> : null}
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th>Version</th>
              <th>Published</th>
              <th>By</th>
              <th>Note</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {[...list].reverse().map((v) => (
              <tr key={v.versionId} className={v.production ? 'production' : undefined}>
                <td>
                  v{v.number} {v.production ? <StatusChip status="production" /> : null}
                </td>
                <td>{when(v.publishedAt)}</td>
                <td className="mono">{(v.publishedBy as { id?: string }).id ?? ''}</td>
                <td>{v.note ?? ''}</td>
                <td>
                  {v.number > 1 ? (
                    <button type="button" onClick={() => setDiff({ from: v.number - 1, to: v.number })}>
                      Diff v{v.number - 1}→v{v.number}
                    </button>
                  ) : null}
                  {!v.production ? (
                    <button type="button" onClick={() => promote.mutate({ versionId: v.versionId })} disabled={promote.isPending}>
                      Promote
                    </button>
                  ) : null}
                  {!v.production ? (
                    <button
                      type="button"
                      className="danger"
                      onClick={() => {
                        const reason = window.prompt('Promote without passing tests: why? (recorded)');
                        if (reason) promote.mutate({ versionId: v.versionId, force: { reason } });
                      }}
                    >
                      Force
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {latest ? (
        <button type="button" onClick={() => setDiff({ from: latest.number, to: 'draft' })}>
          Diff v{latest.number}→draft
        </button>
      ) : null}
      {diff && diffed.data ? (
        <div className="diff">
          <h3>
            {String(diff.from)} → {String(diff.to)}
          </h3>
          {diffed.data.added.length + diffed.data.removed.length + diffed.data.changed.length === 0 ? <p className="empty">No changes.</p> : null}
          {diffed.data.added.map((b) => (
            <p key={b.blockId} className="added">+ {b.name}</p>
          ))}
          {diffed.data.removed.map((b) => (
            <p key={b.blockId} className="removed">− {b.name}</p>
          ))}
          {diffed.data.changed.map((b) => (
            <div key={b.blockId}>
              <p className="changed">~ {b.name}</p>
              <Json value={b.fields} />
            </div>
          ))}
        </div>
      ) : null}
      <h3>Tests</h3>
      {tests.error ? <Problem error={tests.error} /> : null}
      {tests.data?.length === 0 ? <p className="empty">No test cases.</p> : null}
      <ul className="tests">
        {tests.data?.map((t) => (
          <li key={t.testCaseId}>
            {t.name}: {t.latest ? <StatusChip status={t.latest.passed ? 'passed' : 'failing'} detail={`on ${t.latest.versionId === null ? 'draft' : 'a version'}, ${when(t.latest.finishedAt)}`} /> : 'not run'}
          </li>
        ))}
      </ul>
    </Section>
  );
}
