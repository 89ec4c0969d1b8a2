import type { components, paths } from './schema';

// The one way the UI talks to Lanner: the public REST API under /api/v1 with the
// session's bearer token. Paths are checked against the generated OpenAPI types.

export type Problem = components['schemas']['Problem'];
export type ProblemEntry = NonNullable<Problem['errors']>[number] & { line?: number; column?: number; severity?: 'WARNING' };
export type ApiPath = keyof paths;

/** The tenant of an API token; the access-control issue brings a tenant picker. */
export const TENANT = 'main';

const TOKEN_KEY = 'lanner.apiToken';
/** Set while a user is logged in with a password: on a reload the app asks /auth/refresh for a new access token. */
const USER_LOGIN_KEY = 'lanner.userLogin';
/** Fired on window when the API refused the token, so the app goes back to the login page. */
export const SIGNED_OUT_EVENT = 'lanner:signed-out';
/** A user's access token is renewed this long before it expires, or at two thirds of a shorter lifetime. */
const REFRESH_AHEAD_MS = 30_000;

/** What /auth/login and /auth/refresh answer. */
export interface UserLogin {
  readonly accessToken: string;
  readonly expiresAt: string;
  readonly user?: { readonly username: string };
}

// A user's access token lives in memory only; the refresh token is the API's HttpOnly cookie.
let userAccess: { token: string; expiresAt: number; refreshAt: number } | null = null;
let refreshing: Promise<string | null> | null = null;

export const session = {
  /** The bearer to send now: an API token, or the user's access token. */
  token: (): string | null => sessionStorage.getItem(TOKEN_KEY) ?? userAccess?.token ?? null,
  /** A user logged in with a password in this browser (its access token may need a refresh first). */
  isUserLogin: (): boolean => localStorage.getItem(USER_LOGIN_KEY) !== null,
  signIn: (token: string) => sessionStorage.setItem(TOKEN_KEY, token),
  signInUser: (login: UserLogin) => {
    sessionStorage.removeItem(TOKEN_KEY);
    localStorage.setItem(USER_LOGIN_KEY, login.user?.username ?? 'user');
    const expiresAt = Date.parse(login.expiresAt);
    const now = Date.now();
    userAccess = {
      token: login.accessToken,
      expiresAt,
      refreshAt: expiresAt - Math.min(REFRESH_AHEAD_MS, (expiresAt - now) / 3),
    };
  },
  signOut: () => {
    sessionStorage.removeItem(TOKEN_KEY);
    localStorage.removeItem(USER_LOGIN_KEY);
    userAccess = null;
  },
};

function signedOut(): void {
  session.signOut();
  window.dispatchEvent(new Event(SIGNED_OUT_EVENT));
}

/**
 * A new access token for the user's refresh cookie, or null when the API refused
 * it (the login ended). Concurrent callers share one request: the cookie is single use.
 */
export function refreshUserLogin(): Promise<string | null> {
  refreshing ??= (async () => {
    try {
      const response = await fetch('/api/v1/auth/refresh', {
        method: 'POST',
        headers: { Accept: 'application/json, application/problem+json' },
        credentials: 'same-origin',
      });
      if (!response.ok) return null;
      const login = (await response.json()) as UserLogin;
      session.signInUser(login);
      return login.accessToken;
    } catch {
      return null;
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

/** The bearer for the next request: a user's access token is refreshed first when it is missing or near expiry. */
async function currentBearer(): Promise<string | null> {
  const apiToken = sessionStorage.getItem(TOKEN_KEY);
  if (apiToken !== null) return apiToken;
  if (!session.isUserLogin()) return null;
  if (userAccess && Date.now() < userAccess.refreshAt) return userAccess.token;
  const token = await refreshUserLogin();
  if (token === null) signedOut();
  return token;
}

/** Logs the user out at the API (its refresh cookie is revoked and cleared), then here. */
export async function logOut(): Promise<void> {
  const wasUser = session.isUserLogin();
  session.signOut();
  if (!wasUser) return;
  try {
    await fetch('/api/v1/auth/logout', { method: 'POST', credentials: 'same-origin' });
  } catch {
    // The server is unreachable: the login is forgotten here, its refresh token expires on its own.
  }
}

/** An answer that is not 2xx, with the API's problem detail (RFC 9457). */
export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail || problem.title);
    this.name = 'ApiError';
  }
  get status(): number {
    return this.problem.status;
  }
}

type Query = Record<string, string | number | undefined>;

/** The URL of an API route: `{name}` placeholders filled (tenant defaults to main), empty query values left out. */
export function apiUrl(template: ApiPath, params: Record<string, string> = {}, query: Query = {}): string {
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = name === 'tenant' ? (params[name] ?? TENANT) : params[name];
    if (value === undefined) throw new Error(`apiUrl: no value for {${name}} in ${template}`);
    return encodeURIComponent(value);
  });
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}

