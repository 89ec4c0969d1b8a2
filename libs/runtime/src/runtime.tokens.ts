/** The role's typed config (`CommonConfig` and more), provided by RuntimeModule. */
export const RUNTIME_CONFIG = Symbol('lanner.runtime-config');
/** The role's repositories (`Repositories` from @lanner/repository), provided by role modules that use them. */
export const REPOSITORIES = Symbol('lanner.repositories');
/** The role's queue (`QueuePort` from @lanner/queue), provided by role modules that use it. */
export const QUEUE = Symbol('lanner.queue');
/** The process's pino logger, for adapters that take a pino-shaped logger (the queue). */
export const PROCESS_LOGGER = Symbol('lanner.process-logger');
