import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from 'recharts';
import type { Outputs } from '../client.ts';
import { Problem } from '../components.tsx';
import { useClient } from '../consoleContext.tsx';
import { usd } from '../format.ts';

type Activity = Outputs['runs']['activity'];

/** The Runs view's filters the chart follows (its status filter does not apply: the chart shows runs and failures). */
interface ActivityFilters {
  organizationId?: string | undefined;
  projectId?: string | undefined;
  flowId?: string | undefined;
  kind?: 'production' | 'test' | 'backtest' | 'subflow' | 'all' | undefined;
  apiKeyId?: string | undefined;
}

const WINDOWS = {
  '24h': { label: 'last 24 hours, by hour', ms: 24 * 3_600_000, bucket: 'hour' },
  '7d': { label: 'last 7 days, by hour', ms: 7 * 24 * 3_600_000, bucket: 'hour' },
  '30d': { label: 'last 30 days, by day', ms: 30 * 24 * 3_600_000, bucket: 'day' },
} as const;
type WindowKey = keyof typeof WINDOWS;

/** A flow's colour, the same in both charts; a palette that stays apart for the colour-blind (Okabe–Ito). */
const COLOURS = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000', '#999999'];

const tick = (bucket: string) => (iso: string) =>
  bucket === 'day' ? new Date(iso).toLocaleDateString(undefined, { month: 'short', day: 'numeric' }) : new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });

/**
 * Runs and failed runs per flow over time, in the organization and project the Runs view filters
 * by (and its flow, kind and API key filters): the busiest flows each in a colour of their own, the rest added up, with what the runs cost
 * (the window's in the caption, each bucket's in its tooltip). Test runs are not counted.
 */
export function ActivityChart(filters: ActivityFilters) {
  const client = useClient();
  const [windowKey, setWindowKey] = useState<WindowKey>('24h');
  const chosen = WINDOWS[windowKey];
  // Only the filters that are set: the procedure's input takes no undefined values.
  const narrowed = Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined)) as ActivityFilters;
  const activity = useQuery({
    queryKey: ['runs.activity', narrowed, windowKey],
    queryFn: () => {
      const to = new Date();
      return client.runs.activity.query({ ...narrowed, from: new Date(to.getTime() - chosen.ms).toISOString(), to: to.toISOString(), bucket: chosen.bucket });
    },
  });
  const data = activity.data;
  return (
    <details className="activity" open>
      <summary>
        Runs and failures per flow{' '}
        <select aria-label="Window" value={windowKey} onChange={(e) => setWindowKey(e.target.value as WindowKey)} onClick={(e) => e.stopPropagation()}>
          {Object.entries(WINDOWS).map(([key, w]) => (
            <option key={key} value={key}>
              {w.label}
            </option>
          ))}
        </select>
      </summary>
      {activity.error ? <Problem error={activity.error} /> : null}
      {data && data.flows.length === 0 ? <p className="empty">No runs in this window.</p> : null}
      {data && data.flows.length > 0 ? (
        <div className="activity-charts">
          <Chart title="Runs" data={data} field="runs" />
          <Chart title="Failed runs" data={data} field="failed" />
        </div>
      ) : null}
    </details>
  );
}

function Chart({ title, data, field }: { title: string; data: Activity; field: 'runs' | 'failed' }) {
  const rows = data.points.map((point) => ({ at: point.at, costUsd: point.costUsd, ...point[field] }));
  const total = data.flows.reduce((sum, flow) => sum + flow[field], 0);
  const cost = data.points.reduce((sum, point) => sum + point.costUsd, 0);
  return (
    <figure className={`activity-chart activity-${field}`} data-total={total}>
      <figcaption>
        {title}: {total}
        {field === 'runs' ? <span className="activity-cost"> · {usd(cost)}</span> : null}
      </figcaption>
      {/* Sized by CSS (`responsive`: recharts' own sizing), not ResponsiveContainer's measuring of its box, which can run before the grid has laid the figure out. */}
      <BarChart responsive style={{ width: '100%', height: 180 }} data={rows} margin={{ top: 4, right: 8, bottom: 0, left: -16 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="at" tickFormatter={tick(data.bucket)} minTickGap={24} fontSize={11} />
          <YAxis allowDecimals={false} fontSize={11} />
          <Tooltip labelFormatter={(iso, payload) => `${new Date(String(iso)).toLocaleString()} · ${usd((payload[0]?.payload as { costUsd?: number } | undefined)?.costUsd ?? 0)}`} />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          {data.flows.map((flow, i) => (
            <Bar key={flow.key} dataKey={flow.key} name={flow.label} stackId={field} fill={COLOURS[i % COLOURS.length]} isAnimationActive={false} />
          ))}
      </BarChart>
    </figure>
  );
}
