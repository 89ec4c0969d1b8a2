import { DEFAULT_TENANT_ID, RedactedSecret } from '@lanner/model';
import {
  type ApiTokenSetupProblem,
  type DeclaredApiToken,
  type SecretFileReader,
  validateApiTokenSetup,
} from './api-token-setup';
import { isTenantRole, TENANT_ROLES, type TenantRole } from './permissions';
import { tenantIdProblem } from './tenant-id';

/**
 * The access part of the declarative setup: `setup.tenants`, `setup.users`
 * and `setup.apiTokens`. Seed semantics, as for the topology: what is missing
 * is created, what exists (a tenant by id, a user by username, a token by its
 * tenant and name) is left as it is. A password is never written in the file:
 * it comes from an environment variable (`passwordEnv`) or a file
 * (`passwordFile`); it is validated whole here, before anything is written.
 */

/** The default tenant, which always exists. */
const USERNAME = /^[A-Za-z0-9._@-]{1,128}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const TENANT_FIELDS = ['id', 'name'];
const USER_FIELDS = ['username', 'tenant', 'role', 'instanceAdmin', 'passwordEnv', 'passwordFile'];

/** A declared user's password: only `reveal()` gives it out (to the code that hashes it), never a log line or JSON. */
export class PasswordSecret extends RedactedSecret {
  constructor(value: string) {
    super(value, 'password');
  }
}

export interface DeclaredTenant {
  readonly id: string;
  readonly name: string;
}

/** Where a password comes from: safe to log (a variable's name or a path, never the value). */
export type PasswordSource = { readonly kind: 'env'; readonly name: string } | { readonly kind: 'file'; readonly path: string };

export interface DeclaredUser {
  readonly username: string;
  readonly tenantId: string;
  readonly role: TenantRole;
  readonly instanceAdmin: boolean;
  readonly password: PasswordSecret;
  readonly passwordSource: PasswordSource;
}

export interface AccessSetup {
  readonly tenants: readonly DeclaredTenant[];
  readonly users: readonly DeclaredUser[];
  readonly apiTokens: readonly DeclaredApiToken[];
}

export interface AccessSetupPorts {
  /** Secret files (`passwordFile`, `tokenFile`). */
  readonly files: SecretFileReader;
  /** The process environment (`passwordEnv` names a variable of it). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The tenants that exist already. */
  readonly existingTenantIds: readonly string[];
  /** What is wrong with a password (length), or undefined; the message never holds the password. */
  readonly passwordProblem: (password: string) => string | undefined;
}

export type AccessSetupResult =
  { readonly ok: true; readonly setup: AccessSetup } | { readonly ok: false; readonly problems: ApiTokenSetupProblem[] };

