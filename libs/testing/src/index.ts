export { freePort } from './free-port';
export { requiredEnv } from './required-env';
export { eventually, pause } from './eventually';
export type { EventuallyOptions } from './eventually';
