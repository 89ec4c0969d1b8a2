import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DevServicesError } from './errors';
import { javaMajorVersion, KAFKA_MIN_JAVA } from './java-version';
import { kafkaJvmOptions } from './kafka-jvm';
import { gcLogOption } from './jvm-gc-log';
import { kafkaClusterId, kafkaLog4jProperties, kafkaServerProperties } from './kafka-properties';
import { KAFKA_DIR, KAFKA_GC_LOG, KAFKA_POM, userCacheDir } from './paths';
import { freeLoopbackPort, isOurProcessAlive, logTail, rememberedPorts, sleep } from './processes';
import { kafkaAnswers } from './readiness';
import type { RunningService } from './state';

/** The 4.x line resolves from Maven Central with its dependencies; 3.9 is the fallback line. */
export const KAFKA_VERSION = process.env['LANNER_KAFKA_VERSION'] ?? '4.1.1';

const READY_TIMEOUT_MS = 120_000;

/** Finds a Java 17+ binary: JAVA_HOME, then PATH, then the alternatives Debian registers. */
export function findJava(): string {
  const candidates: string[] = [];
  const javaHome = process.env['JAVA_HOME'];
  if (javaHome) candidates.push(join(javaHome, 'bin', 'java'));
  candidates.push('java');
  const alternatives = spawnSync('update-alternatives', ['--list', 'java'], { encoding: 'utf8', timeout: 5_000 });
  if (alternatives.status === 0) candidates.push(...alternatives.stdout.split('\n').filter((line) => line.trim()));
  for (const candidate of candidates) {
    const probe = spawnSync(candidate, ['-version'], { encoding: 'utf8', timeout: 15_000 });
    if (probe.error || probe.status !== 0) continue;
    const major = javaMajorVersion(`${probe.stderr}${probe.stdout}`);
    if (major !== undefined && major >= KAFKA_MIN_JAVA) return candidate;
  }
  throw new DevServicesError(
    `Java ${KAFKA_MIN_JAVA} or newer is needed to run Kafka locally: install a JDK or set KAFKA_BROKERS`,
  );
}

/**
 * The folder holding the broker's jars, fetched once with Maven into the user's cache.
 * A marker file is written last, so an interrupted fetch is redone rather than trusted.
 */
export function ensureKafkaJars(report: (line: string) => void): string {
  const cacheDir = join(userCacheDir(), `kafka-${KAFKA_VERSION}`);
  const libs = join(cacheDir, 'libs');
  const marker = join(cacheDir, '.complete');
  if (existsSync(marker)) return libs;

  const mvn = spawnSync('mvn', ['-v'], { encoding: 'utf8', timeout: 60_000 });
  if (mvn.error || mvn.status !== 0) {
    throw new DevServicesError('Maven (mvn) is needed once to fetch the Kafka jars: install Maven or set KAFKA_BROKERS');
  }
  report(`fetching Apache Kafka ${KAFKA_VERSION} jars from Maven Central into ${cacheDir} (once)`);
  const staging = join(cacheDir, `libs.partial-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(cacheDir, { recursive: true });
  const fetch = spawnSync(
    'mvn',
    [
      '-q',
      '-B',
      '-f',
      KAFKA_POM,
      `-Dkafka.version=${KAFKA_VERSION}`,
      'dependency:copy-dependencies',
      `-DoutputDirectory=${staging}`,
      '-DincludeScope=runtime',
    ],
    { encoding: 'utf8', timeout: 15 * 60_000, maxBuffer: 64 * 1024 * 1024 },
  );
  if (fetch.error || fetch.status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    const why = `${fetch.stdout ?? ''}${fetch.stderr ?? ''}`.trim().split('\n').slice(-5).join('\n');
    throw new DevServicesError(`Maven could not fetch the Kafka ${KAFKA_VERSION} jars:\n${why}`);
  }
  rmSync(libs, { recursive: true, force: true });
  renameSync(staging, libs);
  writeFileSync(marker, `${new Date().toISOString()}\n`);
  return libs;
}

/**
 * Starts a fresh single-node KRaft broker as a detached process. The log folder is
 * wiped and formatted on every start: test topics from a previous run are not
 * worth a recovery, and a clean cluster id avoids "inconsistent cluster" errors.
 */
export async function startLocalKafka(
  report: (line: string) => void,
  onSpawned: (service: RunningService) => void,
): Promise<RunningService> {
  const java = findJava();
  const libs = ensureKafkaJars(report);
  const classpath = join(libs, '*');

  const logDir = join(KAFKA_DIR, 'data');
  const propertiesFile = join(KAFKA_DIR, 'server.properties');
  const log4jFile = join(KAFKA_DIR, 'log4j2.properties');
  const logFile = join(KAFKA_DIR, 'kafka.log');
  rmSync(logDir, { recursive: true, force: true });
  mkdirSync(logDir, { recursive: true });

  const portsFile = join(KAFKA_DIR, 'ports');
  const [lastBroker, lastController] = rememberedPorts(portsFile);
  const brokerPort = await freeLoopbackPort(lastBroker);
  let controllerPort = await freeLoopbackPort(lastController);
  while (controllerPort === brokerPort) controllerPort = await freeLoopbackPort();
  writeFileSync(portsFile, `${brokerPort} ${controllerPort}\n`);
  writeFileSync(propertiesFile, kafkaServerProperties({ brokerPort, controllerPort, logDir }));
  writeFileSync(log4jFile, kafkaLog4jProperties());

  const jvmFlags = [
    ...kafkaJvmOptions(process.env),
    '-XX:+ExitOnOutOfMemoryError',
    '-Djava.awt.headless=true',
    `-Dlog4j2.configurationFile=${log4jFile}`,
    `-Dkafka.logs.dir=${KAFKA_DIR}`,
  ];

  const clusterId = kafkaClusterId(randomBytes);
  const format = spawnSync(
    java,
    [...jvmFlags, '-cp', classpath, 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', propertiesFile],
    { encoding: 'utf8', timeout: 120_000 },
  );
  if (format.error || format.status !== 0) {
    const why = `${format.stdout ?? ''}${format.stderr ?? ''}`.trim().split('\n').slice(-5).join('\n');
    throw new DevServicesError(`Formatting the Kafka storage failed:\n${why}`);
  }

  const out = openSync(logFile, 'w');
  const child = spawn(java, [...jvmFlags, gcLogOption(KAFKA_GC_LOG), '-cp', classpath, 'kafka.Kafka', propertiesFile], {
    cwd: KAFKA_DIR,
    detached: true,
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  const pid = child.pid;
  child.unref();
  if (pid === undefined) throw new DevServicesError(`Kafka did not start: see ${logFile}`);

  const handle = { kind: 'process', pid, commandMarker: propertiesFile, stopSignal: 'SIGTERM' } as const;
  const brokers = `127.0.0.1:${brokerPort}`;
  const service: RunningService = { source: 'local', connection: brokers, handle, logFile, startedAt: new Date().toISOString() };
  onSpawned(service);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (!isOurProcessAlive(handle)) {
      throw new DevServicesError(`Kafka exited while starting (log: ${logFile}):\n${logTail(logFile)}`);
    }
    if (await kafkaAnswers(brokers)) return service;
    await sleep(500);
  }
  throw new DevServicesError(`Kafka did not answer within ${READY_TIMEOUT_MS / 1000} s (log: ${logFile})`);
}
