import { ServerRoleSettings } from '../adapters/server-adapters';
import { StandaloneConfig } from '../config/load-config';
import type { RoleProcess } from '../run-role';
import {
  ensureAdminPassword,
  ensureAdminToken,
  ensureUserSigningKey,
  ensureWorkerSigningKey,
  FIRST_ADMIN_USERNAME,
  readAdminPassword,
  readAdminToken,
} from './admin-token';
import { startEmbeddedDatabase } from './embedded-database';
import { freePortOn } from './loopback-port';

export interface EmbeddedServices {
  /** What every server role module of standalone is wired to: the embedded PostgreSQL and one in-process queue. */
  readonly serverRoles: ServerRoleSettings;
  /** The bootstrap admin token, for the api role (secret: never log it). */
  readonly adminToken: string;
  /**
   * Where the controller's gRPC server listens and the local worker connects:
   * `config.grpc` with port 0 resolved to a free port, and a wildcard host
   * reached over loopback.
   */
  readonly grpc: {
    readonly listen: { readonly host: string; readonly port: number };
    readonly connect: { readonly host: string; readonly port: number };
  };
  /** The key that signs worker access tokens, kept under the data dir (secret: never log it). */
  readonly workerSigningKey: string;
  /** Signs the users' access JWTs, generated at first start. */
  readonly userSigningKey: string;
  /** Created by the api role when no user exists yet. */
  readonly firstAdmin: { readonly username: string; readonly password: string };
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
  const adminPassword = await ensureAdminPassword(config.dataDir);

  roleProcess.onReady((baseUrl) => {
    // Written to stdout directly, not logged: the logger redacts anything named token,
    // and this is the single time the operator can see it.
    const tokenLine = adminToken.created
      ? `  Admin token: ${adminToken.token}\n               (shown once; stored in ${adminToken.path})\n`
      : `  Admin token: created at first start, stored in ${adminToken.path}\n`;
    const userLine = adminPassword.created
      ? `  Admin user:  ${FIRST_ADMIN_USERNAME} / ${adminPassword.token}\n               (shown once; stored in ${adminPassword.path})\n`
      : `  Admin user:  ${FIRST_ADMIN_USERNAME}, password created at first start, stored in ${adminPassword.path}\n`;
    process.stdout.write(`\nLanner standalone is ready.\n  API:         ${baseUrl}/api/v1\n${tokenLine}${userLine}\n`);
  });

  const port = config.grpc.port === 0 ? await freePortOn(config.grpc.host) : config.grpc.port;
  const wildcard = config.grpc.host === '0.0.0.0' || config.grpc.host === '::';
  return {
    adminToken: await readAdminToken(adminToken.path),
    workerSigningKey: await ensureWorkerSigningKey(config.dataDir),
    userSigningKey: await ensureUserSigningKey(config.dataDir),
    firstAdmin: { username: FIRST_ADMIN_USERNAME, password: await readAdminPassword(adminPassword.path) },
    grpc: { listen: { host: config.grpc.host, port }, connect: { host: wildcard ? '127.0.0.1' : config.grpc.host, port } },
    serverRoles: {
      database: { url: database.url, migrateAtStart: true },
      queue: { kind: 'in-process' },
    },
  };
}
