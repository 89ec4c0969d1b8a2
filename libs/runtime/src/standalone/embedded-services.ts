import { ServerRoleSettings } from '../adapters/server-adapters';
import { StandaloneConfig } from '../config/load-config';
import type { RoleProcess } from '../run-role';
import { ensureAdminToken } from './admin-token';
import { startEmbeddedDatabase } from './embedded-database';

export interface EmbeddedServices {
  /** What every server role module of standalone is wired to: the embedded PostgreSQL and one in-process queue. */
  readonly serverRoles: ServerRoleSettings;
}

/**
 * Standalone's embedded defaults: PostgreSQL under the data dir (migrated at
 * start, the one place migrations run at start: a laptop has no separate
 * migrate step), the in-process queue, and the bootstrap admin token, printed
 * with the API URL once the process is ready.
 */
export async function startEmbeddedServices(config: StandaloneConfig, roleProcess: RoleProcess): Promise<EmbeddedServices> {
  const database = await startEmbeddedDatabase({
    dataDir: config.dataDir,
    port: config.embeddedDatabasePort,
    logger: roleProcess.logger,
  });
  roleProcess.afterClose(() => database.stop());
  const adminToken = await ensureAdminToken(config.dataDir);

  roleProcess.onReady((baseUrl) => {
    // Written to stdout directly, not logged: the logger redacts anything named token,
    // and this is the single time the operator can see it.
    const tokenLine = adminToken.created
      ? `  Admin token: ${adminToken.token}\n               (shown once; stored in ${adminToken.path})\n`
      : `  Admin token: created at first start, stored in ${adminToken.path}\n`;
    process.stdout.write(`\nLanner standalone is ready.\n  API:         ${baseUrl}/api/v1\n${tokenLine}\n`);
  });

  return {
    serverRoles: {
      database: { url: database.url, migrateAtStart: true },
      queue: { kind: 'in-process' },
    },
  };
}
