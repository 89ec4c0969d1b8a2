import type { SecretSource } from '../task-runner.port';

/** The prefix of a worker environment variable that holds a secret, as in Kestra. */
export const SECRET_ENV_PREFIX = 'SECRET_';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A secret variable exists but is not base64; raised so the task fails naming it, not its value. */
export class UnreadableSecretError extends Error {
  override readonly name = 'UnreadableSecretError';
  constructor(readonly secretName: string) {
    super(`secret '${secretName}' on this worker is not valid base64 (variable ${SECRET_ENV_PREFIX}${secretName})`);
  }
}

/**
 * The worker's default secret source, Kestra's convention: `secret('DB_PASSWORD')`
 * reads the variable `SECRET_DB_PASSWORD`, whose value is the secret encoded in
 * base64 (so values with newlines or quotes survive env files and Helm values).
 * The name is used exactly as written.
 */
export function environmentSecretSource(env: NodeJS.ProcessEnv = process.env): SecretSource {
  return (name) => {
    const encoded = env[SECRET_ENV_PREFIX + name];
    if (encoded === undefined) return undefined;
    const compact = encoded.replace(/\s+/g, '');
    if (!BASE64.test(compact) || compact.length % 4 === 1) throw new UnreadableSecretError(name);
    return Buffer.from(compact, 'base64').toString('utf8');
  };
}
