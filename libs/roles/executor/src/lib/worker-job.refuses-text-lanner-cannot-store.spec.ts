import type { RunnableTask } from '@lanner/model';
import { parsedFlow } from '../testing/parsed-flow';
import { renderTaskForWorker, UnstorableJob } from './worker-job';

const NOW = new Date('2026-12-01T01:00:00.000Z');

describe('worker jobs: a rendering Lanner cannot store fails the task run before it reaches any store', () => {
  it('refuses a property that renders to a NUL character and names the property', () => {
    const flow = parsedFlow(`
id: nul
namespace: company.team
tasks:
  - id: answer
    type: io.kestra.plugin.core.debug.Return
    format: "{{ 'AA==' | base64decode }}"
`);
    const render = () => renderTaskForWorker(flow.tasks[0] as RunnableTask, {}, NOW);
    expect(render).toThrow(UnstorableJob);
    expect(render).toThrow(
      "task 'answer' cannot be sent to a worker: once rendered, its property format holds a NUL character (U+0000), which Lanner cannot store",
    );
  });

  it('refuses a lone surrogate deep in a rendered list', () => {
    const flow = parsedFlow(`
id: surrogate
namespace: company.team
tasks:
  - id: shell
    type: io.kestra.plugin.scripts.shell.Commands
    commands: ["echo ok", "echo {{ inputs.bad }}"]
`);
    const render = () => renderTaskForWorker(flow.tasks[0] as RunnableTask, { inputs: { bad: 'x\uD800' } }, NOW);
    expect(render).toThrow('its property commands[1] holds a lone surrogate (U+D800, not Unicode)');
  });
});
