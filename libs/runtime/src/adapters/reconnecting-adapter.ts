import { DependencyDownError } from '../health/readiness-checks';
import type { ManagedAdapter } from './adapter-pool';

export interface ReconnectingAdapterOptions<T extends ManagedAdapter> {
  readonly dependency: string;
  readonly open: () => Promise<T>;
  /** Told about each failed attempt to open (the start attempt and each readiness check until one succeeds). */
  readonly onOpenFailed: (error: unknown) => void;
}

/**
 * Opens an adapter, and when its dependency is down at start returns a stand-in
 * instead of failing the process: a role whose database is briefly unreachable
 * stays up, answers `/health/ready` with 503 naming the dependency, and tries
 * again at each readiness check (an orchestrator probes it on a schedule).
 * Until the adapter is open, any use other than ping/close throws
 * DependencyDownError, as a use would while the dependency is down later on.
 */
const PROBED_PROPERTIES = new Set([
  'then',
  'constructor',
  'toJSON',
  'onModuleInit',
  'onApplicationBootstrap',
  'onModuleDestroy',
  'beforeApplicationShutdown',
  'onApplicationShutdown',
]);

export async function openReconnecting<T extends ManagedAdapter>(options: ReconnectingAdapterOptions<T>): Promise<T> {
  try {
    return await options.open();
  } catch (error) {
    options.onOpenFailed(error);
  }

  let adapter: T | undefined;
  let opening: Promise<T> | undefined;
  let closed = false;
  const openOnce = (): Promise<T> => {
    opening ??= options.open().then(
      (opened) => {
        if (closed) return opened.close().then(() => Promise.reject(new DependencyDownError(`${options.dependency} closed`)));
        adapter = opened;
        return opened;
      },
      (error: unknown) => {
        opening = undefined;
        options.onOpenFailed(error);
        throw error;
      },
    );
    return opening;
  };

  const standIn: ManagedAdapter = {
    ping: async () => (await openOnce()).ping(),
    close: async () => {
      closed = true;
      await adapter?.close();
    },
  };
  return new Proxy(standIn, {
    get(target, property, receiver) {
      if (property === 'ping' || property === 'close') return Reflect.get(target, property, receiver);
      if (adapter === undefined) {
        // Probes by `await` (then) and by Nest (lifecycle hooks) must see a plain object, not an error.
        if (typeof property === 'symbol' || PROBED_PROPERTIES.has(property)) return undefined;
        throw new DependencyDownError(`${options.dependency} is not connected yet`);
      }
      const value: unknown = Reflect.get(adapter, property);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(adapter) : value;
    },
  }) as T;
}
