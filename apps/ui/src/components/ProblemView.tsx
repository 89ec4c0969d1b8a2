import { ApiError } from '../api/client';

/** An error as the API described it (its problem detail), or a plain message for anything else. */
export function ProblemView({ error }: { error: unknown }) {
  if (!error) return null;
  const problem =
    error instanceof ApiError
      ? error.problem
      : { title: 'Something went wrong', detail: error instanceof Error ? error.message : String(error), errors: [] };
  return (
    <div className="problem" role="alert">
      <strong>{problem.title}</strong>
      {problem.detail && <p>{problem.detail}</p>}
      {problem.errors && problem.errors.length > 0 && (
        <ul>
          {problem.errors.map((entry, index) => (
            <li key={index}>
              <code>{entry.path}</code>: {entry.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
