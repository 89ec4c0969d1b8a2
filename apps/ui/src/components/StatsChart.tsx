import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ExecutionStats } from '../api/views';
import { bucketLabel } from '../lib/periods';

// Executions per state over time, stacked per bucket (recharts; loaded with the dashboard only).

/** The states drawn, in stacking order, with the theme colour of each. */
const SERIES: readonly { state: string; colour: string }[] = [
  { state: 'SUCCESS', colour: 'var(--ok)' },
  { state: 'WARNING', colour: 'var(--warn)' },
  { state: 'FAILED', colour: 'var(--danger)' },
  { state: 'KILLED', colour: 'var(--muted)' },
  { state: 'RUNNING', colour: 'var(--accent)' },
  { state: 'CREATED', colour: 'var(--waiting)' },
  { state: 'QUEUED', colour: 'var(--waiting)' },
  { state: 'PAUSED', colour: 'var(--warn)' },
];

export default function StatsChart({ stats }: { stats: ExecutionStats }) {
  const rows = stats.timeline.map((bucket) => ({
    label: bucketLabel(bucket.start, stats.bucketSeconds),
    ...bucket.counts,
  }));
  const present = SERIES.filter((series) =>
    stats.timeline.some((bucket) => (bucket.counts as Record<string, number | undefined>)[series.state]),
  );
  return (
    <div className="chart" role="img" aria-label="Executions per state over time">
      <ResponsiveContainer width="100%" height={260}>
        <BarChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--line)" vertical={false} />
          <XAxis dataKey="label" stroke="var(--muted)" fontSize={12} minTickGap={24} />
          <YAxis allowDecimals={false} stroke="var(--muted)" fontSize={12} width={40} />
          <Tooltip contentStyle={{ background: 'var(--panel)', border: '1px solid var(--line)' }} />
          <Legend />
          {present.map((series) => (
            <Bar key={series.state} dataKey={series.state} stackId="states" fill={series.colour} isAnimationActive={false} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
