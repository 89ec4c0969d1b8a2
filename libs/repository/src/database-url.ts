import { DatabaseUnavailable } from './errors';

/** The environment variable every message about the connection names. */
export const DATABASE_URL_VARIABLE = 'DATABASE_URL';

/**
 * Parses a PostgreSQL URL, refusing anything else with a message that names
 * DATABASE_URL and never echoes the password.
 */
export function parseDatabaseUrl(databaseUrl: string | undefined): URL {
  if (databaseUrl === undefined || databaseUrl.trim() === '') {
    throw new DatabaseUnavailable(`${DATABASE_URL_VARIABLE} is not set; expected postgresql://user:password@host:port/database`);
  }
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    throw new DatabaseUnavailable(
      `${DATABASE_URL_VARIABLE} is not a valid URL; expected postgresql://user:password@host:port/database`,
    );
  }
  if (url.protocol !== 'postgresql:' && url.protocol !== 'postgres:') {
    throw new DatabaseUnavailable(
      `${DATABASE_URL_VARIABLE} must use the postgresql:// scheme, got '${url.protocol.replace(/:$/, '')}' (${redactDatabaseUrl(databaseUrl)})`,
    );
  }
  if (url.hostname === '' || url.pathname.length <= 1) {
    throw new DatabaseUnavailable(`${DATABASE_URL_VARIABLE} must name a host and a database (${redactDatabaseUrl(databaseUrl)})`);
  }
  return url;
}

/** The URL with its password replaced, safe for logs and error messages. */
export function redactDatabaseUrl(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    if (url.password !== '') url.password = '***';
    for (const key of [...url.searchParams.keys()]) {
      if (/pass|secret|key/i.test(key)) url.searchParams.set(key, '***');
    }
    return url.toString();
  } catch {
    // Unparseable: show nothing of it rather than risk echoing a password.
    return '<unparseable URL>';
  }
}

/** The database name in the URL's path. */
export function databaseNameOf(databaseUrl: string): string {
  return decodeURIComponent(parseDatabaseUrl(databaseUrl).pathname.slice(1));
}

/** The same server and credentials, another database. */
export function withDatabaseName(databaseUrl: string, databaseName: string): string {
  const url = parseDatabaseUrl(databaseUrl);
  url.pathname = `/${encodeURIComponent(databaseName)}`;
  return url.toString();
}

/**
 * Turns a driver error into a message a person can act on. Only the error
 * code and the redacted URL are used: driver messages can contain the
 * password (authentication) or SQL, so they are never passed on.
 */
export function describeConnectionFailure(databaseUrl: string, error: unknown): DatabaseUnavailable {
  const where = redactDatabaseUrl(databaseUrl);
  const code = typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : '';
  switch (code) {
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
      return new DatabaseUnavailable(`cannot reach the database at ${where} (${code}); check ${DATABASE_URL_VARIABLE}`);
    case '28P01':
    case '28000':
      return new DatabaseUnavailable(`the database at ${where} refused the credentials; check ${DATABASE_URL_VARIABLE}`);
    case '3D000':
      return new DatabaseUnavailable(`the database named in ${DATABASE_URL_VARIABLE} does not exist (${where})`);
    default:
      return new DatabaseUnavailable(
        `cannot use the database at ${where}${code ? ` (${code})` : ''}; check ${DATABASE_URL_VARIABLE}`,
      );
  }
}
