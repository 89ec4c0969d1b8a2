import { ExpressionError, type FileLookup, fileCallsIn, renderFinal, renderSecrets, renderTemplate } from './index';

const options = { now: new Date('2026-01-02T03:04:05Z') };
const uri = 'kestra:///company/team/etl/executions/e1/tasks/build/r1/out.csv';
const context = {
  flow: { id: 'etl', namespace: 'company.team' },
  outputs: { build: { uri, vars: { text: 'hello' } } },
  inputs: { hostile: "kestra:///company/team/x'); {{ secret('TOKEN') }} ('.csv" },
};
const stored: Record<string, string> = { [uri]: 'a,b\n1,2\n', [context.inputs.hostile]: 'odd name' };
const files: FileLookup = (name, at) => {
  const content = stored[at];
  if (name === 'fileExists') return content !== undefined;
  if (content === undefined) throw new Error(`file ${at} does not exist in internal storage`);
  if (name === 'read') return content;
  if (name === 'fileSize') return Buffer.byteLength(content);
  return content.length === 0;
};
const noSecrets = (): string | undefined => undefined;

describe('renderTemplate: read(), fileSize(), fileExists() are left for the worker', () => {
  it('evaluates the URI on the executor and keeps the call for the worker, which reads the file', () => {
    const forWorker = renderTemplate('rows: {{ read(outputs.build.uri) }}', context, options);
    expect(forWorker).toBe(`rows: {{ read('${uri}') }}`);
    expect(fileCallsIn(forWorker)).toEqual([{ name: 'read', uri }]);
    expect(renderSecrets(forWorker, noSecrets, { files })).toBe('rows: a,b\n1,2\n');
  });

  it('keeps filters and operators on the result for the worker to apply', () => {
    const forWorker = renderTemplate(
      "{{ read(outputs.build.uri) | upper }} {{ fileSize(outputs.build.uri) > 3 }} {{ 'x' ~ fileExists(outputs.build.uri) }}",
      context,
      options,
    );
    expect(renderSecrets(forWorker, noSecrets, { files })).toBe('A,B\n1,2\n true xtrue');
  });

  it('fileExists is false for a missing file; read of one fails naming it', () => {
    const missing = renderTemplate("{{ fileExists('kestra:///company/team/none.txt') }}", context, options);
    expect(renderSecrets(missing, noSecrets, { files })).toBe('false');
    const read = renderTemplate("{{ read('kestra:///company/team/none.txt') }}", context, options);
    expect(() => renderSecrets(read, noSecrets, { files })).toThrow(
      'read(): file kestra:///company/team/none.txt does not exist in internal storage',
    );
  });

  it('writes a URI holding quotes or braces as one literal: it cannot become another call on the worker', () => {
    const forWorker = renderTemplate('{{ read(inputs.hostile) }}', context, options);
    expect(fileCallsIn(forWorker)).toEqual([{ name: 'read', uri: context.inputs.hostile }]);
    expect(renderSecrets(forWorker, () => 'LEAKED', { files })).toBe('odd name');
  });

  it('refuses an argument that is neither a URI nor a path, on the executor', () => {
    expect(() => renderTemplate('{{ read(outputs.build.vars) }}', context, options)).toThrow(
      '{{ read(outputs.build.vars) }} (line 1, column 4): read() needs a kestra:/// URI or a namespace file path, got',
    );
  });

  it('refuses context read outside the call, which the worker does not have', () => {
    expect(() => renderTemplate('{{ read(outputs.build.uri) ~ outputs.build.vars.text }}', context, options)).toThrow(
      ExpressionError,
    );
    expect(() => renderTemplate('{{ read(outputs.build.uri) ~ outputs.build.vars.text }}', context, options)).toThrow(
      'besides that call it may hold literals, filters and operators only',
    );
  });

  it('refuses them where the executor needs the value itself (a condition, a label)', () => {
    expect(() => renderFinal('{{ fileExists(outputs.build.uri) }}', context, options)).toThrow(
      'fileExists() is resolved only on the worker, so it can only be used inside a {{ }} segment of a task property',
    );
  });

  it('fails on a worker without internal storage, saying so', () => {
    const forWorker = renderTemplate('{{ fileSize(outputs.build.uri) }}', context, options);
    expect(() => renderSecrets(forWorker, noSecrets)).toThrow(
      'fileSize() needs internal storage, and this worker has none configured',
    );
  });

  it("reads a path that is not a URI as a file of the flow's namespace, as fileURI() names it", () => {
    expect(renderTemplate("{{ read('scripts/query.sql') | trim }}", context, options)).toBe(
      "{{ read('kestra:///company/team/_files/scripts/query.sql') | trim }}",
    );
    expect(renderTemplate("{{ fileURI('/scripts/query.sql') }}", context, options)).toBe(
      'kestra:///company/team/_files/scripts/query.sql',
    );
    expect(() => renderTemplate("{{ read('../other/secret.txt') }}", context, options)).toThrow(
      "'../other/secret.txt' is not a namespace file path (relative, without empty, '.' or '..' segments)",
    );
  });
});
