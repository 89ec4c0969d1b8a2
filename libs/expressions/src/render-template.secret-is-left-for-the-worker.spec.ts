import { ExpressionError, evaluateCondition, renderSecrets, renderTag, renderTemplate, renderValue } from './index';

const options = { now: new Date('2026-01-02T03:04:05Z') };
const context = {
  inputs: { url: 'https://example.test/api', name: 'TOKEN', body: "{{ secret('ADMIN_PASSWORD') }}" },
};
const workerSecrets: Record<string, string> = { TOKEN: 'tok-123', ADMIN_PASSWORD: 'hunter2' };
const resolve = (name: string): string | undefined => workerSecrets[name];

describe('renderTemplate: secret() is left for the worker', () => {
  const template = "curl -H 'Authorization: {{ secret('TOKEN') }}' {{ inputs.url }}";

  it('keeps the secret segment verbatim and renders the rest', () => {
    expect(renderTemplate(template, context, options)).toBe(
      "curl -H 'Authorization: {{ secret('TOKEN') }}' https://example.test/api",
    );
  });

  it('lets the worker resolve the kept segment into the final text', () => {
    const forWorker = renderTemplate(template, context, options);
    expect(renderSecrets(forWorker, resolve)).toBe("curl -H 'Authorization: tok-123' https://example.test/api");
  });

  it('keeps filters in the secret segment for the worker to apply', () => {
    const forWorker = renderTemplate("{{ 'Bearer ' ~ (secret('TOKEN') | upper) }}", context, options);
    expect(forWorker).toBe("{{ 'Bearer ' ~ (secret('TOKEN') | upper) }}");
    expect(renderSecrets(forWorker, resolve)).toBe('Bearer TOK-123');
  });

  it('never turns a value that carries secret() into a secret on the worker', () => {
    const forWorker = renderTemplate('echo {{ inputs.body }}', context, options);
    expect(forWorker).not.toContain('hunter2');
    expect(renderSecrets(forWorker, resolve)).toBe("echo {{ secret('ADMIN_PASSWORD') }}");
  });

  it('fails on the worker for an unknown secret, naming it without any value', () => {
    const forWorker = renderTemplate("{{ secret('MISSING') }} and {{ secret('TOKEN') }}", context, options);
    expect(() => renderSecrets(forWorker, resolve)).toThrow(ExpressionError);
    expect(() => renderSecrets(forWorker, resolve)).toThrow(
      "{{ secret('MISSING') }} (line 1, column 4): the secret 'MISSING' is not defined on this worker",
    );
    let message = '';
    try {
      renderSecrets("{{ secret('TOKEN') | number }}", resolve);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("'number' expects a numeric string");
    expect(message).not.toContain('tok-123');
  });

  it('refuses, on the executor, a secret segment that needs the execution context', () => {
    expect(() => renderTemplate('{{ secret(inputs.name) }}', context, options)).toThrow(/cannot use 'inputs'/);
  });

  it('refuses secret() where the executor itself needs the value', () => {
    expect(() => evaluateCondition("{{ secret('TOKEN') == 'x' }}", context, options)).toThrow(/resolved only on the worker/);
    expect(() => renderTag("{{ secret('TOKEN') }}", context, options)).toThrow(/resolved only on the worker/);
    expect(() => renderTemplate("{% if secret('TOKEN') %}x{% endif %}", context, options)).toThrow(/resolved only on the worker/);
  });

  it('keeps secret segments inside rendered maps and lists', () => {
    const rendered = renderValue(
      { headers: { Authorization: "{{ secret('TOKEN') }}" }, args: ['{{ inputs.url }}'] },
      context,
      options,
    );
    expect(rendered).toEqual({ headers: { Authorization: "{{ secret('TOKEN') }}" }, args: ['https://example.test/api'] });
  });
});
