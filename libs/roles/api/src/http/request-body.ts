import type { HttpRequest } from './http-types';
import type { z } from 'zod';
import { InvalidContent, InvalidRequest, PayloadTooLarge, type ProblemEntry, UnsupportedMediaType } from './api-errors';

/**
 * Reads a text body (a flow's YAML) from the request stream, refusing more than
 * `limitBytes`. JSON bodies are parsed by the framework before the route runs,
 * so a flow sent as JSON is refused here with a clear message.
 */
export async function readTextBody(request: HttpRequest, limitBytes: number): Promise<string> {
  if (/^application\/([\w.+-]+\+)?json\b/i.test(request.headers['content-type'] ?? '')) {
    throw new UnsupportedMediaType('Send the flow as YAML with Content-Type: application/x-yaml');
  }
  const encoding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== '') {
    request.resume();
    throw new UnsupportedMediaType('Send the flow uncompressed: this endpoint reads no Content-Encoding');
  }
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) {
    request.resume();
    throw new PayloadTooLarge(limitBytes);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer | string>) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size > limitBytes) {
      request.resume();
      throw new PayloadTooLarge(limitBytes);
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Validates a parsed JSON body or query against its schema; a mismatch is a 400 naming each path. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems: ProblemEntry[] = parsed.error.issues.map((issue) => ({ path: jsonPath(issue.path), message: issue.message }));
  throw new InvalidRequest(`The ${what} is not valid`, problems);
}

/**
 * Validates a JSON body whose problems are its content's, as the instance routes
 * report them: a mismatch is invalid content (422), every problem with its JSON
 * path, a field that does not belong first and at its own path (its message is
 * the one the schema gives for unknown keys).
 */
export function contentWith<S extends z.ZodType>(schema: S, value: unknown, detail: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const unknownFields: ProblemEntry[] = [];
  const problems: ProblemEntry[] = [];
  for (const issue of parsed.error.issues) {
    if (issue.code === 'unrecognized_keys')
      unknownFields.push(...issue.keys.map((key) => ({ path: jsonPath([...issue.path, key]), message: issue.message })));
    else problems.push({ path: jsonPath(issue.path), message: issue.message });
  }
  throw new InvalidContent(detail, [...unknownFields, ...problems]);
}

/** `labels.team`, `inputs.files[2]`; `$` for the whole value. */
export function jsonPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '$';
  return path.reduce<string>((text, segment) => {
    if (typeof segment === 'number') return `${text}[${segment}]`;
    return text === '' ? String(segment) : `${text}.${String(segment)}`;
  }, '');
}
