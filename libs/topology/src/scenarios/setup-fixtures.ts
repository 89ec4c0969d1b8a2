// Builders shared by the scenario specs (not exported from the lib).
import type { WorkerQueue } from '@lanner/worker-selector';
import {
  validateSetup,
  type ExistingTopology,
  type RegisteredTokenLookup,
  type SetupValidation,
  type TokenFileReader,
} from '../index';

/** Well-formed tokens: 43 URL-safe base64 characters each. */
export const TOKEN_A = 'A'.repeat(22) + 'b-_'.repeat(7);
export const TOKEN_B = 'Zq9'.repeat(14) + 'x';
export const TOKEN_C = 'c'.repeat(43);

/** An in-memory file system: a missing path reads as ENOENT. */
export function filesWith(files: Record<string, string>): TokenFileReader {
  return {
    read: (path) => (path in files ? { readable: true, content: files[path] } : { readable: false, reason: 'ENOENT' }),
  };
}

/** Token values already registered, by owning group. */
export function registered(owners: Record<string, string> = {}): RegisteredTokenLookup {
  return { groupOwning: (token) => owners[token.reveal()] };
}

export const NOTHING_EXISTS: ExistingTopology = { workerQueues: [], workerGroupIds: [] };

export function existingQueues(...queues: WorkerQueue[]): ExistingTopology {
  return { workerQueues: queues, workerGroupIds: [] };
}

export function validate(
  setup: unknown,
  existing: ExistingTopology = NOTHING_EXISTS,
  files: Record<string, string> = {},
  owners: Record<string, string> = {},
): SetupValidation {
  return validateSetup(setup, existing, { tokenFiles: filesWith(files), registeredTokens: registered(owners) });
}

export function problemsOf(result: SetupValidation): Array<{ path: string; message: string }> {
  return result.ok ? [] : result.problems;
}
