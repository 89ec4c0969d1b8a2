import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** What a worker keeps between restarts: the pair of tokens WorkerAuthService issued, and who they say it is. */
export interface StoredCredentials {
  readonly workerId: string;
  readonly workerGroupId: string;
  readonly accessToken: string;
  readonly accessExpiresAt: Date;
  readonly refreshToken: string;
  readonly refreshExpiresAt: Date;
}

const OWNER_ONLY = 0o600;
const FORMAT_VERSION = 1;

/** The credentials file cannot be used; the message names the file and never carries a token. */
export class CredentialsFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialsFileError';
  }
}

function text(value: unknown, field: string, path: string): string {
  if (typeof value !== 'string' || value === '') throw new CredentialsFileError(`${path}: field "${field}" is missing or empty`);
  return value;
}

function time(value: unknown, field: string, path: string): Date {
  const date = new Date(text(value, field, path));
  if (Number.isNaN(date.getTime())) throw new CredentialsFileError(`${path}: field "${field}" is not a date`);
  return date;
}

/** The stored credentials, or undefined when the file does not exist. */
export async function readCredentials(path: string): Promise<StoredCredentials | undefined> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new CredentialsFileError(`${path} cannot be read (${code ?? 'unknown error'})`);
  }
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    throw new CredentialsFileError(`${path} is not valid JSON`);
  }
  if (parsed === null || typeof parsed !== 'object') throw new CredentialsFileError(`${path} does not hold a JSON object`);
  if (parsed['version'] !== FORMAT_VERSION) throw new CredentialsFileError(`${path}: field "version" must be ${FORMAT_VERSION}`);
  return {
    workerId: text(parsed['workerId'], 'workerId', path),
    workerGroupId: text(parsed['workerGroupId'], 'workerGroupId', path),
    accessToken: text(parsed['accessToken'], 'accessToken', path),
    accessExpiresAt: time(parsed['accessExpiresAt'], 'accessExpiresAt', path),
    refreshToken: text(parsed['refreshToken'], 'refreshToken', path),
    refreshExpiresAt: time(parsed['refreshExpiresAt'], 'refreshExpiresAt', path),
  };
}

/**
 * Replaces the stored credentials atomically (a temporary file in the same
 * directory, then a rename), so a crash never leaves half a file, and with
 * mode 0600, checked after the rename.
 */
export async function writeCredentials(path: string, credentials: StoredCredentials): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  const body = JSON.stringify(
    {
      version: FORMAT_VERSION,
      workerId: credentials.workerId,
      workerGroupId: credentials.workerGroupId,
      accessToken: credentials.accessToken,
      accessExpiresAt: credentials.accessExpiresAt.toISOString(),
      refreshToken: credentials.refreshToken,
      refreshExpiresAt: credentials.refreshExpiresAt.toISOString(),
    },
    null,
    2,
  );
  try {
    await writeFile(temporary, `${body}\n`, { mode: OWNER_ONLY, flag: 'w' });
    // The umask may clear bits but never adds any; chmod makes the mode exact before the file is visible.
    await chmod(temporary, OWNER_ONLY);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw new CredentialsFileError(`${path} cannot be written (${(error as NodeJS.ErrnoException).code ?? 'unknown error'})`);
  }
  const mode = (await stat(path)).mode & 0o777;
  if (mode !== OWNER_ONLY) {
    await chmod(path, OWNER_ONLY);
    if (((await stat(path)).mode & 0o777) !== OWNER_ONLY)
      throw new CredentialsFileError(`${path} cannot be made readable by its owner only (mode 0600)`);
  }
}
