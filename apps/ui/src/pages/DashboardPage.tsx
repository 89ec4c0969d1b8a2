import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { Link, useSearchParams } from 'react-router';
import { apiUrl, call } from '../api/client';
import type { ExecutionStats } from '../api/views';
import { ProblemView } from '../components/ProblemView';
import { formatMs, formatRate, PERIODS, periodById } from '../lib/periods';
import { useDebounced } from '../lib/use-debounced';

const StatsChart = lazy(() => import('../components/StatsChart'));

/** How often the figures are read again while the page is open. */
const REFRESH_MS = 10_000;

export function DashboardPage() {
  const [params, setParams] = useSearchParams();
  const period = periodById(params.get('period'));
  const namespace = params.get('namespace') ?? '';
  const settledNamespace = useDebounced(namespace, 250);
  const stats = useQuery({
    queryKey: ['stats', period.id, settledNamespace],
    queryFn: () => {
      const to = new Date();
      const from = new Date(to.getTime() - period.ms);
      return call<ExecutionStats>(
        'GET',
        apiUrl(
          '/api/v1/{tenant}/executions/stats',
          {},
          { from: from.toISOString(), to: to.toISOString(), namespace: settledNamespace },
        ),
      );
    },
    refetchInterval: REFRESH_MS,
  });
  const set = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next, { replace: true });
  };
  const data = stats.data;

  return (
    <section>
      <div className="page-head">
        <h1>Dashboard</h1>
      </div>
      <div className="filters">
        <label>
          Period
          <select value={period.id} onChange={(event) => set('period', event.target.value)}>
            {PERIODS.map((option) => (
              <option key={option.id} value={option.id}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Namespace
          <input value={namespace} placeholder="every namespace" onChange={(event) => set('namespace', event.target.value)} />
        </label>
      </div>
      <ProblemView error={stats.error} />
      {data && data.total === 0 && (
        <p className="empty">
          No executions in this period. Run a flow from its page (Flows, then a flow, then Execute), or choose a longer period.
        </p>
      )}
      {data && data.total > 0 && (
        <>
          <div className="tiles" aria-label="Figures of the period">
            <Tile label="Executions" value={String(data.total)} />
            <Tile
              label="Success rate"
              value={formatRate(data.successRate)}
              detail={`${data.succeeded} succeeded of ${data.ended} ended`}
            />
            <Tile label="Failed" value={String(data.failed)} />
            <Tile label="Duration p50" value={data.durations ? formatMs(data.durations.p50Ms) : '—'} />
            <Tile label="Duration p95" value={data.durations ? formatMs(data.durations.p95Ms) : '—'} />
          </div>
          <h2>Executions per state</h2>
          <div className="card">
            <Suspense fallback={<p className="hint">Loading the chart…</p>}>
              <StatsChart stats={data} />
            </Suspense>
          </div>
          <div className="two-columns">
            <div>
              <h2>Slowest flows</h2>
              {data.slowestFlows.length === 0 ? (
                <p className="empty">No execution has ended in this period yet.</p>
              ) : (
                <table aria-label="Slowest flows">
                  <thead>
                    <tr>
                      <th>Flow</th>
                      <th>Ended</th>
                      <th>p50</th>
                      <th>p95</th>
                      <th>Longest</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.slowestFlows.map((flow) => (
                      <tr key={`${flow.namespace}/${flow.flowId}`}>
                        <td>
                          <FlowLink namespace={flow.namespace} flowId={flow.flowId} />
                        </td>
                        <td>{flow.executions}</td>
                        <td>{formatMs(flow.p50Ms)}</td>
                        <td>{formatMs(flow.p95Ms)}</td>
                        <td>{formatMs(flow.maxMs)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </div>
            <div>
              <h2>Failing flows</h2>
              {data.failingFlows.length === 0 ? (
                <p className="empty ok">No flow failed in this period.</p>
              ) : (
                <table aria-label="Failing flows">
                  <thead>
                    <tr>
                      <th>Flow</th>
                      <th>Failed</th>
                      <th>Last failure</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.failingFlows.map((flow) => (
                      <tr key={`${flow.namespace}/${flow.flowId}`}>
                        <td>
                          <FlowLink namespace={flow.namespace} flowId={flow.flowId} />
                        </td>
                        <td>
                          <Link
                            to={`/executions?${new URLSearchParams({ namespace: flow.namespace, flowId: flow.flowId, state: 'FAILED' })}`}
                          >
                            {flow.failed} of {flow.executions}
                          </Link>
                        </td>
                        <td>{new Date(flow.lastFailedAt).toLocaleString()}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </div>
          </div>
        </>
      )}
    </section>
  );
}

function Tile({ label, value, detail }: { label: string; value: string; detail?: string }) {
  return (
    <div className="card tile">
      <div className="tile-label">{label}</div>
      <div className="tile-value">{value}</div>
      {detail && <div className="hint">{detail}</div>}
    </div>
  );
}

function FlowLink({ namespace, flowId }: { namespace: string; flowId: string }) {
  return (
    <Link to={`/flows/${encodeURIComponent(namespace)}/${encodeURIComponent(flowId)}`}>
      {namespace}.{flowId}
    </Link>
  );
}
