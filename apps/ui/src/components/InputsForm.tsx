import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useNavigate } from 'react-router';
import { ApiError, apiUrl, call } from '../api/client';
import type { Execution, Flow, FlowInput } from '../api/views';
import { type FieldValues, fieldErrors, initialValues, inputsBody } from '../lib/inputs';
import { ProblemView } from './ProblemView';

const PLACEHOLDERS: Record<string, string> = {
  DATETIME: '2026-12-01T10:00:00Z',
  DURATION: 'PT5M',
  JSON: '{"key": "value"}',
  ARRAY: '["a", "b"]',
};

/** The run form, one field per declared input of the flow's saved revision. */
export function InputsForm({ flow }: { flow: Flow }) {
  const navigate = useNavigate();
  const inputs = flow.inputs ?? [];
  const [values, setValues] = useState<FieldValues>(() => initialValues(inputs));
  const run = useMutation({
    mutationFn: () =>
      call<Execution>(
        'POST',
        apiUrl('/api/v1/{tenant}/executions/{namespace}/{flowId}', { namespace: flow.namespace, flowId: flow.id }),
        {
          json: { inputs: inputsBody(inputs, values) },
        },
      ),
    onSuccess: (execution) => void navigate(`/executions/${encodeURIComponent(execution.id)}`),
  });
  const errors = run.error instanceof ApiError ? fieldErrors(run.error.problem.errors ?? []) : {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    run.mutate();
  };

  return (
    <form onSubmit={submit} className="inputs-form" noValidate>
      {inputs.length === 0 && <p className="hint">This flow declares no inputs.</p>}
      {inputs.map((input) => (
        <InputField
          key={input.id}
          input={input}
          value={values[input.id] ?? ''}
          error={errors[input.id]}
          onChange={(value) => setValues((current) => ({ ...current, [input.id]: value }))}
        />
      ))}
      <button type="submit" disabled={run.isPending}>
        Execute
      </button>
      <ProblemView error={run.error} />
    </form>
  );
}

function InputField({
  input,
  value,
  error,
  onChange,
}: {
  input: FlowInput;
  value: string | boolean;
  error?: string;
  onChange: (value: string | boolean) => void;
}) {
  const id = `input-${input.id}`;
  const describedBy = error ? `${id}-error` : undefined;
  const common = { id, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy };
  let control;
  if (input.type === 'BOOLEAN') {
    control = <input {...common} type="checkbox" checked={value === true} onChange={(event) => onChange(event.target.checked)} />;
  } else if (input.type === 'SELECT') {
    control = (
      <select {...common} value={String(value)} onChange={(event) => onChange(event.target.value)}>
        <option value="">—</option>
        {(input.values ?? []).map((option) => (
          <option key={option}>{option}</option>
        ))}
      </select>
    );
  } else if (input.type === 'JSON' || input.type === 'ARRAY') {
    control = (
      <textarea
        {...common}
        rows={3}
        value={String(value)}
        placeholder={PLACEHOLDERS[input.type]}
        onChange={(event) => onChange(event.target.value)}
      />
    );
  } else {
    const type = input.type === 'INT' || input.type === 'FLOAT' ? 'number' : 'text';
    control = (
      <input
        {...common}
        type={type}
        step={input.type === 'FLOAT' ? 'any' : undefined}
        value={String(value)}
        placeholder={PLACEHOLDERS[input.type]}
        onChange={(event) => onChange(event.target.value)}
      />
    );
  }
  return (
    <div className={`field${error ? ' invalid' : ''}`}>
      <label htmlFor={id}>
        {input.id}
        {input.required && (
          <span className="required" title="required">
            {' '}
            *
          </span>
        )}
        <span className="type">{input.type}</span>
      </label>
      {input.description && <p className="hint">{input.description}</p>}
      {control}
      {error && (
        <p className="field-error" id={describedBy}>
          {error}
        </p>
      )}
    </div>
  );
}
