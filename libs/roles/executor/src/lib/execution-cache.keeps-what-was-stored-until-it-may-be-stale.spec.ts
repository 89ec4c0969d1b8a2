import type { Flow } from '@lanner/model';
import type { Execution } from '@lanner/state-machine';
import { ExecutionCache } from './execution-cache';

const flow = { id: 'hello', namespace: 'company.team', revision: 1 } as unknown as Flow;
const execution = (id: string, version: number): Execution => ({ id, version }) as unknown as Execution;
const entry = (id: string, version: number) => ({ tenantId: 'main', flow, execution: execution(id, version) });

describe('ExecutionCache', () => {
  it('answers what was kept, at the version stored, until the execution ends', () => {
    const cache = new ExecutionCache(10);
    cache.keep(entry('exec-1', 3), cache.generation, false);
    expect(cache.get('main', 'exec-1')?.execution.version).toBe(3);
    expect(cache.get('other', 'exec-1')).toBeUndefined();
    cache.keep(entry('exec-1', 5), cache.generation, true);
    expect(cache.get('main', 'exec-1')).toBeUndefined();
  });

  it('forgets everything when the partitions change, and refuses work loaded before that', () => {
    const cache = new ExecutionCache(10);
    const loadedAt = cache.generation;
    cache.keep(entry('exec-1', 1), loadedAt, false);
    cache.forgetAll();
    expect(cache.get('main', 'exec-1')).toBeUndefined();
    // A batch that read exec-2 before the rebalance finishes after it: its value is not kept.
    cache.keep(entry('exec-2', 2), loadedAt, false);
    expect(cache.get('main', 'exec-2')).toBeUndefined();
    cache.keep(entry('exec-2', 2), cache.generation, false);
    expect(cache.get('main', 'exec-2')?.execution.version).toBe(2);
  });

  it('drops an entry on demand and holds at most its capacity, the least recently used going first', () => {
    const cache = new ExecutionCache(2);
    cache.keep(entry('a', 1), cache.generation, false);
    cache.keep(entry('b', 1), cache.generation, false);
    cache.get('main', 'a');
    cache.keep(entry('c', 1), cache.generation, false);
    expect(cache.size).toBe(2);
    expect(cache.get('main', 'b')).toBeUndefined();
    expect(cache.get('main', 'a')).toBeDefined();
    cache.drop('main', 'a');
    expect(cache.get('main', 'a')).toBeUndefined();
    expect(new ExecutionCache(0).size).toBe(0);
  });
});
