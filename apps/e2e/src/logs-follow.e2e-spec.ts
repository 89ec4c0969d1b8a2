import { eventually, scenario, stateOf } from './harness/scenario';

// The log line comes after a pause in a shell task, so the follower is connected
// before it is written: it must arrive live, not only from the stored history.
const FLOW = `
id: chatty
namespace: e2e.logs
inputs:
  - { id: word, type: STRING }
tasks:
  - id: warm-up
    type: io.kestra.plugin.scripts.shell.Commands
    commands:
      - sleep 2
  - id: say
    type: io.kestra.plugin.core.log.Log
    message: "the word is {{ inputs.word }}"
`;

describe('logs followed live over SSE', () => {
  const { lanner } = scenario();

  beforeAll(() => lanner.createFlow(FLOW));

  it("shows a Log task's message on /logs/{id}/follow while the execution runs, then in the stored logs", async () => {
    const word = `lanner-${process.pid}-${Date.now()}`;
    const { id } = await lanner.execute('e2e.logs', 'chatty', { word });

    const events = await lanner.followUntil(`/logs/${id}/follow`, (data) => data.includes(`the word is ${word}`));
    expect(events.some((data) => data.includes(`the word is ${word}`))).toBe(true);

    const ended = await lanner.waitUntilEnded(id);
    expect(stateOf(ended)).toBe('SUCCESS');
    // The indexer writes in batches: the stored line may trail the live one by a moment.
    let stored = await lanner.logs(id);
    await eventually(
      () => stored.text.includes(`the word is ${word}`),
      'the stored logs hold the line',
      20_000,
      async () => {
        stored = await lanner.logs(id);
      },
    );
    expect(stored.status).toBe(200);
    expect(stored.text).toContain(`the word is ${word}`);
  });
});
