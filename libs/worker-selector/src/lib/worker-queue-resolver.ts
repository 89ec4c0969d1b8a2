import { DEFAULT_WORKER_QUEUE_ID } from '@lanner/model';
import { literalTagRenderer, renderTags, type TagRenderContext, type TagRenderer } from './tag-renderer';
import type { WorkerAvailability } from './worker-availability';
import type { WorkerQueueIndex } from './worker-queue-index';
import {
  DEFAULT_FALLBACK,
  DEFAULT_MATCH,
  validateWorkerSelector,
  type SelectorFallback,
  type WorkerSelector,
} from './worker-selector';

export type RoutingAction = 'DISPATCH' | 'WAIT_AND_DISPATCH' | 'FAIL' | 'CANCEL';

/**
 * Why the decision came out as it did. The three "cannot serve" causes are
 * kept apart so the task run's state message tells the user which one holds.
 */
export type RoutingCause =
  /** A queue matched and a worker can take the job now. */
  | 'SERVED'
  /** The selector declared no tag, or none was left after rendering. */
  | 'NO_TAGS'
  | 'NO_QUEUE_MATCHES'
  | 'NO_GROUP_SUBSCRIBES'
  | 'NO_WORKER_CONNECTED'
  /** The selector breaks a validation rule (e.g. fallback without tags). */
  | 'INVALID_SELECTOR';

export interface RoutingDecision {
  action: RoutingAction;
  /** Where the job goes (DISPATCH, WAIT_AND_DISPATCH) or would have gone; null when no queue matched. */
  queueId: string | null;
  cause: RoutingCause;
  /** For the task run's state message. Never contains template context values other than the rendered tags. */
  reason: string;
  /** The rendered tags the decision was made on; a re-dispatched job keeps them. */
  tags: readonly string[];
}

export interface RoutingContext {
  /** The execution's tenant: queues whose `allowedTenants` exclude it never match. */
  tenant: string;
  /** What tag templates are rendered against. */
  variables?: TagRenderContext;
}

/** The exact wording of WORKERS.md's lessons, so users and support read one text. */
export const REASON_NO_QUEUE_MATCHES = 'no worker queue matches';
export const reasonNoGroupSubscribes = (queueId: string): string => `no group subscribes to queue '${queueId}'`;
export const REASON_NO_WORKER_CONNECTED = 'no worker of the subscribed groups is connected';

const EMPTY_CONTEXT: TagRenderContext = Object.freeze({});

/**
 * Decides where a task run goes and whether a worker can take it now:
 * renders the selector's tags, matches them to a worker queue through the
 * index, then applies the selector's fallback when no worker can serve it.
 *
 * Immutable: when queues change, build a new index and a new resolver.
 */
export class WorkerQueueResolver {
  constructor(
    private readonly queues: WorkerQueueIndex,
    private readonly renderer: TagRenderer = literalTagRenderer,
  ) {}

  /**
   * @param selector the selector that applies (see `resolveSelector`); undefined means none.
   * @throws whatever the tag renderer throws for a template it cannot render.
   */
  resolve(selector: WorkerSelector | undefined, context: RoutingContext, availability: WorkerAvailability): RoutingDecision {
    if (!selector) return this.decideAvailability(DEFAULT_WORKER_QUEUE_ID, [], 'NO_TAGS', DEFAULT_FALLBACK, availability);

    if (!isWellFormed(selector)) {
      const problems = validateWorkerSelector(selector);
      return {
        action: 'FAIL',
        queueId: null,
        cause: 'INVALID_SELECTOR',
        reason: `invalid worker selector: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`,
        tags: [],
      };
    }

    const fallback = selector.fallback ?? DEFAULT_FALLBACK;
    const tags = renderTags(selector.tags, this.renderer, context.variables ?? EMPTY_CONTEXT);
    if (tags.length === 0) return this.decideAvailability(DEFAULT_WORKER_QUEUE_ID, tags, 'NO_TAGS', fallback, availability);

    const match = selector.match ?? DEFAULT_MATCH;
    const queue = this.queues.match(tags, match, context.tenant);
    if (!queue) {
      const reason = noQueueMatchesReason(tags, match, context.tenant);
      if (fallback === 'IGNORE') {
        return {
          action: 'DISPATCH',
          queueId: DEFAULT_WORKER_QUEUE_ID,
          cause: 'NO_QUEUE_MATCHES',
          reason: `${reason}; fallback IGNORE routes the task run to queue '${DEFAULT_WORKER_QUEUE_ID}'`,
          tags,
        };
      }
      // No queue at all is a configuration gap, not a transient outage:
      // waiting would hold the task run forever, so it fails whatever the fallback.
      return { action: 'FAIL', queueId: null, cause: 'NO_QUEUE_MATCHES', reason, tags };
    }
    return this.decideAvailability(queue.id, tags, 'SERVED', fallback, availability);
  }

  private decideAvailability(
    queueId: string,
    tags: readonly string[],
    servedCause: RoutingCause,
    fallback: SelectorFallback,
    availability: WorkerAvailability,
  ): RoutingDecision {
    let cause: RoutingCause;
    let reason: string;
    if (availability.subscribedGroups(queueId) === 0) {
      cause = 'NO_GROUP_SUBSCRIBES';
      reason = reasonNoGroupSubscribes(queueId);
    } else if (availability.connectedWorkers(queueId) === 0) {
      cause = 'NO_WORKER_CONNECTED';
      reason = `${REASON_NO_WORKER_CONNECTED} (queue '${queueId}')`;
    } else {
      const why = servedCause === 'NO_TAGS' ? 'no worker selector tags; ' : '';
      return { action: 'DISPATCH', queueId, cause: servedCause, reason: `${why}dispatched to queue '${queueId}'`, tags };
    }
    switch (fallback) {
      case 'WAIT':
        return {
          action: 'WAIT_AND_DISPATCH',
          queueId,
          cause,
          reason: `${reason}; the job waits on the queue (fallback WAIT)`,
          tags,
        };
      case 'FAIL':
        return { action: 'FAIL', queueId, cause, reason: `${reason}; the task run fails (fallback FAIL)`, tags };
      case 'CANCEL':
        return { action: 'CANCEL', queueId, cause, reason: `${reason}; the task run is cancelled (fallback CANCEL)`, tags };
      case 'IGNORE':
        return {
          action: 'DISPATCH',
          queueId: DEFAULT_WORKER_QUEUE_ID,
          cause,
          reason: `${reason}; fallback IGNORE routes the task run to queue '${DEFAULT_WORKER_QUEUE_ID}'`,
          tags,
        };
    }
  }
}

function noQueueMatchesReason(tags: readonly string[], match: string, tenant: string): string {
  return `${REASON_NO_QUEUE_MATCHES} the tags [${tags.join(', ')}] (match ${match}) for tenant '${tenant}'`;
}

/**
 * The hot-path twin of `validateWorkerSelector` (which allocates): it accepts
 * exactly what that validator accepts, ignoring unknown fields. The full
 * validator runs only to explain a rejection.
 */
function isWellFormed(selector: WorkerSelector): boolean {
  const { tags, match, fallback } = selector;
  if (!Array.isArray(tags)) return false;
  for (const tag of tags) if (typeof tag !== 'string') return false;
  if (match !== undefined && match !== 'ALL' && match !== 'ANY') return false;
  if (fallback === undefined) return true;
  if (fallback !== 'FAIL' && fallback !== 'WAIT' && fallback !== 'CANCEL' && fallback !== 'IGNORE') return false;
  return tags.length > 0;
}
