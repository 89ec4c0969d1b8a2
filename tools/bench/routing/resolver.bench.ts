/**
 * Worker queue resolver throughput: routing decisions per second on one core.
 *
 *   SWC_NODE_PROJECT=tsconfig.base.json node -r @swc-node/register tools/bench/routing/resolver.bench.ts
 *
 * Topology: 1,000 worker queues (1-4 tags from a vocabulary of regions,
 * hardware, OS and team tags, distinct tag sets, some restricted to tenants),
 * 300 worker groups subscribing to 1-6 queues each (about 3% of queues have no
 * subscriber), 10,000 connected workers (about 2% draining). Selectors: a
 * fixed mix of 70% ALL / 30% ANY with 1-3 literal tags and every fallback,
 * across 5 tenants; most ask for tags a queue carries, some match nothing.
 *
 * One warm-up round lets V8 optimise the hot path, then ROUNDS timed rounds of
 * DECISIONS decisions; the median round is the result. Deterministic (seeded
 * PRNG), so runs are comparable. The last line is JSON for tooling.
 * A timing belongs here, never in a test.
 */
import { DEFAULT_TENANT_ID } from '@lanner/model';
import {
  WorkerQueueIndex,
  WorkerQueueResolver,
  availabilitySnapshot,
  type FleetSubscription,
  type FleetWorker,
  type RoutingAction,
  type SelectorFallback,
  type WorkerQueue,
  type WorkerSelector,
} from '@lanner/worker-selector';

const QUEUES = 1_000;
const GROUPS = 300;
const WORKERS = 10_000;
const SELECTORS = 10_000;
const DECISIONS = Number(process.env['RESOLVER_BENCH_DECISIONS'] ?? 2_000_000);
const ROUNDS = Number(process.env['RESOLVER_BENCH_ROUNDS'] ?? 7);
const TENANTS = [DEFAULT_TENANT_ID, 'acme', 'globex', 'initech', 'umbrella'];

