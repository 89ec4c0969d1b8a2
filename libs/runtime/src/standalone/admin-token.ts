import { randomBytes } from 'node:crypto';
import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export type AdminToken =
  { readonly created: true; readonly path: string; readonly token: string } | { readonly created: false; readonly path: string };

const OWNER_ONLY = 0o600;

/**
 * The bootstrap admin token of a standalone installation: 256 random bits,
 * created at first start in `<dataDir>/admin-token` (mode 0600). Its value is
 * returned only when it was just created, so it is shown once.
 */
export function ensureAdminToken(dataDir: string): Promise<AdminToken> {
  return ensureSecretFile(join(dataDir, 'admin-token'), 'lanner_admin_', 'admin token');
}

/**
 * The key that signs standalone's worker access tokens: 256 random bits in
 * `<dataDir>/worker-jwt-signing-key` (mode 0600), kept across restarts so that
 * issued tokens stay valid.
 */
export async function ensureWorkerSigningKey(dataDir: string): Promise<string> {
  const file = await ensureSecretFile(join(dataDir, 'worker-jwt-signing-key'), '', 'worker JWT signing key');
  return readSecretFile(file.path, 'worker JWT signing key');
}

/** The key that signs standalone's user access JWTs, in `<dataDir>/user-jwt-signing-key` (mode 0600). */
export async function ensureUserSigningKey(dataDir: string): Promise<string> {
  const file = await ensureSecretFile(join(dataDir, 'user-jwt-signing-key'), '', 'user JWT signing key');
  return readSecretFile(file.path, 'user JWT signing key');
}

/** The first admin user's name: created with the password below when no user exists yet. */
export const FIRST_ADMIN_USERNAME = 'admin';

/**
 * The first admin user's password: 256 random bits in `<dataDir>/admin-password`
 * (mode 0600), created at first start; its value is returned only then, so it is shown once.
 */
export function ensureAdminPassword(dataDir: string): Promise<AdminToken> {
  return ensureSecretFile(join(dataDir, 'admin-password'), '', 'admin password');
}

/** The stored first-admin password, for the api role to create the user with (it stores only its hash). */
export function readAdminPassword(path: string): Promise<string> {
  return readSecretFile(path, 'admin password');
}

async function ensureSecretFile(path: string, prefix: string, what: string): Promise<AdminToken> {
  const token = `${prefix}${randomBytes(32).toString('base64url')}`;
  try {
    // `wx` fails when the file exists: a second start never replaces the token.
    await writeFile(path, `${token}\n`, { mode: OWNER_ONLY, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const existing = await stat(path);
    if ((existing.mode & 0o777) !== OWNER_ONLY) await chmod(path, OWNER_ONLY);
    if ((await readFile(path, 'utf8')).trim() === '') throw new Error(`${path} is empty: delete it to create a new ${what}`);
    return { created: false, path };
  }
  // The umask may have cleared bits but never adds any; chmod makes the mode exact.
  await chmod(path, OWNER_ONLY);
  return { created: true, path, token };
}

/** The stored token, for the api role to accept (it stores only its hash). Never logged. */
export function readAdminToken(path: string): Promise<string> {
  return readSecretFile(path, 'admin token');
}

async function readSecretFile(path: string, what: string): Promise<string> {
  const value = (await readFile(path, 'utf8')).trim();
  if (value === '') throw new Error(`${path} is empty: delete it to create a new ${what}`);
  return value;
}
