import type { ListeningFlowTrigger } from '@lanner/repository';

/** How long a tenant's index is used without a `broadcast.flows-changed`: bounds the delay of a missed one. */
export const DEFAULT_FLOW_TRIGGER_INDEX_TTL_MS = 30_000;

/** Reads a tenant's listening Flow triggers (FlowTriggerEvaluationRepository.listening). */
export type ListeningLoader = (tenantId: string) => Promise<ListeningFlowTrigger[]>;

interface Entry {
  readonly loadedAt: number;
  readonly listening: Promise<ListeningFlowTrigger[]>;
}

/**
 * Each tenant's Flow triggers of its live flows (with each flow's latest
 * revision), kept in memory so that an ended execution needs no read to learn
 * which triggers listen. Loaded at the tenant's first ended execution here;
 * dropped when a flow of the tenant changes (`changed`, on the
 * `broadcast.flows-changed` the api sends after a flow or trigger write) and
 * read again at the next end; read again anyway once it is `ttlMs` old, in case
 * a broadcast was missed (this process was not yet following the topic).
 * Concurrent misses of one tenant share one read; a failed read is not kept.
 */
export class FlowTriggerIndex {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly load: ListeningLoader,
    private readonly clock: () => number,
    private readonly ttlMs: number = DEFAULT_FLOW_TRIGGER_INDEX_TTL_MS,
  ) {
    if (!Number.isFinite(ttlMs) || ttlMs < 0) throw new RangeError('the flow trigger index TTL is a duration in ms');
  }

  /** The tenant's listening Flow triggers. */
  listening(tenantId: string): Promise<ListeningFlowTrigger[]> {
    const now = this.clock();
    const held = this.entries.get(tenantId);
    if (held !== undefined && now - held.loadedAt < this.ttlMs) return held.listening;
    const entry: Entry = { loadedAt: now, listening: this.load(tenantId) };
    this.entries.set(tenantId, entry);
    entry.listening.catch(() => {
      if (this.entries.get(tenantId) === entry) this.entries.delete(tenantId);
    });
    return entry.listening;
  }

  /** A flow of the tenant was saved, deleted or had a trigger enabled or disabled: its index is read again. */
  changed(tenantId: string): void {
    this.entries.delete(tenantId);
  }

  /** Every tenant's index is read again (this process may have missed changes). */
  forgetAll(): void {
    this.entries.clear();
  }
}
