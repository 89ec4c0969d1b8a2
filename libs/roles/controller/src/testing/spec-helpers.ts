// Small helpers shared by the controller's integration specs: the common ones live in
// @lanner/testing, re-exported here so the specs import one place.
export { eventually, freePort, pause, requiredEnv } from '@lanner/testing';
export type { EventuallyOptions } from '@lanner/testing';
