import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DevServicesError } from './errors';
import { S3_DIR, SEAWEEDFS_INSTALLER } from './paths';
import { freeLoopbackPort, isOurProcessAlive, logTail, rememberedPorts, sleep } from './processes';
import { ensureBucket, s3Answers, type S3Access } from './readiness';
import type { RunningService } from './state';

/**
 * Development-only S3 credentials, region and bucket: the server listens on loopback
 * only and holds test data. They reach clients as the AWS SDK's own variables
 * (recorded in the state file, printed by `up`), so code under test uses the default
 * credential chain exactly as in production.
 */
export const DEV_S3 = {
  accessKeyId: 'lanner',
  secretAccessKey: 'lanner-dev-secret',
  region: 'us-east-1',
  bucket: 'lanner-dev',
} as const;

const READY_TIMEOUT_MS = 120_000;
const INSTALL_TIMEOUT_MS = 30 * 60_000;

/** The variables a client of the local server needs besides S3_ENDPOINT. */
export function devS3Env(): Record<string, string> {
  return {
    AWS_ACCESS_KEY_ID: DEV_S3.accessKeyId,
    AWS_SECRET_ACCESS_KEY: DEV_S3.secretAccessKey,
    AWS_REGION: DEV_S3.region,
    S3_BUCKET: DEV_S3.bucket,
  };
}

/** SeaweedFS's S3 identities file: one identity, the development keys, every action. */
export function devS3Identities(): string {
  return JSON.stringify({
    identities: [
      {
        name: 'lanner-dev',
        credentials: [{ accessKey: DEV_S3.accessKeyId, secretKey: DEV_S3.secretAccessKey }],
        actions: ['Admin', 'Read', 'Write', 'List', 'Tagging'],
      },
    ],
  });
}

/** Waits for the S3 gateway to answer a signed request, then makes the development bucket. */
export async function waitForS3(endpoint: string, alive: () => boolean | Promise<boolean>, logFile?: string): Promise<void> {
  const access: S3Access = { endpoint, ...DEV_S3 };
  const deadline = Date.now() + READY_TIMEOUT_MS;
  const where = logFile ? ` (log: ${logFile})` : '';
  while (Date.now() < deadline) {
    if (!(await alive())) {
      throw new DevServicesError(`SeaweedFS exited while starting${where}${logFile ? `:\n${logTail(logFile)}` : ''}`);
    }
    if (await s3Answers(access, 2_000)) {
      await ensureBucket(access, DEV_S3.bucket);
      return;
    }
    await sleep(500);
  }
  throw new DevServicesError(`SeaweedFS's S3 gateway did not answer within ${READY_TIMEOUT_MS / 1000} s${where}`);
}

/** `LANNER_WEED_BIN`, or the binary tools/ci/install-seaweedfs.sh builds into the user's cache (once). */
function weedBinary(report: (line: string) => void): string {
  const given = process.env['LANNER_WEED_BIN'];
  if (given) {
    if (!existsSync(given)) throw new DevServicesError(`LANNER_WEED_BIN names ${given}, which does not exist`);
    return given;
  }
  report('s3: finding or building SeaweedFS (tools/ci/install-seaweedfs.sh; the first build takes minutes)');
  const install = spawnSync('bash', [SEAWEEDFS_INSTALLER], {
    encoding: 'utf8',
    timeout: INSTALL_TIMEOUT_MS,
    maxBuffer: 16 * 1024 * 1024,
  });
  const path = install.stdout?.trim().split('\n').pop();
  if (install.error || install.status !== 0 || !path || !existsSync(path)) {
    const why = `${install.stderr ?? ''}`.trim().split('\n').slice(-5).join('\n');
    throw new DevServicesError(`SeaweedFS could not be installed (Go is needed to build it once):\n${why}`);
  }
  return path;
}

/**
 * Starts SeaweedFS (`weed server` with its filer and S3 gateway) on loopback, every port
 * picked free, with one identity holding the development keys. Its data is wiped on
 * every start, like Kafka's.
 */
export async function startLocalS3(
  report: (line: string) => void,
  onSpawned: (service: RunningService) => void,
): Promise<RunningService> {
  const weed = weedBinary(report);
  const dataDir = join(S3_DIR, 'data');
  const configFile = join(S3_DIR, 'identities.json');
  const logFile = join(S3_DIR, 'weed.log');
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(configFile, devS3Identities(), { mode: 0o600 });

  const portsFile = join(S3_DIR, 'ports');
  const remembered = rememberedPorts(portsFile);
  const ports: number[] = [];
  for (let index = 0; index < 8; index += 1) {
    let port = await freeLoopbackPort(remembered[index]);
    while (ports.includes(port)) port = await freeLoopbackPort();
    ports.push(port);
  }
  writeFileSync(portsFile, `${ports.join(' ')}\n`);
  const [master, masterGrpc, volume, volumeGrpc, filer, filerGrpc, s3, s3Grpc] = ports as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];

  const out = openSync(logFile, 'w');
  const child = spawn(
    weed,
    [
      'server',
      '-ip=127.0.0.1',
      '-ip.bind=127.0.0.1',
      `-dir=${dataDir}`,
      `-master.port=${master}`,
      `-master.port.grpc=${masterGrpc}`,
      // Small volumes: a test bucket does not reserve gigabytes of disk.
      '-master.volumeSizeLimitMB=256',
      `-volume.port=${volume}`,
      `-volume.port.grpc=${volumeGrpc}`,
      '-volume.max=0',
      '-filer',
      `-filer.port=${filer}`,
      `-filer.port.grpc=${filerGrpc}`,
      '-s3',
      `-s3.port=${s3}`,
      `-s3.port.grpc=${s3Grpc}`,
      '-s3.port.iceberg=0',
      '-s3.port.lance=0',
      '-s3.iam=false',
      `-s3.config=${configFile}`,
    ],
    { cwd: S3_DIR, detached: true, stdio: ['ignore', out, out] },
  );
  closeSync(out);
  const pid = child.pid;
  child.unref();
  if (pid === undefined) throw new DevServicesError(`SeaweedFS did not start: see ${logFile}`);

  const handle = { kind: 'process', pid, commandMarker: dataDir, stopSignal: 'SIGTERM' } as const;
  const endpoint = `http://127.0.0.1:${s3}`;
  const service: RunningService = {
    source: 'local',
    connection: endpoint,
    extraEnv: devS3Env(),
    handle,
    logFile,
    startedAt: new Date().toISOString(),
  };
  onSpawned(service);
  await waitForS3(endpoint, () => isOurProcessAlive(handle), logFile);
  return service;
}
