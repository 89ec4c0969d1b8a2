import fc from 'fast-check';
import { WorkerQueueIndex, type SelectorMatch, type WorkerQueue } from '../index';

const TAGS = ['gpu', 'eu', 'us', 'linux', 'arm', 'ssd', 'etl'];
const TENANTS = ['main', 'acme', 'globex'];

const queueArb: fc.Arbitrary<Omit<WorkerQueue, 'id'>> = fc.record({
  tags: fc.uniqueArray(fc.constantFrom(...TAGS), { minLength: 1, maxLength: 4 }),
  allowedTenants: fc.uniqueArray(fc.constantFrom(...TENANTS), { maxLength: 2 }),
});
const queuesArb = fc.array(queueArb, { maxLength: 25 }).map((queues) => queues.map((q, i) => ({ ...q, id: `q${i}` })));
const askedArb = fc.uniqueArray(fc.constantFrom(...TAGS), { minLength: 1, maxLength: 3 });
const matchArb = fc.constantFrom<SelectorMatch>('ALL', 'ANY');
const tenantArb = fc.constantFrom(...TENANTS);

/** The rule of WORKERS.md written as plainly as possible: scan and sort every queue. */
function referenceMatch(queues: WorkerQueue[], asked: string[], match: SelectorMatch, tenant: string): string | undefined {
  const candidates = queues
    .filter((q) => q.allowedTenants.length === 0 || q.allowedTenants.includes(tenant))
    .map((q) => ({ id: q.id, size: q.tags.length, matched: asked.filter((t) => q.tags.includes(t)).length }))
    .filter((c) => (match === 'ALL' ? c.matched === asked.length : c.matched > 0))
    .sort((a, b) => a.size - a.matched - (b.size - b.matched) || b.matched - a.matched || (a.id < b.id ? -1 : 1));
  return candidates[0]?.id;
}

describe('worker selector matching: properties', () => {
  it('the index picks exactly what a full scan with the WORKERS.md tie-break picks', () => {
    fc.assert(
      fc.property(queuesArb, askedArb, matchArb, tenantArb, (queues, asked, match, tenant) => {
        expect(WorkerQueueIndex.build(queues).match(asked, match, tenant)?.id).toBe(referenceMatch(queues, asked, match, tenant));
      }),
      // The index prunes candidates; more runs give the pruning more shapes to get wrong.
      { numRuns: 1000 },
    );
  });

  it('an ALL match always carries every asked tag; an ANY match at least one', () => {
    fc.assert(
      fc.property(queuesArb, askedArb, matchArb, tenantArb, (queues, asked, match, tenant) => {
        const found = WorkerQueueIndex.build(queues).match(asked, match, tenant);
        if (!found) return;
        const carried = asked.filter((tag) => found.tags.includes(tag));
        expect(match === 'ALL' ? carried.length === asked.length : carried.length > 0).toBe(true);
      }),
    );
  });

  it("a match always allows the execution's tenant", () => {
    fc.assert(
      fc.property(queuesArb, askedArb, matchArb, tenantArb, (queues, asked, match, tenant) => {
        const found = WorkerQueueIndex.build(queues).match(asked, match, tenant);
        if (found) expect(found.allowedTenants.length === 0 || found.allowedTenants.includes(tenant)).toBe(true);
      }),
    );
  });
});
