import { evaluateCondition, ExpressionError, renderSecrets } from '@lanner/expressions';
import { request } from 'undici';
import type { JsonObject } from '../json';
import type { SecretSource } from '../task-runner.port';
import { environmentSecretSource } from '../secrets/environment-secret-source';
import { SecretMask } from '../secrets/secret-mask';
import { DEFAULT_MAX_RESPONSE_BODY_BYTES, encodeBody, headerLists, parseUrl, readCapped } from './http-request.runner';

/**
 * One evaluation of Kestra's `core.http.Trigger` as the scheduler sends it to a
 * worker: the request, its templates already rendered except `secret()` calls,
 * and the response condition, rendered here against the response.
 */
export interface HttpPollDefinition {
  readonly uri: string;
  readonly method: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly contentType?: string;
  readonly responseCondition: string;
}

export type HttpPollResult =
  | { readonly state: 'SUCCESS'; readonly outputs: JsonObject }
  | { readonly state: 'FAILED'; readonly outputs: JsonObject; readonly error: string };

export interface HttpPollContext {
  readonly signal: AbortSignal;
  /** What now() returns in the response condition. */
  readonly now: Date;
  readonly secrets?: SecretSource;
  readonly maxResponseBodyBytes?: number;
}

/**
 * Calls the endpoint and renders `responseCondition` with `response.statusCode`,
 * `response.body` (text) and `response.headers` (name -> list of values). Outputs
 * `fire` (the condition's truth) with the response as the execution will read it
 * in `trigger.uri`, `trigger.code`, `trigger.headers` and `trigger.body`. A request
 * that fails (no answer, a bad URI, a body over the limit) or a condition that does
 * not render is FAILED, with a message naming the property; nothing fires then.
 */
export async function runHttpPoll(definition: HttpPollDefinition, context: HttpPollContext): Promise<HttpPollResult> {
  const mask = new SecretMask();
  const source = context.secrets ?? environmentSecretSource();
  const missing: string[] = [];
  const resolve = (name: string): string | undefined => {
    const value = source(name);
    if (value === undefined) missing.push(name);
    else mask.add(value);
    return value;
  };
  const finish = (property: string, text: string): string => {
    try {
      return renderSecrets(text, resolve);
    } catch {
      throw new Error(
        missing.length > 0
          ? `${property}: secret '${missing[0]}' is not defined on this worker`
          : `${property} could not be rendered on this worker`,
      );
    }
  };
  try {
    const url = parseUrl(finish('uri', definition.uri));
    const method = definition.method.toUpperCase();
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(definition.headers ?? {})) headers[name] = finish(`headers.${name}`, value);
    const body = encodeBody(
      definition.body === undefined ? undefined : finish('body', definition.body),
      definition.contentType,
      headers,
    );
    const response = await request(url, { method: method as 'GET', headers, body, signal: context.signal });
    const text = await readCapped(response.body, context.maxResponseBodyBytes ?? DEFAULT_MAX_RESPONSE_BODY_BYTES);
    const responseHeaders = headerLists(response.headers);
    let fire: boolean;
    try {
      fire = evaluateCondition(
        definition.responseCondition,
        { response: { statusCode: response.statusCode, body: text, headers: responseHeaders } },
        { now: context.now },
      );
    } catch (error) {
      const reason = error instanceof ExpressionError ? error.message : 'it could not be rendered';
      return { state: 'FAILED', outputs: {}, error: `responseCondition: ${reason}` };
    }
    return {
      state: 'SUCCESS',
      outputs: { fire, uri: url.toString(), code: response.statusCode, headers: responseHeaders, body: text },
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { state: 'FAILED', outputs: {}, error: mask.apply(`the poll of the HTTP trigger failed: ${message}`) };
  }
}
