import type { HttpRequestTask, TemplatedValue } from '@lanner/model';
import { request } from 'undici';
import type { JsonObject } from '../json';
import type { TaskKindRunner } from '../task-runner.port';

export interface HttpRequestOptions {
  /** Largest response body kept as output; a larger one fails the task (Kestra's `maxContentLength`). Default 1 MiB. */
  readonly maxResponseBodyBytes?: number;
}

export const DEFAULT_MAX_RESPONSE_BODY_BYTES = 1024 * 1024;

/**
 * Kestra's `core.http.Request` on undici. Outputs `code`, `headers` (name -> list of
 * values, lower-case names) and `body` (text). A non-2xx response fails the task with
 * its code, as Kestra's default (`allowFailed: false`); the outputs are still given so
 * the failure can be inspected. The signal (kill, timeout) aborts the request.
 */
export function httpRequestRunner(options: HttpRequestOptions = {}): TaskKindRunner<HttpRequestTask> {
  const maxBodyBytes = options.maxResponseBodyBytes ?? DEFAULT_MAX_RESPONSE_BODY_BYTES;
  return {
    async run(task, context) {
      const url = parseUrl(task.uri);
      const method = task.method.toUpperCase();
      const headers: Record<string, string> = { ...task.headers };
      const body = encodeBody(task.body, task.contentType, headers);
      const response = await request(url, { method: method as 'GET', headers, body, signal: context.signal });
      const text = await readCapped(response.body, maxBodyBytes);
      const outputs: JsonObject = { code: response.statusCode, headers: headerLists(response.headers), body: text };
      context.log('DEBUG', `${method} ${url.origin}${url.pathname} answered ${response.statusCode}`);
      if (response.statusCode < 200 || response.statusCode > 299) {
        return { state: 'FAILED', outputs, error: `HTTP request failed with response code ${response.statusCode}` };
      }
      return { state: 'SUCCESS', outputs };
    },
  };
}

export function parseUrl(uri: string): URL {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new Error(`uri is not a valid URL: ${uri}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`uri must be http or https, got ${url.protocol}`);
  return url;
}

/**
 * A string body is sent as written; a map or list as JSON, or as a form when the
 * content type says so. Kestra's default content type is `application/json`.
 */
export function encodeBody(
  body: TemplatedValue | undefined,
  contentType: string | undefined,
  headers: Record<string, string>,
): string | undefined {
  if (body === undefined || body === null) return undefined;
  const type = contentType ?? headerValue(headers, 'content-type') ?? 'application/json';
  if (headerValue(headers, 'content-type') === undefined) headers['content-type'] = type;
  if (typeof body === 'string') return body;
  if (type.startsWith('application/x-www-form-urlencoded') && typeof body === 'object' && !Array.isArray(body)) {
    return new URLSearchParams(
      Object.entries(body).map(([key, value]): [string, string] => [
        key,
        typeof value === 'string' ? value : JSON.stringify(value),
      ]),
    ).toString();
  }
  return JSON.stringify(body);
}

function headerValue(headers: Record<string, string>, name: string): string | undefined {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

export function headerLists(headers: Record<string, string | string[] | undefined>): JsonObject {
  const lists: JsonObject = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) lists[name.toLowerCase()] = Array.isArray(value) ? value : [value];
  }
  return lists;
}

export async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) {
      body.destroy();
      throw new Error(`the response body is larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
