import { useTestRepositories } from '../testing/test-database';

describe('executor timers', () => {
  const fixture = useTestRepositories();
  const executionId = 'timers-exec';

  beforeAll(async () => {
    await fixture.repositories.executions.create('main', {
      id: executionId,
      namespace: 'company.team',
      flowId: 'timers',
      flowRevision: 1,
      state: 'CREATED',
      stateHistories: [{ state: 'CREATED', date: new Date() }],
    });
  });

  const timer = (id: string, dueAt: Date) => ({
    id,
    tenantId: 'main',
    executionId,
    taskRunId: `${executionId}:t`,
    kind: 'task-timeout',
    attempt: 1,
    dueAt,
  });

  it('fires only due timers, once, and keeps them when firing failed', async () => {
    const timers = fixture.repositories.timers;
    await timers.schedule(timer('due', new Date(Date.now() - 1000)));
    await timers.schedule(timer('due', new Date(Date.now() - 1000))); // scheduled again by a redelivered event
    await timers.schedule(timer('later', new Date(Date.now() + 3_600_000)));

    await expect(timers.fireDue(new Date(), 10, async () => Promise.reject(new Error('queue down')))).rejects.toThrow(
      'queue down',
    );
    const fired: string[] = [];
    const count = await timers.fireDue(new Date(), 10, async (due) => {
      fired.push(...due.map((t) => t.id));
    });

    expect(count).toBe(1);
    expect(fired).toEqual(['due']);
    expect((await timers.listForExecution('main', executionId)).map((t) => t.id)).toEqual(['later']);
  });

  it('cancels a timer, and ignores one that is already gone', async () => {
    const timers = fixture.repositories.timers;
    await timers.schedule(timer('cancelled', new Date()));

    await timers.cancel('cancelled');
    await timers.cancel('cancelled');

    expect((await timers.listForExecution('main', executionId)).map((t) => t.id)).not.toContain('cancelled');
  });
});
