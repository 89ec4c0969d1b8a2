import fc from 'fast-check';
import {
  PersistentMap,
  createExecution,
  executionFromData,
  executionToData,
  listTaskRuns,
  next,
  renderContextFor,
  simulateFlow,
} from '../index';
import { flow, forEach, log, outputValues, runsOf } from '../test-support/flows';

describe('idempotence', () => {
  const tree = flow([log('a'), log('b')]);

  it('ignores a second created event', () => {
    const created = next(tree, createExecution(tree, { id: 'e', tenant: 't' }, 0), { type: 'created' }, 0);
    const again = next(tree, created.execution, { type: 'created' }, 1);
    expect(again.execution).toBe(created.execution);
    expect(again.actions).toEqual([]);
  });

  it('ignores a result for an old attempt or a terminal task run', () => {
    const started = next(tree, createExecution(tree, { id: 'e', tenant: 't' }, 0), { type: 'created' }, 0).execution;
    const stale = next(tree, started, { type: 'task-run-result', taskRunId: 'e:a', attempt: 7, state: 'SUCCESS' }, 1);
    expect(stale.execution).toBe(started);
    const done = next(tree, started, { type: 'task-run-result', taskRunId: 'e:a', attempt: 1, state: 'SUCCESS' }, 1).execution;
    expect(done.version).toBe(started.version + 1);
    const duplicate = next(tree, done, { type: 'task-run-result', taskRunId: 'e:a', attempt: 1, state: 'FAILED' }, 2);
    expect(duplicate.execution).toBe(done);
    expect(runsOf(done, 'a')[0]?.state).toBe('SUCCESS');
  });

  it('derives the same task-run ids when the same events are applied again', () => {
    const once = simulateFlow(flow([forEach('each', ['x', 'y'], [log('say')], 0)]), { executionId: 'e1' });
    const twice = simulateFlow(flow([forEach('each', ['x', 'y'], [log('say')], 0)]), { executionId: 'e1' });
    expect(listTaskRuns(once.execution).map((run) => run.id)).toEqual(['e1:each', 'e1:each:say@0', 'e1:each:say@1']);
    expect(listTaskRuns(twice.execution).map((run) => run.id)).toEqual(listTaskRuns(once.execution).map((run) => run.id));
  });

  it('leaves the previous execution value untouched (structural sharing, no mutation)', () => {
    const started = next(tree, createExecution(tree, { id: 'e', tenant: 't' }, 0), { type: 'created' }, 0).execution;
    const snapshot = JSON.stringify(executionToData(started));
    next(tree, started, { type: 'task-run-result', taskRunId: 'e:a', attempt: 1, state: 'SUCCESS' }, 1);
    expect(JSON.stringify(executionToData(started))).toBe(snapshot);
  });
});

describe('plain-data form', () => {
  it('round-trips through JSON and carries on from where it was', () => {
    const tree = flow([outputValues('first', { v: 'one' }), log('second'), log('third')], {
      outputs: [{ id: 'v', type: 'STRING', value: '{{ outputs.first.values.v }}' }],
    });
    const midway = simulateFlow(tree, { script: { second: { state: 'HANG' } }, executionId: 'e' }).execution;
    const restored = executionFromData(JSON.parse(JSON.stringify(executionToData(midway))));
    expect(executionToData(restored)).toEqual(executionToData(midway));
    expect(restored.liveTaskRuns.size).toBe(1);
    const finished = next(tree, restored, { type: 'task-run-result', taskRunId: 'e:second', attempt: 1, state: 'SUCCESS' }, 5000);
    const last = next(
      tree,
      finished.execution,
      { type: 'task-run-result', taskRunId: 'e:third', attempt: 1, state: 'SUCCESS' },
      6000,
    );
    expect(last.execution.state).toBe('SUCCESS');
    expect(last.execution.outputs).toEqual({ v: 'one' });
  });

  it('gives the executor the render context of a task run', () => {
    const tree = flow([forEach('each', ['x'], [log('say')], 0)]);
    const execution = simulateFlow(tree, { script: { say: { state: 'HANG' } }, inputs: { region: 'eu' } }).execution;
    const context = renderContextFor(tree, execution, 'exec:each:say@0');
    expect(context['taskrun']).toMatchObject({ value: 'x', taskId: 'say' });
    expect(context['inputs']).toEqual({ region: 'eu' });
  });
});

describe('PersistentMap', () => {
  it('behaves like a Map under any sequence of sets and deletes, and old versions never change', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.string({ maxLength: 4 }), fc.integer())), (operations) => {
        let map = PersistentMap.empty<number>();
        const model = new Map<string, number>();
        const versions: [PersistentMap<number>, Map<string, number>][] = [];
        for (const [isSet, key, value] of operations) {
          if (isSet) {
            map = map.set(key, value);
            model.set(key, value);
          } else {
            map = map.delete(key);
            model.delete(key);
          }
          versions.push([map, new Map(model)]);
        }
        for (const [version, expected] of versions) {
          expect(version.size).toBe(expected.size);
          for (const [key, value] of expected) expect(version.get(key)).toBe(value);
          const seen: Record<string, number> = {};
          version.forEach((value, key) => (seen[key] = value));
          expect(seen).toEqual(Object.fromEntries(expected));
        }
      }),
    );
  });

  it('tells which values were added or replaced since an earlier version, whatever the operations', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ maxLength: 3 }), fc.integer({ min: 0, max: 3 }))),
        fc.array(fc.tuple(fc.boolean(), fc.string({ maxLength: 3 }), fc.integer({ min: 0, max: 3 }))),
        (start, operations) => {
          // Boxed values: "the same value" is the same object, as task runs are.
          const earlier = PersistentMap.from(start.map(([key, n]) => [key, { n }] as const));
          let map = earlier;
          for (const [isSet, key, n] of operations) map = isSet ? map.set(key, { n }) : map.delete(key);
          const expected: { n: number }[] = [];
          map.forEach((value, key) => {
            if (earlier.get(key) !== value) expected.push(value);
          });
          const changed = map.changedSince(earlier);
          expect(changed).toHaveLength(expected.length);
          for (const value of expected) expect(changed).toContain(value);
        },
      ),
    );
  });

  it('finds the two changes among 20,000 entries, and none against itself', () => {
    let earlier = PersistentMap.empty<{ n: number }>();
    for (let i = 0; i < 20_000; i++) earlier = earlier.set(`exec:t${i}`, { n: i });
    const replaced = { n: -1 };
    const later = earlier.set('exec:t12345', replaced).set('exec:new', { n: 0 });
    expect(later.changedSince(earlier)).toEqual(expect.arrayContaining([replaced, { n: 0 }]));
    expect(later.changedSince(earlier)).toHaveLength(2);
    expect(earlier.changedSince(earlier)).toEqual([]);
  });

  it('holds 20,000 keys', () => {
    let map = PersistentMap.empty<number>();
    for (let i = 0; i < 20_000; i++) map = map.set(`exec:each:say@${i}`, i);
    expect(map.size).toBe(20_000);
    expect(map.get('exec:each:say@12345')).toBe(12345);
    expect(map.delete('exec:each:say@12345').get('exec:each:say@12345')).toBeUndefined();
  });
});
