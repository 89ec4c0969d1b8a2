export {
  DEFAULT_FALLBACK,
  DEFAULT_MATCH,
  InvalidWorkerSelector,
  SELECTOR_FALLBACKS,
  SELECTOR_MATCHES,
  namespaceAncestors,
  resolveSelector,
  validateWorkerSelector,
} from './lib/worker-selector';
export type {
  ResolvedSelector,
  SelectorDeclarations,
  SelectorFallback,
  SelectorLevel,
  SelectorMatch,
  ValidationProblem,
  WorkerSelector,
} from './lib/worker-selector';
export { TagTemplateNotSupported, literalTagRenderer, renderTags } from './lib/tag-renderer';
export { expressionTagRenderer } from './lib/expression-tag-renderer';
export type { TagRenderContext, TagRenderer } from './lib/tag-renderer';
export { sameTagSet } from './lib/worker-queue';
export type { WorkerQueue } from './lib/worker-queue';
export { DuplicateWorkerQueueId, WorkerQueueIndex } from './lib/worker-queue-index';
export { availabilitySnapshot } from './lib/worker-availability';
export type { FleetSubscription, FleetWorker, WorkerAvailability } from './lib/worker-availability';
export {
  REASON_NO_QUEUE_MATCHES,
  REASON_NO_WORKER_CONNECTED,
  WorkerQueueResolver,
  reasonNoGroupSubscribes,
} from './lib/worker-queue-resolver';
export type { RoutingAction, RoutingCause, RoutingContext, RoutingDecision } from './lib/worker-queue-resolver';
