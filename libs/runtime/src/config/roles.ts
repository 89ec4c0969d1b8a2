/** The processes Lanner can run as; `standalone` is all the others in one process. */
export const ROLES = ['api', 'executor', 'controller', 'worker', 'scheduler', 'indexer', 'standalone'] as const;
export type Role = (typeof ROLES)[number];

/** Roles that hold a repository and a queue connection (everything but the worker and standalone). */
export const SERVER_ROLES = ['api', 'executor', 'controller', 'scheduler', 'indexer'] as const;
export type ServerRole = (typeof SERVER_ROLES)[number];

export function isRole(name: string): name is Role {
  return (ROLES as readonly string[]).includes(name);
}