/** mulberry32: a small seeded PRNG, so every run routes the same selectors. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = prng(20261130);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
const between = (min: number, max: number): number => min + Math.floor(random() * (max - min + 1));

const VOCABULARY = [
  ...['eu', 'us', 'apac', 'eu-west', 'eu-central', 'us-east', 'us-west', 'ap-south', 'sa', 'africa'],
  ...['gpu', 'cuda-12', 'highmem', 'ssd', 'arm', 'x86', 'fpga', 'spot', 'on-demand', 'bare-metal'],
  ...['linux', 'windows', 'macos'],
  ...Array.from({ length: 60 }, (_, i) => `team-${i}`),
  ...['critical', 'standard', 'batch', 'etl', 'ml', 'reports', 'sensitive', 'pci'],
];

function buildQueues(): WorkerQueue[] {
  const queues: WorkerQueue[] = [];
  const seen = new Set<string>();
  while (queues.length < QUEUES) {
    const tags = new Set<string>();
    const size = between(1, 4);
    while (tags.size < size) tags.add(pick(VOCABULARY));
    const key = [...tags].sort().join(',');
    if (seen.has(key)) continue; // two queues may not share a tag set
    seen.add(key);
    const allowedTenants = random() < 0.1 ? [pick(TENANTS)] : [];
    queues.push({ id: `queue-${queues.length}`, tags: [...tags], allowedTenants });
  }
  return queues;
}

function buildFleet(queues: readonly WorkerQueue[]): { subscriptions: FleetSubscription[]; workers: FleetWorker[] } {
  const served = queues.filter(() => random() >= 0.03);
  const subscriptions: FleetSubscription[] = [];
  for (let g = 0; g < GROUPS; g++) {
    const groupId = `group-${g}`;
    const chosen = new Set<string>();
    const count = between(1, 6);
    while (chosen.size < count) chosen.add(pick(served).id);
    for (const workerQueueId of chosen) subscriptions.push({ groupId, workerQueueId });
  }
  // Make sure every served queue has a subscriber.
  served.forEach((queue, i) => subscriptions.push({ groupId: `group-${i % GROUPS}`, workerQueueId: queue.id }));
  const workers: FleetWorker[] = Array.from({ length: WORKERS }, (_, w) => ({
    workerId: `worker-${w}`,
    groupId: `group-${w % GROUPS}`,
    draining: random() < 0.02,
  }));
  return { subscriptions, workers };
}

function buildSelectors(queues: readonly WorkerQueue[]): Array<{ selector: WorkerSelector; tenant: string }> {
  const fallbacks: Array<SelectorFallback | undefined> = [undefined, 'WAIT', 'FAIL', 'CANCEL', 'IGNORE'];
  return Array.from({ length: SELECTORS }, () => {
    const match = random() < 0.7 ? 'ALL' : 'ANY';
    const wanted = between(1, 3);
    const tags = new Set<string>();
    if (random() < 0.9) {
      // Ask for tags a real queue carries (subset for ALL, plus noise for ANY).
      const source = pick(queues).tags;
      for (const tag of source) if (tags.size < wanted) tags.add(tag);
    }
    while (tags.size < wanted) tags.add(pick(VOCABULARY));
    const fallback = pick(fallbacks);
    return {
      selector: { tags: [...tags], match, ...(fallback ? { fallback } : {}) },
      tenant: pick(TENANTS),
    };
  });
}

const queues = buildQueues();
const availability = availabilitySnapshot(buildFleet(queues));
const resolver = new WorkerQueueResolver(WorkerQueueIndex.build(queues));
const selectors = buildSelectors(queues);
const contexts = TENANTS.map((tenant) => ({ tenant }));
const contextOf = new Map(TENANTS.map((tenant, i) => [tenant, contexts[i]]));
const workload = selectors.map(({ selector, tenant }) => ({ selector, context: contextOf.get(tenant) ?? contexts[0] }));

function round(decisions: number): Record<RoutingAction, number> {
  const actions: Record<RoutingAction, number> = { DISPATCH: 0, WAIT_AND_DISPATCH: 0, FAIL: 0, CANCEL: 0 };
  for (let i = 0; i < decisions; i++) {
    const { selector, context } = workload[i % workload.length];
    actions[resolver.resolve(selector, context, availability).action]++;
  }
  return actions;
}

round(Math.min(DECISIONS, 500_000)); // warm-up
const rates: number[] = [];
const cpuRates: number[] = [];
let mix: Record<RoutingAction, number> = { DISPATCH: 0, WAIT_AND_DISPATCH: 0, FAIL: 0, CANCEL: 0 };
for (let r = 0; r < ROUNDS; r++) {
  const started = process.hrtime.bigint();
  const cpuStarted = process.cpuUsage();
  mix = round(DECISIONS);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuStarted);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  rates.push(DECISIONS / seconds);
  cpuRates.push(DECISIONS / cpuSeconds);
  console.log(
    `round ${r + 1}: ${Math.round(DECISIONS / seconds).toLocaleString('en-US')} decisions/s wall, ` +
      `${Math.round(DECISIONS / cpuSeconds).toLocaleString('en-US')} per CPU-second`,
  );
}
const sorted = [...rates].sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)];
// On a shared machine the wall clock includes time other processes held the core;
// CPU time counts only this process (all its threads, so GC is included).
const cpuMedian = [...cpuRates].sort((a, b) => a - b)[Math.floor(cpuRates.length / 2)];
const share = (n: number): string => `${((100 * n) / DECISIONS).toFixed(1)}%`;
console.log(
  `median ${Math.round(median).toLocaleString('en-US')} decisions/s ` +
    `(min ${Math.round(sorted[0]).toLocaleString('en-US')}, max ${Math.round(sorted[sorted.length - 1]).toLocaleString('en-US')}), ` +
    `median ${Math.round(cpuMedian).toLocaleString('en-US')} per CPU-second; ` +
    `${QUEUES} queues, ${WORKERS} workers, ${SELECTORS} selectors; decision mix: ` +
    `DISPATCH ${share(mix.DISPATCH)}, WAIT_AND_DISPATCH ${share(mix.WAIT_AND_DISPATCH)}, FAIL ${share(mix.FAIL)}, CANCEL ${share(mix.CANCEL)}`,
);
console.log(
  JSON.stringify({
    bench: 'resolver',
    queues: QUEUES,
    workers: WORKERS,
    decisionsPerRound: DECISIONS,
    rounds: ROUNDS,
    medianPerSecond: Math.round(median),
    minPerSecond: Math.round(sorted[0]),
    maxPerSecond: Math.round(sorted[sorted.length - 1]),
    medianPerCpuSecond: Math.round(cpuMedian),
    mix,
  }),
);
