import { Readable } from 'node:stream';
import { parseStorageUri, type StorageUri } from './storage-uri';
import type { InternalStorage } from './storage.port';

// Controller discovery through internal storage, beside STATIC and DNS: each controller
// writes one small file naming its advertised gRPC endpoint under a well-known prefix and
// rewrites it with every refresh; workers with LANNER_WORKER_DISCOVERY=STORAGE list the
// prefix and dial the entries that have not expired. An entry carries its own expiry, so
// a worker needs no setting of the controller's refresh period, and the entry of a
// controller that died without deleting it stops counting once it expires.

/**
 * The entries live in the storage space of `instance`, which no tenant can be named
 * (it is an API path), so no tenant's files can collide with them or read them.
 */
export const CONTROLLER_REGISTRY_TENANT = 'instance';
const REGISTRY_PREFIX = 'kestra:///lanner/controllers';

/** One controller's entry: where workers reach it, and until when the entry counts. */
export interface ControllerRegistration {
  /** The controller's service instance id (one file per controller). */
  readonly instanceId: string;
  readonly host: string;
  readonly port: number;
  /** Epoch milliseconds of the last refresh. */
  readonly refreshedAt: number;
  /** Epoch milliseconds after which workers ignore the entry. */
  readonly expiresAt: number;
}

/** The live endpoints, and why some entries were left out (for logs). */
export interface LiveControllers {
  readonly endpoints: readonly { readonly host: string; readonly port: number }[];
  readonly problems: readonly string[];
}

function registryPrefix(): StorageUri {
  return parseStorageUri(REGISTRY_PREFIX);
}

function registrationUri(instanceId: string): StorageUri {
  return parseStorageUri(`${REGISTRY_PREFIX}/${encodeURIComponent(instanceId)}.json`);
}

/** Reads one entry's JSON; undefined (with the reason) when it is not an entry. */
export function parseRegistration(text: string): ControllerRegistration | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  const entry = value as Partial<ControllerRegistration> | null;
  if (
    entry === null ||
    typeof entry !== 'object' ||
    typeof entry.instanceId !== 'string' ||
    typeof entry.host !== 'string' ||
    entry.host.length === 0 ||
    !Number.isInteger(entry.port) ||
    (entry.port as number) < 1 ||
    (entry.port as number) > 65535 ||
    typeof entry.refreshedAt !== 'number' ||
    typeof entry.expiresAt !== 'number'
  ) {
    return 'not a controller entry (instanceId, host, port, refreshedAt, expiresAt)';
  }
  return entry as ControllerRegistration;
}

/**
 * The entries that count at `now`: not expired, one per endpoint (the freshest), in a
 * stable order (by instance id) so that every worker walks the same list.
 */
export function liveRegistrations(entries: readonly ControllerRegistration[], now: number): ControllerRegistration[] {
  const byEndpoint = new Map<string, ControllerRegistration>();
  for (const entry of entries) {
    if (entry.expiresAt <= now) continue;
    const key = `${entry.host}:${entry.port}`;
    const kept = byEndpoint.get(key);
    if (!kept || kept.refreshedAt < entry.refreshedAt) byEndpoint.set(key, entry);
  }
  return [...byEndpoint.values()].sort((a, b) => a.instanceId.localeCompare(b.instanceId));
}

/** Writes (or rewrites) a controller's entry. */
export async function registerController(storage: InternalStorage, entry: ControllerRegistration): Promise<void> {
  await storage.put(CONTROLLER_REGISTRY_TENANT, registrationUri(entry.instanceId), Readable.from([JSON.stringify(entry)]));
}

/** Removes a controller's entry (a graceful stop); true when there was one. */
export function deregisterController(storage: InternalStorage, instanceId: string): Promise<boolean> {
  return storage.delete(CONTROLLER_REGISTRY_TENANT, registrationUri(instanceId));
}

async function readSmall(storage: InternalStorage, uri: StorageUri): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of await storage.get(CONTROLLER_REGISTRY_TENANT, uri)) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    size += buffer.length;
    // An entry is ~150 bytes: anything much larger is not one, and is not read whole.
    if (size > 4096) throw new Error('over 4 KiB');
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The controllers workers should dial at `now`, read from the registry prefix. */
export async function liveControllers(storage: InternalStorage, now: number): Promise<LiveControllers> {
  const files = await storage.list(CONTROLLER_REGISTRY_TENANT, registryPrefix());
  const entries: ControllerRegistration[] = [];
  const problems: string[] = [];
  for (const file of files) {
    try {
      const parsed = parseRegistration(await readSmall(storage, parseStorageUri(file.uri)));
      if (typeof parsed === 'string') problems.push(`${file.uri}: ${parsed}`);
      else entries.push(parsed);
    } catch (error) {
      // Deleted between the listing and the read (a controller stopping), or unreadable.
      const reason = error instanceof Error ? error.message : String(error);
      if (!/does not exist/.test(reason)) problems.push(`${file.uri}: ${reason}`);
    }
  }
  const live = liveRegistrations(entries, now);
  if (live.length === 0) problems.push('no live controller entry in internal storage');
  return { endpoints: live.map(({ host, port }) => ({ host, port })), problems };
}
