export { DEFAULT_SUBSCRIPTION_MODE, InvalidTopology, SUBSCRIPTION_MODES, formatProblems } from './lib/topology-model';
export type {
  RegistrationTokenSpec,
  SubscriptionMode,
  SubscriptionSpec,
  Validation,
  WorkerGroupSpec,
  WorkerQueueSpec,
} from './lib/topology-model';
export {
  REGISTRATION_TOKEN_FORMAT,
  REGISTRATION_TOKEN_PATTERN,
  RegistrationTokenSecret,
  isWellFormedRegistrationToken,
} from './lib/registration-token';
export type { RegisteredTokenLookup, RegistrationTokenSource, TokenFileRead, TokenFileReader } from './lib/registration-token';
export { MAX_ID_LENGTH, isRfc1123Label } from './lib/topology-fields';
export type { QueueCatalog } from './lib/topology-fields';
export { validateSetup } from './lib/validate-setup';
export type { ExistingTopology, SetupValidation, SetupValidationPorts, ValidatedSetup } from './lib/validate-setup';
export { planSetup, withDefaultSubscription } from './lib/plan-setup';
export type { ExistingIds, SetupPlan, SetupStep } from './lib/plan-setup';
export {
  checkSubscriptionDeletion,
  checkWorkerGroupDeletion,
  checkWorkerQueueDeletion,
  validateSubscriptionWrite,
  validateWorkerGroupWrite,
  validateWorkerQueueWrite,
} from './lib/entity-validators';
export type { DeletionCheck } from './lib/entity-validators';