/** The three lists of the section, validated whole: every problem with its path, no secret in any message. */
export function validateAccessSetup(
  section: { readonly tenants?: unknown; readonly users?: unknown; readonly apiTokens?: unknown },
  ports: AccessSetupPorts,
): AccessSetupResult {
  const problems: ApiTokenSetupProblem[] = [];
  const tenants = validateTenants(section.tenants, problems);
  const known = new Set([DEFAULT_TENANT_ID, ...ports.existingTenantIds, ...tenants.map((tenant) => tenant.id)]);
  const tenantKnown = (id: string) => known.has(id);
  const users = validateUsers(section.users, ports, tenantKnown, problems);
  const apiTokens = validateApiTokenSetup(section.apiTokens, { files: ports.files, tenantKnown });
  if (!apiTokens.ok) problems.push(...apiTokens.problems);
  if (problems.length > 0 || !apiTokens.ok) return { ok: false, problems };
  return { ok: true, setup: { tenants, users, apiTokens: apiTokens.tokens } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function unknownFields(fields: Record<string, unknown>, allowed: readonly string[], at: string, what: string) {
  return Object.keys(fields)
    .filter((key) => !allowed.includes(key))
    .map((key) => ({
      path: `${at}.${key}`,
      message:
        key === 'password'
          ? 'is not allowed: a password is never written in the setup file (use passwordEnv or passwordFile)'
          : `is not a field of ${what} (${allowed.join(', ')})`,
    }));
}

function validateTenants(value: unknown, problems: ApiTokenSetupProblem[]): DeclaredTenant[] {
  const path = 'setup.tenants';
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    problems.push({ path, message: 'must be a list of tenants' });
    return [];
  }
  const tenants: DeclaredTenant[] = [];
  value.forEach((entry: unknown, index) => {
    const at = `${path}[${index}]`;
    if (!isObject(entry)) {
      problems.push({ path: at, message: 'must be an object: { id, name? }' });
      return;
    }
    const before = problems.length;
    problems.push(...unknownFields(entry, TENANT_FIELDS, at, 'a tenant'));
    const { id, name } = entry;
    const idProblem = tenantIdProblem(id);
    if (idProblem !== undefined) problems.push({ path: `${at}.id`, message: idProblem });
    else if (tenants.some((tenant) => tenant.id === id))
      problems.push({ path: `${at}.id`, message: `declares the tenant '${String(id)}' twice` });
    if (name !== undefined && (typeof name !== 'string' || name.trim() === '' || name.length > 200))
      problems.push({ path: `${at}.name`, message: 'must be a non-blank string of at most 200 characters' });
    if (problems.length > before) return;
    tenants.push({ id: id as string, name: typeof name === 'string' ? name.trim() : (id as string) });
  });
  return tenants;
}

function validateUsers(
  value: unknown,
  ports: AccessSetupPorts,
  tenantKnown: (id: string) => boolean,
  problems: ApiTokenSetupProblem[],
): DeclaredUser[] {
  const path = 'setup.users';
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    problems.push({ path, message: 'must be a list of users' });
    return [];
  }
  const users: DeclaredUser[] = [];
  value.forEach((entry: unknown, index) => {
    const at = `${path}[${index}]`;
    if (!isObject(entry)) {
      problems.push({
        path: at,
        message: 'must be an object: { username, role, tenant?, instanceAdmin?, passwordEnv | passwordFile }',
      });
      return;
    }
    const before = problems.length;
    problems.push(...unknownFields(entry, USER_FIELDS, at, 'a user'));
    const { username, tenant = DEFAULT_TENANT_ID, role, instanceAdmin = false } = entry;
    if (typeof username !== 'string' || !USERNAME.test(username))
      problems.push({ path: `${at}.username`, message: 'must be 1 to 128 letters, digits, ".", "_", "@" or "-"' });
    else if (users.some((user) => user.username === username))
      problems.push({ path: `${at}.username`, message: `declares the user '${username}' twice` });
    if (typeof tenant !== 'string' || tenantIdProblem(tenant) !== undefined)
      problems.push({ path: `${at}.tenant`, message: 'must be a tenant id (lowercase letters, digits, "_" or "-")' });
    else if (!tenantKnown(tenant))
      problems.push({
        path: `${at}.tenant`,
        message: `names the unknown tenant '${tenant}': declare it under setup.tenants or create it first`,
      });
    if (!isTenantRole(role)) problems.push({ path: `${at}.role`, message: `must be one of ${TENANT_ROLES.join(', ')}` });
    if (typeof instanceAdmin !== 'boolean') problems.push({ path: `${at}.instanceAdmin`, message: 'must be true or false' });
    const password = passwordOf(entry, at, ports, problems);
    if (problems.length > before || password === undefined) return;
    users.push({
      username: username as string,
      tenantId: tenant as string,
      role: role as TenantRole,
      instanceAdmin: instanceAdmin as boolean,
      password: password.secret,
      passwordSource: password.source,
    });
  });
  return users;
}

/** The password from `passwordEnv` or `passwordFile` (exactly one); a file's final line break is not part of it. */
function passwordOf(
  fields: Record<string, unknown>,
  at: string,
  ports: AccessSetupPorts,
  problems: ApiTokenSetupProblem[],
): { secret: PasswordSecret; source: PasswordSource } | undefined {
  const { passwordEnv, passwordFile } = fields;
  if ((passwordEnv === undefined) === (passwordFile === undefined)) {
    problems.push({
      path: at,
      message:
        passwordEnv === undefined
          ? 'needs exactly one of passwordEnv (an environment variable) or passwordFile'
          : 'sets both passwordEnv and passwordFile: exactly one is allowed',
    });
    return undefined;
  }
  let password: string;
  let source: PasswordSource;
  let where: string;
  if (passwordEnv !== undefined) {
    where = `${at}.passwordEnv`;
    if (typeof passwordEnv !== 'string' || !ENV_NAME.test(passwordEnv)) {
      problems.push({ path: where, message: 'must be the name of an environment variable (letters, digits and _)' });
      return undefined;
    }
    const value = ports.env[passwordEnv];
    if (value === undefined || value === '') {
      problems.push({ path: where, message: `names the environment variable ${passwordEnv}, which is not set` });
      return undefined;
    }
    password = value;
    source = { kind: 'env', name: passwordEnv };
  } else {
    where = `${at}.passwordFile`;
    if (typeof passwordFile !== 'string' || passwordFile.trim() === '') {
      problems.push({ path: where, message: 'must be the path of a file holding the password' });
      return undefined;
    }
    const read = ports.files.read(passwordFile.trim());
    if (!read.readable) {
      problems.push({ path: where, message: `names a file that cannot be read (${read.reason})` });
      return undefined;
    }
    password = read.content.replace(/\r?\n$/, '');
    source = { kind: 'file', path: passwordFile.trim() };
  }
  const problem = ports.passwordProblem(password);
  if (problem !== undefined) {
    problems.push({ path: where, message: `gives a password that ${problem}` });
    return undefined;
  }
  return { secret: new PasswordSecret(password), source };
}
