import type { Execution } from '../api/views';
import { isEnded } from '../lib/states';
import { useNow } from '../lib/use-follow';
import { endOf, formatDuration } from '../lib/time';

/**
 * One row per task run on the execution's time axis: the wait for a worker (with
 * the dispatch reason) in a light segment, then each attempt coloured by its state.
 */
export function Gantt({ execution }: { execution: Execution }) {
  const now = useNow(!execution.ended);
  const taskRuns = execution.taskRunList ?? [];
  const start = Date.parse(execution.state.startDate ?? execution.createdAt);
  const end = execution.state.endDate ? Date.parse(execution.state.endDate) : now;
  const span = Math.max(end - start, 1);
  const at = (time: number) => `${(Math.min(Math.max(time - start, 0), span) / span) * 100}%`;
  const width = (from: number, to: number) => `${(Math.max(Math.min(to, end) - Math.max(from, start), 0) / span) * 100}%`;

  if (taskRuns.length === 0) return <p className="empty">The timeline fills in as tasks start.</p>;
  return (
    <div className="gantt" role="table" aria-label="Timeline of task runs">
      {taskRuns.map((taskRun) => {
        const created = Date.parse(taskRun.state.histories[0]?.date ?? taskRun.state.startDate ?? execution.createdAt);
        const firstAttempt = taskRun.attempts[0]?.state.startDate;
        const dispatched = firstAttempt ? Date.parse(firstAttempt) : isEnded(taskRun.state.current) ? created : now;
        const waitTitle = `waiting for a worker${taskRun.dispatchReason ? `: ${taskRun.dispatchReason}` : ''} (${formatDuration(new Date(created).toISOString(), new Date(dispatched).toISOString())})`;
        return (
          <div className="gantt-row" role="row" key={taskRun.id}>
            <span className="gantt-label" role="rowheader">
              {taskRun.taskId}
              {taskRun.value !== null && ` [${taskRun.value}]`}
            </span>
            <span className="gantt-track" role="cell">
              {dispatched > created && (
                <span
                  className="gantt-bar waiting"
                  style={{ left: at(created), width: width(created, dispatched) }}
                  title={waitTitle}
                />
              )}
              {taskRun.attempts.map((attempt) => {
                const from = attempt.state.startDate ? Date.parse(attempt.state.startDate) : dispatched;
                const to = attempt.state.endDate ? Date.parse(attempt.state.endDate) : now;
                return (
                  <span
                    key={attempt.attempt}
                    className={`gantt-bar state-${attempt.state.current.toLowerCase()}`}
                    style={{ left: at(from), width: `max(2px, ${width(from, to)})` }}
                    title={`attempt ${attempt.attempt}: ${attempt.state.current}, ${formatDuration(attempt.state.startDate, attempt.state.endDate)} on ${attempt.workerId ?? 'no worker'} (${attempt.workerQueueId ?? 'no queue'})`}
                  />
                );
              })}
            </span>
            <span className="gantt-duration">
              {formatDuration(taskRun.state.startDate, endOf(taskRun.state, isEnded(taskRun.state.current)))}
            </span>
          </div>
        );
      })}
    </div>
  );
}
