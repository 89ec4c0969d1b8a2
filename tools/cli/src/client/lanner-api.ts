import { Agent, fetch, type Response } from 'undici';
import { ApiProblem, CliError, type ProblemDetail } from './cli-error';
import type { Connection } from './connection';

export interface RequestOptions {
  readonly body?: unknown;
  /** Sent as is with this content type instead of JSON (flow YAML). */
  readonly text?: { readonly content: string; readonly type: string };
  readonly query?: Record<string, string | undefined>;
}

/** One server-sent event. */
export interface ServerEvent {
  readonly event: string;
  readonly data: unknown;
  readonly id?: string;
}

/**
 * The REST API as the CLI uses it: JSON in and out, a problem answer becomes an
 * ApiProblem, an unreachable server a CliError naming the URL.
 */
export class LannerApi {
  // Event streams stay open as long as an execution runs, with quiet stretches: no body timeout.
  private readonly dispatcher = new Agent({ bodyTimeout: 0 });

  constructor(private readonly connection: Connection) {}

  get tenant(): string {
    return this.connection.tenant;
  }

  /** A tenant-scoped path: `/api/v1/{tenant}/...`. */
  tenantPath(...segments: string[]): string {
    return `/api/v1/${encodeURIComponent(this.connection.tenant)}/${segments.map(encodeURIComponent).join('/')}`;
  }

  /** An instance-wide path: `/api/v1/instance/...`. */
  instancePath(...segments: string[]): string {
    return `/api/v1/instance/${segments.map(encodeURIComponent).join('/')}`;
  }

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<{ status: number; body: T }> {
    const response = await this.send(method, path, options, 'application/json');
    const text = await response.text();
    return { status: response.status, body: (text === '' ? undefined : JSON.parse(text)) as T };
  }

  /** The events of an SSE route until the server closes the stream. */
  async *events(path: string, query?: Record<string, string | undefined>): AsyncGenerator<ServerEvent> {
    const response = await this.send('GET', path, { query }, 'text/event-stream');
    if (!response.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const parsed = parseEventBlock(block);
        if (parsed) yield parsed;
      }
    }
  }

  private async send(method: string, path: string, options: RequestOptions, accept: string): Promise<Response> {
    const url = new URL(this.connection.url + path);
    for (const [key, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(key, value);
    const headers: Record<string, string> = { accept: `${accept}, application/problem+json` };
    if (this.connection.token) headers['authorization'] = `Bearer ${this.connection.token}`;
    let body: string | undefined;
    if (options.text) {
      headers['content-type'] = options.text.type;
      body = options.text.content;
    } else if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    let response: Response;
    try {
      response = await fetch(url, { method, headers, body, dispatcher: this.dispatcher });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(
        `cannot reach the Lanner server at ${this.connection.url}: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
      );
    }
    if (response.status >= 400) throw new ApiProblem(response.status, await problemOf(response));
    return response;
  }
}

async function problemOf(response: Response): Promise<ProblemDetail> {
  const text = await response.text();
  try {
    const parsed = JSON.parse(text) as ProblemDetail;
    if (typeof parsed === 'object' && parsed !== null) return parsed;
  } catch {
    // Not a problem document (a proxy's page, say): the status text stands for it.
  }
  return { title: response.statusText || 'error' };
}

function parseEventBlock(block: string): ServerEvent | undefined {
  let event = 'message';
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id') id = value;
  }
  if (data.length === 0) return undefined;
  const text = data.join('\n');
  try {
    return { event, data: JSON.parse(text), id };
  } catch {
    return { event, data: text, id };
  }
}
