import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { apiUrl, call, type ServerEvent } from '../api/client';
import type { Execution, Flow, LogLine, TaskRun } from '../api/views';
import { Gantt } from '../components/Gantt';
import { ProblemView } from '../components/ProblemView';
import { StateBadge } from '../components/StateBadge';
import { useFollow } from '../lib/use-follow';
import { formatDuration } from '../lib/time';

const Topology = lazy(() => import('../components/Topology'));

const LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'] as const;
/** How often an ended execution is read again after a restart, until the restart shows. */
const RESTART_POLL_MS = 500;

export function ExecutionPage() {
  const { id = '' } = useParams();
  const queryClient = useQueryClient();
  const key = useMemo(() => ['execution', id], [id]);
  // After a restart the execution has still ended until the executor takes the request:
  // it is read again until its history grows, then followed live as it runs again.
  const [restartedAt, setRestartedAt] = useState<number | null>(null);
  const execution = useQuery({
    queryKey: key,
    queryFn: () => call<Execution>('GET', apiUrl('/api/v1/{tenant}/executions/{id}', { id })),
    refetchInterval: (query) =>
      restartedAt !== null && (query.state.data?.state.histories.length ?? 0) <= restartedAt ? RESTART_POLL_MS : false,
  });
  const histories = execution.data?.state.histories.length ?? 0;
  useEffect(() => {
    if (restartedAt !== null && histories > restartedAt) setRestartedAt(null);
  }, [restartedAt, histories]);
  const ended = execution.data?.ended ?? false;
  /** Each restart is a new run of the logs stream (the old one ended with the execution). */
  const runs = execution.data?.state.histories.filter((change) => change.state === 'RESTARTED').length ?? 0;
  const live = useFollow(
    execution.data && !ended ? apiUrl('/api/v1/{tenant}/executions/{id}/follow', { id }) : undefined,
    useCallback(
      (event: ServerEvent) => {
        if (event.event === 'execution') queryClient.setQueryData(key, event.data as Execution);
        // The stream's last word: read the whole execution once more (outputs, task runs).
        if (event.event === 'end') void queryClient.invalidateQueries({ queryKey: key });
      },
      [queryClient, key],
    ),
  );

  const [resumeInputs, setResumeInputs] = useState('');
  const resumeBody = parseResumeInputs(resumeInputs);
  const action = useMutation({
    mutationFn: (what: 'kill' | 'resume' | 'restart') =>
      what === 'kill'
        ? call('DELETE', apiUrl('/api/v1/{tenant}/executions/{id}/kill', { id }))
        : what === 'resume'
          ? call('POST', apiUrl('/api/v1/{tenant}/executions/{id}/resume', { id }), {
              json: resumeBody.ok ? resumeBody.body : {},
            })
          : call('POST', apiUrl('/api/v1/{tenant}/executions/{id}/restart', { id })),
    onSuccess: (_answer, what) => {
      if (what === 'restart') setRestartedAt(execution.data?.state.histories.length ?? 0);
      void queryClient.invalidateQueries({ queryKey: key });
    },
  });

  // A replay is a new execution: its page opens once the API created it.
  const navigate = useNavigate();
  const replay = useMutation({
    mutationFn: (taskRunId: string) =>
      call<Execution>('POST', apiUrl('/api/v1/{tenant}/executions/{id}/replay', { id }, { taskRunId })),
    onSuccess: (created) => void navigate(`/executions/${encodeURIComponent(created.id)}`),
  });

  if (execution.isPending) return <p>Loading the execution…</p>;
  if (execution.error) return <ProblemView error={execution.error} />;
  const data = execution.data;
  const state = data.state.current;

  return (
    <section>
      <div className="page-head">
        <h1>
          Execution <code>{data.id.slice(0, 8)}</code>
        </h1>
        <StateBadge state={state} />
        <span className="hint">
          <Link to={`/flows/${encodeURIComponent(data.namespace)}/${encodeURIComponent(data.flowId)}`}>
            {data.namespace}.{data.flowId}
          </Link>{' '}
          rev. {data.flowRevision} · {formatDuration(data.state.startDate, data.state.endDate)} ·{' '}
          {ended ? 'ended' : live === 'live' ? 'live' : live}
          {data.replayOf && (
            <>
              {' '}
              · replay of{' '}
              <Link to={`/executions/${encodeURIComponent(data.replayOf.executionId)}`}>
                <code>{data.replayOf.executionId.slice(0, 8)}</code>
              </Link>
            </>
          )}
        </span>
        <div className="actions">
          {!ended && (
            <button
              type="button"
              className="danger"
              onClick={() => action.mutate('kill')}
              disabled={action.isPending || state === 'KILLING'}
            >
              Kill
            </button>
          )}
          {state === 'PAUSED' && (
            <button type="button" onClick={() => action.mutate('resume')} disabled={action.isPending || !resumeBody.ok}>
              Resume
            </button>
          )}
          {(state === 'FAILED' || state === 'KILLED') && (
            <button type="button" onClick={() => action.mutate('restart')} disabled={action.isPending}>
              Restart
            </button>
          )}
        </div>
      </div>
      {state === 'PAUSED' && (
        <div className={`field resume${resumeBody.ok ? '' : ' invalid'}`}>
          <label htmlFor="resume-inputs">Resume inputs (JSON object, optional)</label>
          <textarea
            id="resume-inputs"
            rows={2}
            value={resumeInputs}
            onChange={(event) => setResumeInputs(event.target.value)}
            placeholder='{"approved": true}'
          />
          {!resumeBody.ok && <p className="field-error">{resumeBody.message}</p>}
        </div>
      )}
      <ProblemView error={action.error} />
      <ProblemView error={replay.error} />
      <h2>Timeline</h2>
      <Gantt execution={data} />
      <Logs key={runs} executionId={data.id} />
      <h2>Task runs</h2>
      <table>
        <thead>
          <tr>
            <th>Task</th>
            <th>State</th>
            <th>Attempts (worker · queue)</th>
            <th>Outputs</th>
            {ended && <th>Replay</th>}
          </tr>
        </thead>
        <tbody>
          {(data.taskRunList ?? []).map((taskRun) => (
            <tr key={taskRun.id}>
              <td>
                {taskRun.taskId}
                {taskRun.value !== null && <span className="hint"> [{taskRun.value}]</span>}
                {carriedOver(data, taskRun) && <span className="hint"> · carried over</span>}
              </td>
              <td>
                <StateBadge state={taskRun.state.current} />
                {taskRun.error && <p className="field-error">{taskRun.error.message}</p>}
              </td>
              <td>
                {taskRun.attempts.length === 0 && <span className="hint">{taskRun.dispatchReason ?? 'not dispatched yet'}</span>}
                {taskRun.attempts.map((attempt) => (
                  <div key={attempt.attempt}>
                    #{attempt.attempt} <StateBadge state={attempt.state.current} /> <code>{attempt.workerId ?? '—'}</code> ·{' '}
                    <code>{attempt.workerQueueId ?? taskRun.workerQueueId ?? '—'}</code>
                  </div>
                ))}
              </td>
              <td>
                {Object.keys(taskRun.outputs).length > 0 ? (
                  <pre>{JSON.stringify(taskRun.outputs, null, 2)}</pre>
                ) : (
                  <span className="hint">none</span>
                )}
              </td>
              {ended && (
                <td>
                  <button
                    type="button"
                    className="secondary small"
                    title={`A new execution: the task runs before ${taskRun.taskId} are carried over, the flow runs again from it`}
                    onClick={() => replay.mutate(taskRun.id)}
                    disabled={replay.isPending}
                  >
                    Replay from here
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {(data.taskRunList ?? []).length === 0 && <p className="empty">No task has started yet.</p>}
      <ExecutionTopology execution={data} />
      <div className="two-columns">
        <div>
          <h2>Inputs</h2>
          <pre>{JSON.stringify(data.inputs, null, 2)}</pre>
        </div>
        <div>
          <h2>Outputs</h2>
          <pre>{JSON.stringify(data.outputs, null, 2)}</pre>
        </div>
      </div>
    </section>
  );
}

/** The topology of the revision the execution runs, each task coloured by the state of its latest task run. */
function ExecutionTopology({ execution }: { execution: Execution }) {
  const flow = useQuery({
    queryKey: ['flow', execution.namespace, execution.flowId, 'revision', execution.flowRevision],
    queryFn: () =>
      call<Flow>(
        'GET',
        apiUrl(
          '/api/v1/{tenant}/flows/{namespace}/{id}',
          { namespace: execution.namespace, id: execution.flowId },
          { revision: execution.flowRevision },
        ),
      ),
    staleTime: Infinity,
  });
  const states = useMemo(
    () => Object.fromEntries((execution.taskRunList ?? []).map((taskRun) => [taskRun.taskId, taskRun.state.current])),
    [execution.taskRunList],
  );
  return (
    <>
      <h2>Topology</h2>
      <ProblemView error={flow.error} />
      {flow.data && (
        <Suspense fallback={<p className="hint">Loading the graph…</p>}>
          <Topology flow={flow.data} states={states} />
        </Suspense>
      )}
    </>
  );
}

/** A task run of a replay that ran in the execution replayed (it was created before the replay was). */
function carriedOver(execution: Execution, taskRun: TaskRun): boolean {
  const created = taskRun.state.histories[0]?.date;
  return !!execution.replayOf && created !== undefined && Date.parse(created) < Date.parse(execution.createdAt);
}

/** The resume body from the text box: no inputs when empty, else a JSON object. */
function parseResumeInputs(
  text: string,
): { ok: true; body: { inputs?: Record<string, unknown> } } | { ok: false; message: string } {
  if (text.trim() === '') return { ok: true, body: {} };
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      return { ok: false, message: 'must be a JSON object, e.g. {"approved": true}' };
    return { ok: true, body: { inputs: parsed as Record<string, unknown> } };
  } catch {
    return { ok: false, message: 'is not valid JSON' };
  }
}

function Logs({ executionId }: { executionId: string }) {
  const [minLevel, setMinLevel] = useState<string>('INFO');
  const [search, setSearch] = useState('');
  const [lines, setLines] = useState<LogLine[]>([]);
  const url = apiUrl('/api/v1/{tenant}/logs/{executionId}/follow', { executionId }, { minLevel });
  const [streamUrl, setStreamUrl] = useState(url);
  if (streamUrl !== url) {
    // A new level: a new stream, which sends the stored lines again from the first.
    setStreamUrl(url);
    setLines([]);
  }
  const state = useFollow(
    streamUrl,
    useCallback((event: ServerEvent) => {
      if (event.event === 'log') setLines((current) => [...current, event.data as LogLine]);
    }, []),
  );
  const shown = search ? lines.filter((line) => line.message.toLowerCase().includes(search.toLowerCase())) : lines;

  return (
    <div>
      <div className="page-head">
        <h2>Logs</h2>
        <span className="hint">{state === 'live' ? 'following live' : state}</span>
      </div>
      <div className="filters">
        <label>
          Level
          <select value={minLevel} onChange={(event) => setMinLevel(event.target.value)}>
            {LEVELS.map((level) => (
              <option key={level}>{level}</option>
            ))}
          </select>
        </label>
        <label>
          Search logs
          <input type="search" value={search} onChange={(event) => setSearch(event.target.value)} />
        </label>
      </div>
      <ol className="logs" aria-label="Log lines">
        {shown.map((line, index) => (
          <li key={index} className={`log log-${line.level.toLowerCase()}`}>
            <time>{new Date(line.timestamp).toLocaleTimeString()}</time> <span className="level">{line.level}</span>{' '}
            <span className="message">{line.message}</span>
          </li>
        ))}
      </ol>
      {shown.length === 0 && <p className="empty">{lines.length === 0 ? 'No log lines yet.' : 'No line matches the search.'}</p>}
    </div>
  );
}
