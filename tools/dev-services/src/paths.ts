import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** The workspace root: this file lives in tools/dev-services/src. */
export const WORKSPACE_ROOT = resolve(__dirname, '..', '..', '..');

/** Data, logs and the state file; gitignored, never inside a project folder. */
export const SERVICES_DIR = join(WORKSPACE_ROOT, '.dev-services');
export const STATE_FILE = join(SERVICES_DIR, 'state.json');
export const LOCK_FILE = join(SERVICES_DIR, 'up.lock');

export const KAFKA_DIR = join(SERVICES_DIR, 'kafka');
/** The local broker's GC log (see jvm-gc-log.ts). */
export const KAFKA_GC_LOG = join(KAFKA_DIR, 'gc.log');
export const POSTGRES_DIR = join(SERVICES_DIR, 'postgres');
export const S3_DIR = join(SERVICES_DIR, 's3');

export const SEAWEEDFS_INSTALLER = join(WORKSPACE_ROOT, 'tools', 'ci', 'install-seaweedfs.sh');

export const KAFKA_POM = join(WORKSPACE_ROOT, 'tools', 'dev-services', 'pom.xml');

/** Per-user cache (XDG), so the Kafka jars are fetched once per machine, not per clone. */
export function userCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env['XDG_CACHE_HOME'];
  return xdg && xdg.length > 0 ? join(xdg, 'lanner') : join(homedir(), '.cache', 'lanner');
}
