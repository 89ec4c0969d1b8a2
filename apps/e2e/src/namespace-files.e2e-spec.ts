import { onlyTaskRun, outputsOf, scenario, stateOf } from './harness/scenario';

// Namespace files: uploaded through PUT /namespaces/{namespace}/files, listed and
// downloaded there, and copied into the working directory of a script task with
// `namespaceFiles: { enabled: true }` on whichever worker runs it; read() and fileURI()
// reach them by path.
const NAMESPACE = 'e2e.files.namespace';

describe('namespace files', () => {
  const { lanner } = scenario();

  it('are uploaded through the API and reach a script task that enables them', async () => {
    const uploaded = await lanner.raw(
      'PUT',
      `/namespaces/${NAMESPACE}/files?path=${encodeURIComponent('scripts/greet.sh')}`,
      'echo "hello from $1"\n',
    );
    expect(uploaded.status).toBe(200);
    expect(await uploaded.json()).toEqual({
      path: 'scripts/greet.sh',
      size: 21,
      uri: 'kestra:///e2e/files/namespace/_files/scripts/greet.sh',
    });
    const listed = await lanner.request('GET', `/namespaces/${NAMESPACE}/files/directory`);
    expect(listed.body).toEqual([
      { path: 'scripts/greet.sh', size: 21, uri: 'kestra:///e2e/files/namespace/_files/scripts/greet.sh' },
    ]);

    await lanner.createFlow(`
id: use-namespace-files
namespace: ${NAMESPACE}
tasks:
  - id: greet
    type: io.kestra.plugin.scripts.shell.Commands
    namespaceFiles:
      enabled: true
      include: ["scripts/*.sh"]
    commands:
      - out=$(sh scripts/greet.sh lanner)
      - echo "::{\\"outputs\\":{\\"said\\":\\"$out\\"}}::"
  - id: source
    type: io.kestra.plugin.core.debug.Return
    format: "{{ read('scripts/greet.sh') | trim }} | {{ fileURI('scripts/greet.sh') }}"
`);
    const { id } = await lanner.execute(NAMESPACE, 'use-namespace-files');
    const ended = await lanner.waitUntilEnded(id, 60_000);
    expect(stateOf(ended)).toBe('SUCCESS');
    expect(outputsOf(onlyTaskRun(ended, 'greet'))).toEqual(expect.objectContaining({ vars: { said: 'hello from lanner' } }));
    // read() of a path that is not a URI reads the namespace file, as in Kestra.
    expect(outputsOf(onlyTaskRun(ended, 'source'))).toEqual({
      value: 'echo "hello from $1" | kestra:///e2e/files/namespace/_files/scripts/greet.sh',
    });
  });
});
