import { onlyTaskRun, reasonOf, scenario, stateOf, type Execution } from './harness/scenario';

// Text PostgreSQL cannot store (a NUL, an unpaired surrogate) used to fail the
// controller's batched running-job insert on every retry, holding every later
// job of its partition, of every tenant. Now it fails only its own task run,
// with a reason naming where the text was, and everything else keeps running.

const NUL_PROPERTY = `
id: nul-property
namespace: e2e.hostile-text
tasks:
  - id: answer
    type: io.kestra.plugin.core.debug.Return
    format: "{{ 'AA==' | base64decode }}"
`;

const NUL_OUTPUT = `
id: nul-output
namespace: e2e.hostile-text
tasks:
  - id: emit
    type: io.kestra.plugin.scripts.shell.Commands
    commands:
      - printf '::{"outputs":{"binary":"a\\\\u0000b"}}::\\n'
`;

const NUL_LOG = `
id: nul-log
namespace: e2e.hostile-text
tasks:
  - id: print
    type: io.kestra.plugin.scripts.shell.Commands
    commands:
      - printf 'before\\000after\\n'
`;

const ORDINARY = `
id: ordinary
namespace: e2e.hostile-text
inputs:
  - { id: n, type: INT }
tasks:
  - id: greet
    type: io.kestra.plugin.core.log.Log
    message: "run {{ inputs.n }}"
  - id: answer
    type: io.kestra.plugin.core.debug.Return
    format: "answer {{ inputs.n }}"
`;

interface LogLine {
  readonly message: string;
}

describe('hostile text: a NUL fails only its own task run, and every other execution completes', () => {
  const { lanner } = scenario();
  /** Every execution this spec started: none of them may end up parked as a dead letter. */
  const started: string[] = [];
  async function execute(flowId: string, inputs?: Record<string, unknown>): Promise<Execution> {
    const execution = await lanner.execute('e2e.hostile-text', flowId, inputs);
    started.push(execution.id);
    return execution;
  }

  beforeAll(async () => {
    for (const flow of [NUL_PROPERTY, NUL_OUTPUT, NUL_LOG, ORDINARY]) await lanner.createFlow(flow);
  });

  it('a property rendering to a NUL fails its task run naming the property, while 100 other executions end SUCCESS', async () => {
    const poison = await execute('nul-property');
    const others: Execution[] = [];
    for (let n = 0; n < 100; n += 1) others.push(await execute('ordinary', { n }));

    const failed = await lanner.waitUntilEnded(poison.id, 120_000);
    expect(stateOf(failed)).toBe('FAILED');
    const answer = onlyTaskRun(failed, 'answer');
    expect(stateOf(answer)).toBe('FAILED');
    expect(reasonOf(answer)).toContain('property format holds a NUL character (U+0000), which Lanner cannot store');

    // Waited for one after the other: by the time the first has ended most others have too.
    const ended: Execution[] = [];
    for (const execution of others) ended.push(await lanner.waitUntilEnded(execution.id, 240_000));
    expect(ended.map(stateOf).filter((state) => state !== 'SUCCESS')).toEqual([]);
    expect(ended).toHaveLength(100);
  }, 420_000);

  it('a worker output holding a NUL fails the attempt naming the output, and the execution ends', async () => {
    const created = await execute('nul-output');
    const ended = await lanner.waitUntilEnded(created.id, 60_000);
    expect(stateOf(ended)).toBe('FAILED');
    const emit = onlyTaskRun(ended, 'emit');
    expect(reasonOf(emit)).toMatch(/output vars\.binary holds a NUL character \(U\+0000\), which Lanner cannot store/);

    // The next execution of the same worker queue is not held behind it.
    const after = await execute('ordinary', { n: 1000 });
    expect(stateOf(await lanner.waitUntilEnded(after.id, 60_000))).toBe('SUCCESS');
  });

  it('a log line with a NUL is kept, readable, with U+FFFD in its place, and its task succeeds', async () => {
    const created = await execute('nul-log');
    const ended = await lanner.waitUntilEnded(created.id, 60_000);
    expect(stateOf(ended)).toBe('SUCCESS');
    let lines: readonly LogLine[] = [];
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const answer = await lanner.request<readonly LogLine[]>('GET', `/logs/${created.id}`);
      expect(answer.status).toBe(200);
      lines = answer.body;
      if (lines.some((line) => line.message.includes('after'))) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(lines.map((line) => line.message)).toContain('before\uFFFDafter');
  });

  it('parks none of its messages: each NUL was stopped where it entered, and the dead letters answer an instance admin', async () => {
    const answer = await lanner.instanceRequest<{ results: { executionId: string | null }[]; total: number }>(
      'GET',
      '/dead-letters?size=200',
    );
    expect(answer.status).toBe(200);
    expect(started.length).toBeGreaterThanOrEqual(103);
    expect(answer.body.results.filter((letter) => letter.executionId !== null && started.includes(letter.executionId))).toEqual(
      [],
    );
    const unknown = await lanner.instanceRequest('GET', '/dead-letters/00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    const notAnId = await lanner.instanceRequest('DELETE', '/dead-letters/not-an-id');
    expect(notAnId.status).toBe(404);
  });
});
