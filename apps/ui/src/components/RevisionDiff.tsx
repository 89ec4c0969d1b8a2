import { useQuery } from '@tanstack/react-query';
import { diffLines } from 'diff';
import { useState } from 'react';
import { apiUrl, call } from '../api/client';
import type { Flow } from '../api/views';
import { ProblemView } from './ProblemView';

/** An older revision of the flow next to the current one, as a line diff. */
export function RevisionDiff({ flow }: { flow: Flow }) {
  const [revision, setRevision] = useState(flow.revision - 1);
  const older = useQuery({
    queryKey: ['flow', flow.namespace, flow.id, 'revision', revision],
    queryFn: () =>
      call<Flow>(
        'GET',
        apiUrl('/api/v1/{tenant}/flows/{namespace}/{id}', { namespace: flow.namespace, id: flow.id }, { revision }),
      ),
  });
  const parts = older.data ? diffLines(older.data.source, flow.source) : [];

  return (
    <div>
      <div className="filters">
        <label>
          Compare revision
          <select value={revision} onChange={(event) => setRevision(Number(event.target.value))}>
            {Array.from({ length: flow.revision - 1 }, (_, index) => flow.revision - 1 - index).map((number) => (
              <option key={number} value={number}>
                {number}
              </option>
            ))}
          </select>
        </label>
        <span className="hint">with the current revision {flow.revision}</span>
      </div>
      <ProblemView error={older.error} />
      {older.data && (
        <pre className="diff" aria-label={`Changes from revision ${revision} to ${flow.revision}`}>
          {parts.map((part, index) => (
            <span key={index} className={part.added ? 'diff-added' : part.removed ? 'diff-removed' : 'diff-same'}>
              {part.value
                .replace(/\n$/, '')
                .split('\n')
                .map((line) => `${part.added ? '+ ' : part.removed ? '- ' : '  '}${line}`)
                .join('\n')}
            </span>
          ))}
        </pre>
      )}
    </div>
  );
}
