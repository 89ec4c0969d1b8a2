import type { NewExecution, NewFlowRevision, PreconditionWindow, StoredJson } from '@lanner/model';
import { useTestRepositories } from '../testing/test-database';

let flowId = 'listener';
const listener = (triggers: StoredJson[]): NewFlowRevision => ({
  namespace: 'company.down',
  flowId,
  source: 'flow source',
  definition: { id: flowId, namespace: 'company.down', triggers },
});
let key = { tenantId: 'main', namespace: 'company.down', flowId, triggerId: 'after' };
const execution = (id: string): NewExecution => ({
  id,
  namespace: 'company.down',
  flowId,
  flowRevision: 1,
  state: 'CREATED',
  stateHistories: [{ state: 'CREATED', date: new Date() }],
  inputs: {},
  labels: {},
});

describe('Flow trigger evaluations', () => {
  const fixture = useTestRepositories();
  let count = 0;
  beforeEach(() => {
    flowId = `listener-${++count}`;
    key = { ...key, flowId };
  });

  it('list the Flow triggers of live flows with their latest revision, not those disabled through the API', async () => {
    const { flows, triggers, flowTriggerEvaluations } = fixture.repositories;
    await flows.create(
      'main',
      listener([
        { id: 'after', kind: 'Flow' },
        { id: 'hook', kind: 'Webhook', key: 'k' },
      ]),
    );
    await flows.saveRevision(
      'main',
      listener([
        { id: 'after', kind: 'Flow' },
        { id: 'other', kind: 'Flow' },
      ]),
    );
    expect(await flowTriggerEvaluations.listening('main')).toEqual(
      expect.arrayContaining([
        { namespace: 'company.down', flowId, triggerId: 'after', revision: 2 },
        { namespace: 'company.down', flowId, triggerId: 'other', revision: 2 },
      ]),
    );
    await triggers.setDisabled({ ...key, triggerId: 'other' }, true);
    expect(await flowTriggerEvaluations.listening('main')).toEqual([
      { namespace: 'company.down', flowId, triggerId: 'after', revision: 2 },
    ]);
    await flows.softDelete('main', 'company.down', flowId);
    expect(await flowTriggerEvaluations.listening('main')).toEqual([]);
  });

  it('an ended execution handled twice starts one execution, and the second call names it', async () => {
    const { flows, executions, flowTriggerEvaluations } = fixture.repositories;
    await flows.create('main', listener([{ id: 'after', kind: 'Flow' }]));
    const first = await flowTriggerEvaluations.evaluateOnce(key, 'upstream-1', new Date(), () => ({
      execution: execution('down-1'),
    }));
    expect(first).toEqual({ first: true, executionId: 'down-1' });
    // The trigger API lists it as the trigger's last execution.
    expect(await fixture.repositories.triggers.get(key)).toMatchObject({
      lastExecutionId: 'down-1',
      lastExecutionState: 'CREATED',
    });
    let decidedAgain = false;
    const again = await flowTriggerEvaluations.evaluateOnce(key, 'upstream-1', new Date(), () => {
      decidedAgain = true;
      return { execution: execution('down-2') };
    });
    expect(again).toEqual({ first: false, executionId: 'down-1' });
    expect(decidedAgain).toBe(false);
    const page = await executions.search('main', { namespace: 'company.down', flowId, page: 1, size: 10 });
    expect(page.results.map((row) => row.id)).toEqual(['down-1']);
  });

  it('concurrent ends count in one window, one after the other, and it is forgotten with its trigger', async () => {
    const { flows, flowTriggerEvaluations } = fixture.repositories;
    await flows.create('main', listener([{ id: 'after', kind: 'Flow' }]));
    const now = new Date('2026-03-01T07:00:00Z');
    const seen: (PreconditionWindow | undefined)[] = [];
    // Each call adds its execution to the window it is handed: with no lock one would overwrite the other.
    await Promise.all(
      ['a', 'b', 'c'].map((upstream) =>
        flowTriggerEvaluations.evaluateOnce(key, upstream, now, (window) => {
          seen.push(window);
          return {
            window: { start: now.getTime(), end: now.getTime() + 60_000, met: { ...(window?.met ?? {}), [upstream]: upstream } },
          };
        }),
      ),
    );
    const last = await flowTriggerEvaluations.evaluateOnce(key, 'd', now, (window) => {
      seen.push(window);
      return { window: null };
    });
    expect(last.first).toBe(true);
    expect(Object.keys(seen[3]?.met ?? {}).sort()).toEqual(['a', 'b', 'c']);
    // Deleted by the decision of 'd': the next evaluation starts with no window.
    await flowTriggerEvaluations.evaluateOnce(key, 'e', now, (window) => {
      seen.push(window);
      return { window: { start: 0, end: 1, met: { e: 'e' } } };
    });
    expect(seen[4]).toBeUndefined();
    // The trigger removed from the flow: its window and evaluations go with it.
    await flows.saveRevision('main', listener([]));
    await flows.saveRevision('main', listener([{ id: 'after', kind: 'Flow' }]));
    const reborn = await flowTriggerEvaluations.evaluateOnce(key, 'a', now, (window) => {
      seen.push(window);
      return {};
    });
    expect(reborn.first).toBe(true);
    expect(seen[5]).toBeUndefined();
  });

  it('evaluations past their retention are purged', async () => {
    const { flows, flowTriggerEvaluations } = fixture.repositories;
    await flows.create('main', listener([{ id: 'after', kind: 'Flow' }]));
    await flowTriggerEvaluations.evaluateOnce(key, 'old', new Date('2026-01-01T00:00:00Z'), () => ({}));
    await flowTriggerEvaluations.evaluateOnce(key, 'recent', new Date('2026-03-01T00:00:00Z'), () => ({}));
    expect(await flowTriggerEvaluations.purgeEvaluations(new Date('2026-02-01T00:00:00Z'))).toBe(1);
    expect((await flowTriggerEvaluations.evaluateOnce(key, 'old', new Date(), () => ({}))).first).toBe(true);
    expect((await flowTriggerEvaluations.evaluateOnce(key, 'recent', new Date(), () => ({}))).first).toBe(false);
  });
});
