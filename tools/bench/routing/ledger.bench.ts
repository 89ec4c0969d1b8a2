/**
 * Capacity ledger throughput: acquire + release pairs per second on one core.
 *
 *   SWC_NODE_PROJECT=tsconfig.base.json node -r @swc-node/register tools/bench/routing/ledger.bench.ts
 *
 * Each scenario runs one warm-up round (lets V8 optimise the hot path), then
 * ROUNDS timed rounds of PAIRS pairs; the median round is the result. The last
 * line is JSON for tooling. A timing belongs here, never in a test.
 */
import { CapacityLedger, SlotLease } from '@lanner/capacity';

const PAIRS = Number(process.env['LEDGER_BENCH_PAIRS'] ?? 2_000_000);
const ROUNDS = Number(process.env['LEDGER_BENCH_ROUNDS'] ?? 7);

interface Scenario {
  readonly name: string;
  readonly what: string;
  /** Runs `pairs` acquire+release pairs; returns leases granted, so the work cannot be optimised away. */
  readonly run: (pairs: number) => number;
}

/** The worked example: 16 slots, etl 50% STRICT, reports 25% ELASTIC, burst ELASTIC without reservation. */
function workedExampleLedger(): CapacityLedger {
  return new CapacityLedger(16, [
    { workerQueueId: 'etl', reservedPercent: 50, mode: 'STRICT' },
    { workerQueueId: 'reports', reservedPercent: 25, mode: 'ELASTIC' },
    { workerQueueId: 'burst', mode: 'ELASTIC' },
  ]);
}

function takeAll(ledger: CapacityLedger, workerQueueId: string, count: number): SlotLease[] {
  const leases: SlotLease[] = [];
  for (let i = 0; i < count; i++) {
    const lease = ledger.acquire(workerQueueId);
    if (lease === undefined) throw new Error(`setup: slot ${i + 1} for '${workerQueueId}' refused`);
    leases.push(lease);
  }
  return leases;
}

const scenarios: readonly Scenario[] = [
  {
    name: 'reserved',
    what: 'own reserved slot, idle worker',
    run: (pairs) => {
      const ledger = workedExampleLedger();
      let granted = 0;
      for (let i = 0; i < pairs; i++) {
        const lease = ledger.acquire('etl');
        if (lease !== undefined) {
          granted++;
          ledger.release(lease);
        }
      }
      return granted;
    },
  },
  {
    name: 'borrowed',
    what: 'shared pool full, slot borrowed from an ELASTIC lender',
    run: (pairs) => {
      const ledger = workedExampleLedger();
      takeAll(ledger, 'burst', 4); // fills the shared pool
      let granted = 0;
      for (let i = 0; i < pairs; i++) {
        const lease = ledger.acquire('burst');
        if (lease !== undefined) {
          granted++;
          ledger.release(lease);
        }
      }
      return granted;
    },
  },
  {
    name: 'mixed-busy',
    what: '12 of 16 slots running, three queues in turn, oldest lease released',
    run: (pairs) => {
      const ledger = workedExampleLedger();
      const queues = ['etl', 'reports', 'burst'];
      // A ring of running leases: each step starts a job and finishes the oldest one.
      const running: (SlotLease | undefined)[] = new Array(12).fill(undefined);
      let granted = 0;
      for (let i = 0; i < pairs; i++) {
        const slot = i % running.length;
        const oldest = running[slot];
        if (oldest !== undefined) ledger.release(oldest);
        const lease = ledger.acquire(queues[i % 3]);
        running[slot] = lease;
        if (lease !== undefined) granted++;
      }
      return granted;
    },
  },
];

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function measure(scenario: Scenario): { pairsPerSecond: number; rounds: number[] } {
  scenario.run(PAIRS); // warm-up
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.hrtime.bigint();
    const granted = scenario.run(PAIRS);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (granted === 0) throw new Error(`${scenario.name}: no lease granted`);
    rounds.push(PAIRS / seconds);
  }
  return { pairsPerSecond: median(rounds), rounds };
}

const format = (value: number): string => Math.round(value).toLocaleString('en-US');

console.log(`capacity ledger: ${format(PAIRS)} acquire+release pairs per round, ${ROUNDS} rounds after 1 warm-up, median`);
const results: Record<string, number> = {};
for (const scenario of scenarios) {
  const { pairsPerSecond, rounds } = measure(scenario);
  results[scenario.name] = Math.round(pairsPerSecond);
  const spread = `${format(Math.min(...rounds))} .. ${format(Math.max(...rounds))}`;
  console.log(`${scenario.name.padEnd(11)} ${format(pairsPerSecond).padStart(12)} pairs/s  (rounds ${spread})  ${scenario.what}`);
}
console.log(JSON.stringify({ bench: 'capacity-ledger', pairs: PAIRS, rounds: ROUNDS, pairsPerSecond: results }));
