import { DevServicesError } from './errors';
import { STATE_FILE } from './paths';
import { ENV_VARIABLE, SERVICE_NAMES, servicesDown, servicesStatus, servicesUp, type ServiceOutcome } from './services';
import type { ServiceName } from './state';

const USAGE = `usage: node tools/dev-services/cli.js <command>
  up                   start Kafka, PostgreSQL and an S3-compatible store (SeaweedFS) unless
                       KAFKA_BROKERS / DATABASE_URL / S3_ENDPOINT are set (idempotent)
  down [kafka|postgres|s3] stop what "up" started (all by default)
  status [--json]      show each service; exit 0 only when all answer`;

const say = (line: string): void => void process.stdout.write(`${line}\n`);
const progress = (line: string): void => void process.stderr.write(`dev-services: ${line}\n`);

function outcomeLine(outcome: ServiceOutcome): string {
  const where = outcome.pid !== undefined ? `${outcome.source}, pid ${outcome.pid}` : outcome.source;
  switch (outcome.action) {
    case 'given':
      return `${outcome.name}: given by ${ENV_VARIABLE[outcome.name]}, nothing started`;
    case 'reused':
      return `${outcome.name}: already running (${where})`;
    case 'started':
      return `${outcome.name}: started (${where}) in ${(outcome.seconds ?? 0).toFixed(1)} s`;
  }
}

/** `VARIABLE=value` lines for one service: its connection, then what else a client needs. */
function envLines(service: Pick<ServiceOutcome, 'name' | 'connection' | 'extraEnv'>): string {
  const extra = Object.entries(service.extraEnv ?? {}).map(([name, value]) => `${name}=${value}`);
  return [`${ENV_VARIABLE[service.name]}=${service.connection}`, ...extra].join('\n');
}

function parseServiceNames(args: readonly string[]): ServiceName[] {
  const unknown = args.filter((arg) => !(SERVICE_NAMES as readonly string[]).includes(arg));
  if (unknown.length > 0) throw new DevServicesError(`unknown service "${unknown[0]}": expected kafka, postgres or s3`);
  return args.length > 0 ? (args as ServiceName[]) : [...SERVICE_NAMES];
}

export async function runCli(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'up': {
        const outcomes = await servicesUp(progress);
        outcomes.forEach((outcome) => say(outcomeLine(outcome)));
        outcomes.forEach((outcome) => say(envLines(outcome)));
        say(`# state: ${STATE_FILE}`);
        return 0;
      }
      case 'down':
        await servicesDown(say, parseServiceNames(rest));
        return 0;
      case 'status': {
        const statuses = await servicesStatus();
        if (rest.includes('--json')) {
          say(JSON.stringify(statuses, null, 2));
        } else {
          for (const status of statuses) {
            const where = status.pid !== undefined ? `${status.source}, pid ${status.pid}` : status.source;
            const health = status.source === 'none' ? 'not running' : status.ready ? 'ready' : 'NOT answering';
            say(`${status.name}: ${health} (${where})${status.logFile && !status.ready ? ` log: ${status.logFile}` : ''}`);
          }
          statuses
            .filter((status) => status.ready && status.connection)
            .forEach((status) => say(envLines({ ...status, connection: status.connection ?? '' })));
        }
        return statuses.every((status) => status.ready) ? 0 : 3;
      }
      default:
        process.stderr.write(`${USAGE}\n`);
        return command === undefined || command === 'help' || command === '--help' ? 0 : 2;
    }
  } catch (error) {
    // One clear line for the developer; details are in the log files the message names.
    const message = error instanceof DevServicesError ? error.message : `unexpected failure: ${(error as Error).message}`;
    process.stderr.write(`dev-services: ${message}\n`);
    return 1;
  }
}
