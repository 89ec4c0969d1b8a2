import { isIP } from 'node:net';
import type { Endpoint } from '@lanner/runtime';

/** How the worker finds its controllers (LANNER_WORKER_DISCOVERY): from `LANNER_WORKER_CONTROLLERS`, or from internal storage. */
export type DiscoveryMode = 'STATIC' | 'DNS' | 'SRV' | 'STORAGE';

/** The controllers registered in internal storage (STORAGE discovery); `liveControllers` of `@lanner/storage` in production. */
export type ControllerRegistry = () => Promise<ResolvedControllers>;

export interface SrvAnswer {
  readonly name: string;
  readonly port: number;
  readonly priority: number;
  readonly weight: number;
}

/** The DNS questions discovery asks; `node:dns/promises` in production, a fake in unit tests. */
export interface ControllerResolver {
  resolve4(host: string): Promise<string[]>;
  resolve6(host: string): Promise<string[]>;
  resolveSrv(name: string): Promise<SrvAnswer[]>;
  /** The system resolver (hosts file, then DNS), for names DNS servers do not know, such as `localhost`. */
  lookup(host: string): Promise<string[]>;
}

export interface ResolvedControllers {
  readonly endpoints: readonly Endpoint[];
  /** One line per entry that gave no address, for logs. */
  readonly problems: readonly string[];
}

const sameEndpoint = (a: Endpoint, b: Endpoint) => a.host === b.host && a.port === b.port;

function withoutDuplicates(endpoints: readonly Endpoint[]): Endpoint[] {
  const kept: Endpoint[] = [];
  for (const endpoint of endpoints) if (!kept.some((other) => sameEndpoint(other, endpoint))) kept.push(endpoint);
  return kept;
}

function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code ?? (error instanceof Error ? error.message : String(error));
}

async function addressesOf(host: string, resolver: ControllerResolver): Promise<string[]> {
  if (isIP(host) !== 0) return [host];
  const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
  const addresses = [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])];
  if (addresses.length > 0) return addresses;
  try {
    return await resolver.lookup(host);
  } catch (error) {
    const failed = v4.status === 'rejected' ? v4.reason : v6.status === 'rejected' ? v6.reason : error;
    throw new Error(`${host} has no A or AAAA record (${reasonOf(failed)})`);
  }
}

/** SRV answers in the order to try them: lowest priority first, then the heaviest weight. */
export function orderSrvAnswers(answers: readonly SrvAnswer[]): SrvAnswer[] {
  return [...answers].sort(
    (a, b) => a.priority - b.priority || b.weight - a.weight || a.name.localeCompare(b.name) || a.port - b.port,
  );
}

/**
 * The controller endpoints the configured entries stand for: STATIC keeps them
 * as given; DNS turns every entry into one endpoint per A/AAAA address, with the
 * entry's port; SRV reads every entry's host as an SRV name whose records give
 * host and port. Order follows the entries, then the answers.
 */
export async function resolveControllers(
  mode: Exclude<DiscoveryMode, 'STORAGE'>,
  entries: readonly Endpoint[],
  resolver: ControllerResolver,
): Promise<ResolvedControllers> {
  if (mode === 'STATIC') return { endpoints: withoutDuplicates(entries), problems: [] };
  const endpoints: Endpoint[] = [];
  const problems: string[] = [];
  for (const entry of entries) {
    try {
      if (mode === 'DNS') {
        for (const address of await addressesOf(entry.host, resolver)) endpoints.push({ host: address, port: entry.port });
      } else {
        const answers = await resolver.resolveSrv(entry.host).catch((error: unknown) => {
          throw new Error(`${entry.host} has no SRV record (${reasonOf(error)})`);
        });
        if (answers.length === 0) throw new Error(`${entry.host} has no SRV record`);
        for (const answer of orderSrvAnswers(answers))
          endpoints.push({ host: answer.name.replace(/\.$/, ''), port: answer.port });
      }
    } catch (error) {
      problems.push(error instanceof Error ? error.message : String(error));
    }
  }
  return { endpoints: withoutDuplicates(endpoints), problems };
}

/**
 * The controller to try after `last`: the one that follows it in `list`
 * (wrapping around), so a recycled or failed stream moves on rather than
 * returning to the same controller. The first one when `last` is no longer listed.
 */
export function nextController(list: readonly Endpoint[], last: Endpoint | undefined): Endpoint | undefined {
  if (list.length === 0) return undefined;
  const index = last ? list.findIndex((endpoint) => sameEndpoint(endpoint, last)) : -1;
  return list[(index + 1) % list.length];
}

export interface ControllerDirectoryOptions {
  readonly mode: DiscoveryMode;
  readonly entries: readonly Endpoint[];
  readonly refreshMs: number;
  readonly resolver: ControllerResolver;
  /** Where STORAGE discovery reads the registered controllers; required in that mode. */
  readonly registry?: ControllerRegistry;
  readonly now: () => number;
  /** Told when the list changed or an entry gave no address. */
  readonly onChange?: (endpoints: readonly Endpoint[], problems: readonly string[]) => void;
}

/**
 * The current list of controllers. Resolution is lazy: the list is resolved
 * again when it is older than `refreshMs` and the worker is about to connect,
 * so a changed list is used at the next connect. A resolution that gives no
 * address keeps the last good list.
 */
export class ControllerDirectory {
  private endpoints: readonly Endpoint[] = [];
  private problems: readonly string[] = [];
  private resolvedAt: number | undefined;

  constructor(private readonly options: ControllerDirectoryOptions) {}

  /** The controllers to walk now, and why some entries gave none. */
  async current(): Promise<ResolvedControllers> {
    const { mode, entries, refreshMs, resolver, registry, now, onChange } = this.options;
    const due = this.resolvedAt === undefined || (mode !== 'STATIC' && now() - this.resolvedAt >= refreshMs);
    if (due) {
      const resolved = mode === 'STORAGE' ? await this.registered(registry) : await resolveControllers(mode, entries, resolver);
      this.resolvedAt = now();
      const changed =
        resolved.endpoints.length > 0 &&
        (resolved.endpoints.length !== this.endpoints.length ||
          resolved.endpoints.some((endpoint, index) => !sameEndpoint(endpoint, this.endpoints[index])));
      const problemsChanged = resolved.problems.join('\n') !== this.problems.join('\n');
      if (resolved.endpoints.length > 0) this.endpoints = resolved.endpoints;
      this.problems = resolved.problems;
      if ((changed || problemsChanged) && onChange) onChange(this.endpoints, this.problems);
    }
    return { endpoints: this.endpoints, problems: this.problems };
  }

  private async registered(registry: ControllerRegistry | undefined): Promise<ResolvedControllers> {
    if (!registry) return { endpoints: [], problems: ['STORAGE discovery has no internal storage to read'] };
    try {
      const found = await registry();
      return { endpoints: withoutDuplicates(found.endpoints), problems: found.problems };
    } catch (error) {
      return { endpoints: [], problems: [`cannot read the controllers registered in internal storage: ${reasonOf(error)}`] };
    }
  }
}
