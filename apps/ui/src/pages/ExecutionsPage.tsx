import { useQuery } from '@tanstack/react-query';
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
  const filters = {
    namespace: params.get('namespace') ?? '',
    flowId: params.get('flowId') ?? '',
    state: params.get('state') ?? '',
  };
  const settled = useDebounced(filters, 250);
  const executions = useQuery({
    queryKey: ['executions', settled],
    queryFn: () => call<Page<Execution>>('GET', apiUrl('/api/v1/{tenant}/executions/search', {}, { ...settled, size: 50 })),
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
