import type { components, paths } from './schema';

// The one way the UI talks to Lanner: the public REST API under /api/v1 with the
// session's bearer token. Paths are checked against the generated OpenAPI types.

export type Problem = components['schemas']['Problem'];
export type ProblemEntry = NonNullable<Problem['errors']>[number] & { line?: number; column?: number; severity?: 'WARNING' };
export type ApiPath = keyof paths;

/** The tenant of an API token; the access-control issue brings a tenant picker. */
export const TENANT = 'main';

const TOKEN_KEY = 'lanner.apiToken';
/** Fired on window when the API refused the token, so the app goes back to the login page. */
export const SIGNED_OUT_EVENT = 'lanner:signed-out';

export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  signIn: (token: string) => sessionStorage.setItem(TOKEN_KEY, token),
  signOut: () => sessionStorage.removeItem(TOKEN_KEY),
};

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

/** Sends one request; resolves with the parsed JSON (undefined for an empty answer), rejects with an ApiError. */
export async function call<T>(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  body?: Body,
  token = session.token(),
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
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
  if (!response.ok) {
    const problem = await problemOf(response);
    if (response.status === 401 && token === session.token()) {
      session.signOut();
      window.dispatchEvent(new Event(SIGNED_OUT_EVENT));
    }
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
  const token = session.token();
  const headers = headersFor(undefined, token);
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
