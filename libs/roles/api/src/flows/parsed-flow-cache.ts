import type { ParseFlowResult } from '@lanner/model';

/** How many flows' parsed latest revisions the api keeps by default. */
export const DEFAULT_PARSED_FLOW_CACHE_SIZE = 1_000;

interface Entry {
  readonly revision: number;
  readonly result: Promise<ParseFlowResult>;
}

/**
 * The parsed form of each flow's latest revision, so creating an execution
 * does not parse the flow's source every time. A stored revision never
 * changes (a save or a delete appends a new revision, and revisions only
 * count up, across deletes too), so an entry is keyed by tenant, namespace,
 * flow id and revision and can never be stale for its key: a saved or deleted
 * flow is read at a higher revision, which misses and replaces the entry.
 * Every api instance therefore stays right without hearing of the others'
 * changes; `forget` only frees an entry early on the instance that made the
 * change. One entry per flow, at most `maxFlows` of them, the least recently
 * used dropped first. Concurrent misses on one revision share one parse.
 */
export class ParsedFlowCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly maxFlows: number = DEFAULT_PARSED_FLOW_CACHE_SIZE) {
    if (!Number.isInteger(maxFlows) || maxFlows < 1) throw new RangeError('the parsed flow cache holds at least one flow');
  }

  /** The parse of `revision` of the flow, from `parse(source)` on a miss. */
  get(
    flow: { readonly tenantId: string; readonly namespace: string; readonly flowId: string; readonly revision: number },
    source: string,
    parse: (source: string) => Promise<ParseFlowResult>,
  ): Promise<ParseFlowResult> {
    const key = keyOf(flow.tenantId, flow.namespace, flow.flowId);
    const cached = this.entries.get(key);
    if (cached !== undefined && cached.revision === flow.revision) {
      // Most recently used last, so eviction takes the first key.
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached.result;
    }
    const result = parse(source);
    const entry: Entry = { revision: flow.revision, result };
    this.entries.delete(key);
    this.entries.set(key, entry);
    while (this.entries.size > this.maxFlows) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    // A failed parse (the parser thread stopped) is not remembered.
    result.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return result;
  }

  /**
   * The revision held for the flow and its parse, if any: the latest revision this
   * instance has seen, which may since have been replaced elsewhere. A caller
   * that uses it must check that it is still the latest where it writes
   * (ExecutionRepository.createIfLatest).
   */
  lastKnown(
    tenantId: string,
    namespace: string,
    flowId: string,
  ): { readonly revision: number; readonly result: Promise<ParseFlowResult> } | undefined {
    return this.entries.get(keyOf(tenantId, namespace, flowId));
  }

  /** Drops the flow's entry (after a save or a delete on this instance). */
  forget(tenantId: string, namespace: string, flowId: string): void {
    this.entries.delete(keyOf(tenantId, namespace, flowId));
  }

  /** How many flows are held (for specs and diagnostics). */
  get size(): number {
    return this.entries.size;
  }
}

function keyOf(tenantId: string, namespace: string, flowId: string): string {
  // NUL appears in none of the three, so the key is unambiguous.
  return `${tenantId}\u0000${namespace}\u0000${flowId}`;
}