type Body = { json: unknown } | { yaml: string } | undefined;

function headersFor(body: Body, token: string | null): Headers {
  const headers = new Headers({ Accept: 'application/json, application/problem+json' });
  if (token) headers.set('Authorization', `Bearer ${token}`);
  if (body && 'json' in body) headers.set('Content-Type', 'application/json');
  if (body && 'yaml' in body) headers.set('Content-Type', 'application/x-yaml');
  return headers;
}

async function problemOf(response: Response): Promise<Problem> {
  const text = await response.text();
  try {
    const parsed = JSON.parse(text) as Partial<Problem>;
    if (typeof parsed.title === 'string')
      return { type: 'about:blank', detail: '', ...parsed, status: response.status } as Problem;
  } catch {
    // Not a problem document (a proxy's page, say): described from the status below.
  }
  return {
    type: 'about:blank',
    title: response.statusText || 'Request failed',
    status: response.status,
    detail: `The server answered ${response.status}`,
  };
}

async function send(method: string, url: string, body: Body, token: string | null): Promise<Response> {
  try {
    return await fetch(url, {
      method,
      headers: headersFor(body, token),
      body: body === undefined ? undefined : 'json' in body ? JSON.stringify(body.json) : body.yaml,
    });
  } catch {
    throw new ApiError({
      type: 'about:blank',
      title: 'Lanner is not reachable',
      status: 0,
      detail: 'The request did not reach the server; check that it is running.',
    });
  }
}

/**
 * Sends one request; resolves with the parsed JSON (undefined for an empty answer), rejects with an ApiError.
 * Without an explicit `token` it sends the session's bearer; a user's refused access token is refreshed once
 * and the request sent again, and a second refusal ends the session.
 */
export async function call<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: Body, token?: string): Promise<T> {
  const explicit = token !== undefined;
  let bearer = explicit ? token : await currentBearer();
  let response = await send(method, url, body, bearer);
  if (response.status === 401 && !explicit && session.isUserLogin() && bearer === session.token()) {
    const renewed = await refreshUserLogin();
    if (renewed !== null) {
      bearer = renewed;
      response = await send(method, url, body, bearer);
    }
  }
  if (!response.ok) {
    const problem = await problemOf(response);
    if (response.status === 401 && !explicit && bearer === session.token()) signedOut();
    throw new ApiError(problem);
  }
  const text = await response.text();
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

export interface ServerEvent {
  readonly event: string;
  readonly data: unknown;
}

/**
 * Reads a server-sent event stream with fetch, because EventSource cannot send the
 * bearer header. Calls `onEvent` per event until the stream ends or `signal` aborts.
 */
export async function follow(url: string, onEvent: (event: ServerEvent) => void, signal: AbortSignal): Promise<void> {
  const headers = headersFor(undefined, await currentBearer());
  headers.set('Accept', 'text/event-stream');
  const response = await fetch(url, { headers, signal });
  if (!response.ok || !response.body) throw new ApiError(await problemOf(response));
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      if (data.length > 0) onEvent({ event, data: JSON.parse(data.join('\n')) });
    }
  }
}
