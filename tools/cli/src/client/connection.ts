import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_TENANT_ID } from '@lanner/model';
import { CliError } from './cli-error';

/** Where the CLI talks to: the server's base URL, a bearer token and the tenant. */
export interface Connection {
  readonly url: string;
  readonly token: string | undefined;
  readonly tenant: string;
}

/** The global flags that choose a connection; each falls back to its variable, then to the profile. */
export interface ConnectionFlags {
  readonly server?: string;
  readonly token?: string;
  readonly tenant?: string;
  readonly profile?: string;
}

export interface ProfileEntry {
  url?: string;
  token?: string;
  tenant?: string;
}

export interface ProfileFile {
  profiles: Record<string, ProfileEntry>;
}

export const DEFAULT_URL = 'http://127.0.0.1:8080';
export const DEFAULT_PROFILE = 'default';

/** `$LANNER_CONFIG`, else `$XDG_CONFIG_HOME/lanner/profile.json`, else `~/.config/lanner/profile.json`. */
export function profilePath(env: NodeJS.ProcessEnv): string {
  if (env['LANNER_CONFIG']) return env['LANNER_CONFIG'];
  const configHome = env['XDG_CONFIG_HOME'] || join(homedir(), '.config');
  return join(configHome, 'lanner', 'profile.json');
}

/** The profile file, or an empty one when it does not exist; a broken file is an error naming it. */
export function readProfileFile(path: string): ProfileFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw new CliError(`cannot read the profile file ${path}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CliError(`the profile file ${path} is not valid JSON`);
  }
  const profiles = (parsed as { profiles?: unknown } | null)?.profiles;
  if (typeof profiles !== 'object' || profiles === null || Array.isArray(profiles)) {
    throw new CliError(`the profile file ${path} must hold { "profiles": { "<name>": { "url", "token", "tenant" } } }`);
  }
  for (const [name, entry] of Object.entries(profiles as Record<string, unknown>)) {
    if (typeof entry !== 'object' || entry === null)
      throw new CliError(`the profile file ${path}: profiles.${name} must be an object`);
    for (const key of ['url', 'token', 'tenant'] as const) {
      const value = (entry as Record<string, unknown>)[key];
      if (value !== undefined && typeof value !== 'string')
        throw new CliError(`the profile file ${path}: profiles.${name}.${key} must be a string`);
    }
  }
  return { profiles: profiles as Record<string, ProfileEntry> };
}

function isHttpUrl(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

/** Flags win over LANNER_URL / LANNER_TOKEN / LANNER_TENANT, which win over the profile (LANNER_PROFILE or `default`). */
export function resolveConnection(flags: ConnectionFlags, env: NodeJS.ProcessEnv): Connection {
  const profileName = flags.profile ?? env['LANNER_PROFILE'] ?? DEFAULT_PROFILE;
  const path = profilePath(env);
  const profile = readProfileFile(path).profiles[profileName];
  if (profile === undefined && (flags.profile !== undefined || env['LANNER_PROFILE'] !== undefined)) {
    throw new CliError(`no profile '${profileName}' in ${path}`);
  }
  const url = flags.server ?? env['LANNER_URL'] ?? profile?.url ?? DEFAULT_URL;
  if (!isHttpUrl(url))
    throw new CliError(`the server URL '${url}' is not an http:// or https:// URL (from --server, LANNER_URL or the profile)`);
  return {
    url: url.replace(/\/+$/, ''),
    token: flags.token ?? env['LANNER_TOKEN'] ?? profile?.token,
    tenant: flags.tenant ?? env['LANNER_TENANT'] ?? profile?.tenant ?? DEFAULT_TENANT_ID,
  };
}
