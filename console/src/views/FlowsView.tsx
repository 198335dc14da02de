import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Problem, Section } from '../components.tsx';
import { useClient } from '../consoleContext.tsx';
import { usd } from '../format.ts';
import { FlowBacktests } from './FlowBacktests.tsx';
import { FlowSchedules } from './FlowSchedules.tsx';
import { FlowVersions } from './FlowVersions.tsx';
import { RetentionPanel } from './RetentionPanel.tsx';
import { SecretsPanel } from './SecretsPanel.tsx';

/** Pick an organization's project, then a flow: its versions, production marker, test results, diffs, promotion, backtests, schedules; the project's retention periods and its organization's secrets. */
export function FlowsView() {
  const client = useClient();
  const organizations = useQuery({ queryKey: ['organizations.list'], queryFn: () => client.organizations.list.query() });
  const [projectId, setProjectId] = useState<string>('');
  const [flowId, setFlowId] = useState<string>('');
  const flows = useQuery({ queryKey: ['flows.list', projectId], queryFn: () => client.flows.list.query({ projectId }), enabled: projectId !== '' });
  const organizationId = organizations.data?.find((o) => o.projects.some((p) => p.projectId === projectId))?.organizationId;
  const costs = useQuery({ queryKey: ['flows.costs', projectId], queryFn: () => client.flows.costs.query({ projectId }), enabled: projectId !== '' });
  return (
    <>
      <Section title="Flows">
        {organizations.error ? <Problem error={organizations.error} /> : null}
        <form className="filters" onSubmit={(e) => e.preventDefault()}>
          <label>
            Project
            <select
              value={projectId}
              onChange={(e) => {
                setProjectId(e.target.value);
                setFlowId('');
              }}
            >
              <option value="">choose…</option>
              {organizations.data?.map((o) => (
                <optgroup key={o.organizationId} label={o.slug}>
                  {o.projects.map((p) => (
                    <option key={p.projectId} value={p.projectId}>
                      {o.slug}/{p.slug}
                    </option>
                  ))}
                </optgroup>
              ))}
            </select>
          </label>
        </form>
        {flows.error ? <Problem error={flows.error} /> : null}
        {flows.data ? (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Flow</th>
                  <th>Name</th>
                  <th>Production</th>
                  <th>Draft blocks</th>
                  <th>Cost, 30 days</th>
                </tr>
              </thead>
              <tbody>
                {flows.data.map((f) => (
                  <tr key={f.flowId} className={f.flowId === flowId ? 'selected' : undefined}>
                    <td>
                      <button type="button" className="link" onClick={() => setFlowId(f.flowId)}>
                        {f.slug}
                      </button>
                    </td>
                    <td>{f.name}</td>
                    <td>{f.productionVersion ? `v${f.productionVersion}` : 'none'}</td>
                    <td>{f.draftBlockCount}</td>
                    <td className="flow-cost">{costs.data?.[f.flowId] !== undefined ? usd(costs.data[f.flowId]) : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : projectId ? <p>Loading…</p> : null}
      </Section>
      {organizationId ? <RetentionPanel organizationId={organizationId} projectId={projectId} /> : null}
      {organizationId ? <SecretsPanel organizationId={organizationId} /> : null}
      {flowId ? <FlowVersions flowId={flowId} /> : null}
      {flowId ? <FlowBacktests flowId={flowId} /> : null}
      {flowId ? <FlowSchedules flowId={flowId} /> : null}
    </>
  );
}
