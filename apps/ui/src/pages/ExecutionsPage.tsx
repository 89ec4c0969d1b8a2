import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { Link, useSearchParams } from 'react-router';
import { apiUrl, call } from '../api/client';
import type { Execution, Page } from '../api/views';
import { ProblemView } from '../components/ProblemView';
import { StateBadge } from '../components/StateBadge';
import { formatDuration } from '../lib/time';
import { EXECUTION_STATES } from '../lib/states';
import { useDebounced } from '../lib/use-debounced';

/** How often the list is re-read while it shows an execution that has not ended. */
const LIVE_MS = 1500;

export function ExecutionsPage() {
  const [params, setParams] = useSearchParams();
  const text = params.toString();
  const filters = useMemo(() => {
    const current = new URLSearchParams(text);
    return {
      namespace: current.get('namespace') ?? '',
      flowId: current.get('flowId') ?? '',
      state: current.get('state') ?? '',
      labels: current.get('labels') ?? '',
      from: current.get('from') ?? '',
      to: current.get('to') ?? '',
    };
  }, [text]);
  const settled = useDebounced(filters, 250);
  const executions = useQuery({
    queryKey: ['executions', settled],
    queryFn: () => call<Page<Execution>>('GET', searchUrl(settled)),
    refetchInterval: (query) => (query.state.data?.results.some((execution) => !execution.ended) ? LIVE_MS : LIVE_MS * 4),
  });
  const set = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next, { replace: true });
  };

  return (
    <section>
      <div className="page-head">
        <h1>Executions</h1>
      </div>
      <div className="filters">
        <label>
          Namespace
          <input value={filters.namespace} onChange={(event) => set('namespace', event.target.value)} />
        </label>
        <label>
          Flow
          <input value={filters.flowId} onChange={(event) => set('flowId', event.target.value)} />
        </label>
        <label>
          State
          <select value={filters.state} onChange={(event) => set('state', event.target.value)}>
            <option value="">any</option>
            {EXECUTION_STATES.map((state) => (
              <option key={state}>{state}</option>
            ))}
          </select>
        </label>
        <label>
          Labels
          <input
            value={filters.labels}
            placeholder="team:data, env:prod"
            onChange={(event) => set('labels', event.target.value)}
          />
        </label>
        <label>
          Created from
          <input type="datetime-local" value={filters.from} onChange={(event) => set('from', event.target.value)} />
        </label>
        <label>
          Created before
          <input type="datetime-local" value={filters.to} onChange={(event) => set('to', event.target.value)} />
        </label>
      </div>
      <ProblemView error={executions.error} />
      {executions.data && executions.data.results.length === 0 && (
        <p className="empty">No executions match. Run a flow from its page (Flows, then a flow, then Execute).</p>
      )}
      {executions.data && executions.data.results.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>Id</th>
              <th>Flow</th>
              <th>Labels</th>
              <th>State</th>
              <th>Started</th>
              <th>Duration</th>
            </tr>
          </thead>
          <tbody>
            {executions.data.results.map((execution) => (
              <tr key={execution.id}>
                <td>
                  <Link to={`/executions/${encodeURIComponent(execution.id)}`}>
                    <code>{execution.id.slice(0, 8)}</code>
                  </Link>
                </td>
                <td>
                  {execution.namespace}.{execution.flowId}
                </td>
                <td>
                  {Object.entries(labelsOf(execution.labels)).map(([key, value]) => (
                    <span key={key} className="tag">
                      {key}:{value}
                    </span>
                  ))}
                </td>
                <td>
                  <StateBadge state={execution.state.current} />
                </td>
                <td>{new Date(execution.state.startDate ?? execution.createdAt).toLocaleString()}</td>
                <td>{formatDuration(execution.state.startDate, execution.state.endDate)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {executions.data && <p className="hint">{executions.data.total} execution(s)</p>}
    </section>
  );
}

interface Filters {
  readonly namespace: string;
  readonly flowId: string;
  readonly state: string;
  readonly labels: string;
  readonly from: string;
  readonly to: string;
}

/** The search URL of the filters: labels as repeated `key:value`, local date-times as instants. */
function searchUrl(filters: Filters): string {
  const url = apiUrl(
    '/api/v1/{tenant}/executions/search',
    {},
    {
      namespace: filters.namespace,
      flowId: filters.flowId,
      state: filters.state,
      from: instantOf(filters.from),
      to: instantOf(filters.to),
      size: 50,
    },
  );
  const labels = filters.labels
    .split(',')
    .map((label) => label.trim())
    .filter((label) => label !== '');
  if (labels.length === 0) return url;
  const search = new URLSearchParams();
  for (const label of labels) search.append('labels', label);
  return `${url}${url.includes('?') ? '&' : '?'}${search}`;
}

/** A `datetime-local` value (the browser's time zone) as an ISO-8601 instant; undefined when empty or incomplete. */
function instantOf(local: string): string | undefined {
  if (local === '') return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function labelsOf(labels: unknown): Record<string, string> {
  if (labels === null || typeof labels !== 'object' || Array.isArray(labels)) return {};
  return Object.fromEntries(Object.entries(labels).map(([key, value]) => [key, String(value)]));
}
