import { NAMESPACE_PATTERN, RedactedSecret } from '@lanner/model';
import { isTenantRole, TENANT_ROLES, type TenantRole } from './permissions';

/**
 * API tokens in the declarative setup (`setup.apiTokens`): the token value is
 * given by the operator (from an environment placeholder) so that CI knows it
 * before Lanner starts. Seed semantics: a tenant's token of that name that
 * already exists is left alone.
 */

/** 43 to 512 URL-safe base64 characters: at least the 256 random bits a minted token carries. */
const API_TOKEN_VALUE = /^[A-Za-z0-9_-]{43,512}$/;
const FIELDS = ['tenant', 'name', 'role', 'namespace', 'token', 'tokenFile'];

/** A declared token value: only `reveal()` gives it out (to the code that hashes it), never a log line or JSON. */
export class ApiTokenSecret extends RedactedSecret {
  constructor(value: string) {
    super(value, 'API token');
  }
}

export interface DeclaredApiToken {
  readonly tenantId: string;
  readonly name: string;
  readonly role: TenantRole;
  readonly namespace: string | null;
  readonly secret: ApiTokenSecret;
}

/** Reads secret files for the validator; apps implement it over the file system (a relative path is the setup file's). */
export interface SecretFileReader {
  /** The whole file, or a short reason (`ENOENT`, `EACCES`) that never holds its content. */
  read(path: string): { readable: true; content: string } | { readable: false; reason: string };
}

/** What the token entries are checked against: the secret files, and the tenants a token may name. */
export interface ApiTokenSetupSources {
  readonly files?: SecretFileReader;
  /** Whether the tenant exists or is declared in the same setup; every tenant passes when absent. */
  readonly tenantKnown?: (tenantId: string) => boolean;
}

export interface ApiTokenSetupProblem {
  readonly path: string;
  readonly message: string;
}

export type ApiTokenSetupResult =
  { readonly ok: true; readonly tokens: DeclaredApiToken[] } | { readonly ok: false; readonly problems: ApiTokenSetupProblem[] };

/** Validates `setup.apiTokens` whole: every problem with its path, and no value in any message. */
export function validateApiTokenSetup(
  value: unknown,
  sources: ApiTokenSetupSources = {},
  path = 'setup.apiTokens',
): ApiTokenSetupResult {
  if (value === undefined || value === null) return { ok: true, tokens: [] };
  if (!Array.isArray(value)) return { ok: false, problems: [{ path, message: 'must be a list of API tokens' }] };
  const problems: ApiTokenSetupProblem[] = [];
  const tokens: DeclaredApiToken[] = [];
  const seen = new Set<string>();
  value.forEach((entry: unknown, index) => {
    const at = `${path}[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push({ path: at, message: 'must be an object: { tenant, name, role, namespace?, token | tokenFile }' });
      return;
    }
    const fields = entry as Record<string, unknown>;
    const before = problems.length;
    for (const key of Object.keys(fields))
      if (!FIELDS.includes(key))
        problems.push({ path: `${at}.${key}`, message: `is not a field of an API token (${FIELDS.join(', ')})` });
    const { tenant, name, role, namespace } = fields;
    if (typeof tenant !== 'string' || tenant.trim() === '' || tenant.includes('/'))
      problems.push({ path: `${at}.tenant`, message: "must be a tenant id (a non-blank string without '/')" });
    else if (sources.tenantKnown !== undefined && !sources.tenantKnown(tenant))
      problems.push({
        path: `${at}.tenant`,
        message: `names the unknown tenant '${tenant}': declare it under setup.tenants or create it first`,
      });
    if (typeof name !== 'string' || name.trim() === '' || name.length > 200)
      problems.push({ path: `${at}.name`, message: 'must be a non-blank string of at most 200 characters' });
    if (!isTenantRole(role)) problems.push({ path: `${at}.role`, message: `must be one of ${TENANT_ROLES.join(', ')}` });
    if (namespace !== undefined && (typeof namespace !== 'string' || !NAMESPACE_PATTERN.test(namespace)))
      problems.push({ path: `${at}.namespace`, message: 'must be a namespace such as company.team' });
    const token = tokenValueOf(fields, at, sources.files, problems);
    if (problems.length > before || token === undefined) return;
    const key = `${String(tenant)}\u0000${String(name)}`;
    if (seen.has(key)) {
      problems.push({ path: `${at}.name`, message: `is declared twice for tenant '${String(tenant)}'` });
      return;
    }
    seen.add(key);
    tokens.push({
      tenantId: tenant as string,
      name: (name as string).trim(),
      role: role as TenantRole,
      namespace: (namespace as string | undefined) ?? null,
      secret: new ApiTokenSecret(token),
    });
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, tokens };
}

const TOKEN_FORMAT = '43 to 512 URL-safe base64 characters (A-Z, a-z, 0-9, - and _)';

/** The token's value from `token` (an environment placeholder, resolved) or `tokenFile`: exactly one of them. */
function tokenValueOf(
  fields: Record<string, unknown>,
  at: string,
  files: SecretFileReader | undefined,
  problems: ApiTokenSetupProblem[],
): string | undefined {
  const { token, tokenFile } = fields;
  if (token !== undefined && tokenFile !== undefined) {
    problems.push({ path: at, message: 'sets both token and tokenFile: exactly one is allowed' });
    return undefined;
  }
  if (tokenFile !== undefined) {
    const where = `${at}.tokenFile`;
    if (typeof tokenFile !== 'string' || tokenFile.trim() === '') {
      problems.push({ path: where, message: 'must be the path of a file holding the token' });
      return undefined;
    }
    const read = files?.read(tokenFile.trim()) ?? { readable: false as const, reason: 'no file reader' };
    if (!read.readable) {
      problems.push({ path: where, message: `names a file that cannot be read (${read.reason})` });
      return undefined;
    }
    const content = read.content.trim();
    if (!API_TOKEN_VALUE.test(content)) {
      problems.push({ path: where, message: `names a file that must hold ${TOKEN_FORMAT}` });
      return undefined;
    }
    return content;
  }
  if (typeof token !== 'string' || token.trim() === '') {
    problems.push({
      path: `${at}.token`,
      message: token === undefined ? 'is missing: set token (from the environment) or tokenFile' : 'must be a non-blank string',
    });
    return undefined;
  }
  if (token.includes('${')) {
    problems.push({ path: `${at}.token`, message: 'is an unresolved environment placeholder: set the variable it names' });
    return undefined;
  }
  if (!API_TOKEN_VALUE.test(token.trim())) {
    problems.push({ path: `${at}.token`, message: `must be ${TOKEN_FORMAT}` });
    return undefined;
  }
  return token.trim();
}
