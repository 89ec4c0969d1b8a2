import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { apiUrl, call, type ProblemEntry } from '../api/client';
import type { Flow } from '../api/views';
import { InputsForm } from '../components/InputsForm';
import { ProblemView } from '../components/ProblemView';
import { RevisionDiff } from '../components/RevisionDiff';

const YamlEditor = lazy(() => import('../components/YamlEditor'));
const Topology = lazy(() => import('../components/Topology'));

const NEW_FLOW = `id: hello
namespace: company.team

inputs:
  - id: name
    type: STRING
    defaults: world

tasks:
  - id: greet
    type: io.kestra.plugin.core.log.Log
    message: "Hello, {{ inputs.name }}!"
`;

const validateSource = (source: string) =>
  call<ProblemEntry[]>('POST', apiUrl('/api/v1/{tenant}/flows/validate'), { yaml: source });

/** A flow: its YAML in the editor (new at /flows/new), saved as a new revision, and run with its inputs. */
export function FlowPage() {
  const { namespace, id } = useParams();
  const editing = namespace !== undefined && id !== undefined;
  const flow = useQuery({
    queryKey: ['flow', namespace, id],
    queryFn: () =>
      call<Flow>('GET', apiUrl('/api/v1/{tenant}/flows/{namespace}/{id}', { namespace: namespace ?? '', id: id ?? '' })),
    enabled: editing,
  });
  if (editing && flow.isPending) return <p>Loading the flow…</p>;
  if (editing && flow.error) return <ProblemView error={flow.error} />;
  // Keyed by flow and revision: the editor starts from the stored source of each.
  return <FlowEditor key={editing ? `${namespace}/${id}` : 'new'} flow={editing ? flow.data : undefined} />;
}

function FlowEditor({ flow }: { flow: Flow | undefined }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [source, setSource] = useState(flow?.source ?? NEW_FLOW);
  const [problems, setProblems] = useState<ProblemEntry[]>([]);
  const validate = useCallback(async (text: string) => {
    const entries = await validateSource(text);
    setProblems(entries);
    return entries;
  }, []);

  const save = useMutation({
    mutationFn: () =>
      flow
        ? call<Flow>('PUT', apiUrl('/api/v1/{tenant}/flows/{namespace}/{id}', { namespace: flow.namespace, id: flow.id }), {
            yaml: source,
          })
        : call<Flow>('POST', apiUrl('/api/v1/{tenant}/flows'), { yaml: source }),
    onSuccess: (saved) => {
      queryClient.setQueryData(['flow', saved.namespace, saved.id], saved);
      void queryClient.invalidateQueries({ queryKey: ['flows'] });
      if (!flow || saved.namespace !== flow.namespace || saved.id !== flow.id)
        void navigate(`/flows/${encodeURIComponent(saved.namespace)}/${encodeURIComponent(saved.id)}`);
    },
  });
  const changed = !flow || source !== flow.source;

  return (
    <section>
      <div className="page-head">
        <h1>{flow ? `${flow.namespace}.${flow.id}` : 'New flow'}</h1>
        {flow && <span className="hint">revision {flow.revision}</span>}
        <Link
          to={
            flow
              ? `/executions?namespace=${encodeURIComponent(flow.namespace)}&flowId=${encodeURIComponent(flow.id)}`
              : '/executions'
          }
        >
          Executions
        </Link>
      </div>
      <div className="flow-layout">
        <div>
          <Suspense fallback={<div className="editor loading">Loading the editor…</div>}>
            <YamlEditor initialValue={source} onChange={setSource} validate={validate} label="Flow YAML" />
          </Suspense>
          <div className="editor-status" aria-live="polite">
            {problems.length === 0 ? (
              <span className="ok">The flow is valid.</span>
            ) : (
              <ul className="problems" aria-label="Validation problems">
                {problems.map((entry, index) => (
                  <li key={index}>
                    {entry.line !== undefined && (
                      <span className="where">
                        line {entry.line}
                        {entry.column !== undefined && `:${entry.column}`}
                      </span>
                    )}{' '}
                    <code>{entry.path}</code>: {entry.message}
                  </li>
                ))}
              </ul>
            )}
          </div>
          <div className="actions">
            <button type="button" onClick={() => save.mutate()} disabled={save.isPending || !changed}>
              {flow ? 'Save' : 'Create'}
            </button>
            {save.isSuccess && !changed && <span className="ok">Saved revision {save.data.revision}.</span>}
          </div>
          <ProblemView error={save.error} />
          {flow && (
            <>
              <h2>Topology</h2>
              <Suspense fallback={<p className="hint">Loading the graph…</p>}>
                <Topology flow={flow} />
              </Suspense>
            </>
          )}
          {flow && flow.revision > 1 && (
            <details className="revisions">
              <summary>Revisions ({flow.revision})</summary>
              <RevisionDiff flow={flow} />
            </details>
          )}
        </div>
        {flow && (
          <aside className="card">
            <h2>Run</h2>
            <InputsForm flow={flow} />
          </aside>
        )}
      </div>
    </section>
  );
}
