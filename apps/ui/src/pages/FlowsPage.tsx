import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { apiUrl, call } from '../api/client';
import type { Flow, Page } from '../api/views';
import { ProblemView } from '../components/ProblemView';
import { useDebounced } from '../lib/use-debounced';

export function FlowsPage() {
  const [params, setParams] = useSearchParams();
  const namespace = params.get('namespace') ?? '';
  const q = params.get('q') ?? '';
  const filters = useDebounced({ namespace, q }, 250);
  const flows = useQuery({
    queryKey: ['flows', filters],
    queryFn: () =>
      call<Page<Flow>>(
        'GET',
        apiUrl('/api/v1/{tenant}/flows/search', {}, { namespace: filters.namespace, q: filters.q, size: 100 }),
      ),
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
        <h1>Flows</h1>
        <Link className="button" to="/flows/new">
          New flow
        </Link>
      </div>
      <div className="filters">
        <label>
          Namespace
          <input value={namespace} onChange={(event) => set('namespace', event.target.value)} placeholder="e.g. company.team" />
        </label>
        <label>
          Search
          <input type="search" value={q} onChange={(event) => set('q', event.target.value)} placeholder="id or text" />
        </label>
      </div>
      <ProblemView error={flows.error} />
      {flows.data && flows.data.results.length === 0 && (
        <p className="empty">{namespace || q ? 'No flow matches these filters.' : 'No flows yet. Create one with "New flow".'}</p>
      )}
      {flows.data && flows.data.results.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>Namespace</th>
              <th>Id</th>
              <th>Revision</th>
              <th>Updated</th>
            </tr>
          </thead>
          <tbody>
            {flows.data.results.map((flow) => (
              <tr key={`${flow.namespace}/${flow.id}`}>
                <td>{flow.namespace}</td>
                <td>
                  <Link to={`/flows/${encodeURIComponent(flow.namespace)}/${encodeURIComponent(flow.id)}`}>{flow.id}</Link>
                </td>
                <td>{flow.revision}</td>
                <td>{new Date(flow.updated).toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {flows.data && <p className="hint">{flows.data.total} flow(s)</p>}
    </section>
  );
}
