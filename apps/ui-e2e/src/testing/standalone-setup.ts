import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '@lanner/testing';

const WORKSPACE = resolve(__dirname, '..', '..', '..', '..');
const READY_DEADLINE_MS = 120_000;
/** The standalone's user access-token lifetime, seconds (LANNER_USER_ACCESS_TOKEN_TTL_S). */
export const USER_ACCESS_TOKEN_TTL_S = 6;
/** Failed logins in a row that lock a user (LANNER_USER_MAX_FAILED_LOGINS). */
export const USER_MAX_FAILED_LOGINS = 3;
/** The environment variable naming the state file the specs read (see server.ts). */
export const UI_E2E_STATE = 'LANNER_UI_E2E_STATE';

export interface UiE2eState {
  readonly baseUrl: string;
  readonly adminToken: string;
  readonly workDir: string;
  readonly logFile: string;
}

/** Shared with standalone-teardown.ts, which Jest runs in this same process. */
export interface StandaloneHolder {
  __lannerUiStandalone?: { child: ChildProcess; workDir: string; exited: Promise<void> };
}

async function ready(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(2000) })).ok;
  } catch {
    return false;
  }
}

/** `lanner server standalone`, as `npm start` runs it, in a fresh folder on free ports. */
export default async function standaloneSetup(): Promise<void> {
  if (!existsSync(join(WORKSPACE, 'apps', 'ui', 'dist', 'index.html'))) {
    throw new Error('the UI bundle is missing: run `npx nx run ui:build` (the ui-e2e integration target does so first)');
  }
  const workDir = mkdtempSync(join(tmpdir(), 'lanner-ui-e2e-'));
  // As root, the embedded PostgreSQL runs as `postgres`, who must pass this folder to keep its cluster inside it.
  chmodSync(workDir, 0o755);
  const [httpPort, databasePort, grpcPort] = await Promise.all([freePort(), freePort(), freePort()]);
  const logFile = join(workDir, 'standalone.log');
  const output = openSync(logFile, 'a');
  const child = spawn(process.execPath, [join(WORKSPACE, 'bin', 'lanner.js'), 'server', 'standalone'], {
    cwd: workDir,
    env: {
      ...process.env,
      LANNER_LOG_LEVEL: 'info',
      LANNER_HTTP_PORT: String(httpPort),
      LANNER_EMBEDDED_DB_PORT: String(databasePort),
      LANNER_GRPC_PORT: String(grpcPort),
      // A user's access JWT lives a few seconds, so the session specs see the UI renew it through the refresh cookie.
      LANNER_USER_ACCESS_TOKEN_TTL_S: String(USER_ACCESS_TOKEN_TTL_S),
      LANNER_USER_MAX_FAILED_LOGINS: String(USER_MAX_FAILED_LOGINS),
    },
    stdio: ['ignore', output, output],
  });
  closeSync(output);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  (globalThis as StandaloneHolder).__lannerUiStandalone = { child, workDir, exited };

  const baseUrl = `http://127.0.0.1:${httpPort}`;
  const startedAt = Date.now();
  while (!(await ready(baseUrl))) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`standalone exited before it was ready; log: ${logFile}`);
    if (Date.now() - startedAt > READY_DEADLINE_MS)
      throw new Error(`standalone was not ready within ${READY_DEADLINE_MS / 1000} s; log: ${logFile}`);
    await new Promise((wait) => setTimeout(wait, 250));
  }
  const state: UiE2eState = {
    baseUrl,
    adminToken: readFileSync(join(workDir, '.lanner', 'admin-token'), 'utf8').trim(),
    workDir,
    logFile,
  };
  const stateFile = join(workDir, 'ui-e2e.json');
  writeFileSync(stateFile, JSON.stringify(state));
  process.env[UI_E2E_STATE] = stateFile;
  process.stdout.write(
    `\nlanner ui-e2e: standalone ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s at ${baseUrl}; log in ${logFile}\n`,
  );
}
