import type { ListeningFlowTrigger } from '@lanner/repository';
import { FlowTriggerIndex } from './flow-trigger-index';

const trigger = (flowId: string, revision: number): ListeningFlowTrigger => ({
  namespace: 'company.team',
  flowId,
  triggerId: 'after',
  revision,
});

describe('FlowTriggerIndex', () => {
  let now = 0;
  let stored: Record<string, ListeningFlowTrigger[]>;
  let reads: string[];
  let index: FlowTriggerIndex;
  beforeEach(() => {
    now = 1_000;
    stored = { a: [trigger('down', 1)], b: [] };
    reads = [];
    index = new FlowTriggerIndex(
      async (tenantId) => {
        reads.push(tenantId);
        return stored[tenantId] ?? [];
      },
      () => now,
      30_000,
    );
  });

  it('reads a tenant once, then answers from memory', async () => {
    const [first, second] = await Promise.all([index.listening('a'), index.listening('a')]);
    expect(first).toEqual([trigger('down', 1)]);
    expect(second).toBe(first);
    expect(await index.listening('a')).toBe(first);
    expect(reads).toEqual(['a']);
  });

  it("reads a tenant again after a change of one of its flows, and only that tenant's", async () => {
    await index.listening('a');
    await index.listening('b');
    stored = { a: [trigger('down', 2)], b: [trigger('other', 1)] };
    index.changed('a');
    expect(await index.listening('a')).toEqual([trigger('down', 2)]);
    expect(await index.listening('b')).toEqual([]);
    expect(reads).toEqual(['a', 'b', 'a']);
  });

  it('reads it again once it is as old as its TTL, in case a change was missed', async () => {
    await index.listening('a');
    stored = { a: [] };
    now += 29_999;
    expect(await index.listening('a')).toEqual([trigger('down', 1)]);
    now += 1;
    expect(await index.listening('a')).toEqual([]);
  });

  it('keeps no failed read, and forgets every tenant on forgetAll', async () => {
    const failing = new FlowTriggerIndex(
      async (tenantId) => {
        reads.push(tenantId);
        if (reads.length === 1) throw new Error('database down');
        return stored[tenantId] ?? [];
      },
      () => now,
    );
    await expect(failing.listening('a')).rejects.toThrow('database down');
    expect(await failing.listening('a')).toEqual([trigger('down', 1)]);
    failing.forgetAll();
    await failing.listening('a');
    expect(reads).toEqual(['a', 'a', 'a']);
  });
});
