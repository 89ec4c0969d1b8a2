import {
  ConnectedWorker,
  describeExecution,
  Execution,
  listIn,
  RegistrationToken,
  stateOf,
  SubscriptionSpec,
  TERMINAL_STATES,
  WorkerCapacity,
} from './api-types';

export interface ApiAnswer<T = unknown> {
  readonly status: number;
  readonly contentType: string;
  readonly body: T;
  readonly text: string;
  readonly headers: Headers;
}

export interface RequestOptions {
  readonly json?: unknown;
  readonly yaml?: string;
}

const POLL_INTERVAL_MS = 250;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A failed call, with what the API answered (its problem+json says why). */
export class UnexpectedAnswer extends Error {
  constructor(
    what: string,
    readonly answer: ApiAnswer,
  ) {
    super(`${what}: HTTP ${answer.status} ${answer.text.slice(0, 2000)}`);
  }
}

/**
 * The suite's only way into Lanner: the REST API with the admin bearer token, as a
 * user or a CI job would call it (API.md). Tenant `main`.
 */
export class LannerClient {
  constructor(
    private readonly apiUrl: string,
    private readonly token: string,
    private readonly tenant = 'main',
  ) {}

  url(path: string): string {
    return `${this.apiUrl}/api/v1/${this.tenant}${path}`;
  }

  /** The same API and token, acting on another tenant. */
  forTenant(tenant: string): LannerClient {
    return new LannerClient(this.apiUrl, this.token, tenant);
  }

  /** A tenant-scoped call whose answer is given whole as fetch has it; a FormData body goes as multipart, text as text/plain. */
  raw(method: string, path: string, body?: FormData | string): Promise<Response> {
    return fetch(this.url(path), {
      method,
      headers: { authorization: `Bearer ${this.token}` },
      ...(body ? { body } : {}),
      signal: AbortSignal.timeout(120_000),
    });
  }

  /** A tenant-scoped call: `path` is under `/api/v1/{tenant}`. */
  request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<ApiAnswer<T>> {
    return this.send<T>(method, this.url(path), options);
  }

  /** An instance-wide call (worker topology): `path` is under `/api/v1/instance`. */
  instanceRequest<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<ApiAnswer<T>> {
    return this.send<T>(method, `${this.apiUrl}/api/v1/instance${path}`, options);
  }

  private async send<T>(method: string, url: string, options: RequestOptions): Promise<ApiAnswer<T>> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, accept: 'application/json' };
    let body: string | undefined;
    if (options.yaml !== undefined) {
      headers['content-type'] = 'application/x-yaml';
      body = options.yaml;
    } else if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    const response = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(30_000) });
    const text = await response.text();
    const contentType = response.headers.get('content-type') ?? '';
    let parsed: unknown = text;
    if (contentType.includes('json') && text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return { status: response.status, contentType, body: parsed as T, text, headers: response.headers };
  }

  /** `PUT /instance/worker-queues/{id}`: created (201) or updated (200). */
  async putWorkerQueue(id: string, tags: readonly string[]): Promise<void> {
    const answer = await this.instanceRequest('PUT', `/worker-queues/${id}`, { json: { tags } });
    if (answer.status !== 201 && answer.status !== 200) throw new UnexpectedAnswer(`writing worker queue '${id}'`, answer);
  }

  /** `PUT /instance/worker-groups/{id}` with its subscriptions (and, when given, its restart strategy). */
  async putWorkerGroup(
    id: string,
    subscriptions: readonly SubscriptionSpec[],
    name = id,
    restartStrategy?: 'NEVER' | 'IMMEDIATELY' | 'AFTER_TERMINATION_GRACE_PERIOD',
  ): Promise<void> {
    const answer = await this.instanceRequest('PUT', `/worker-groups/${id}`, {
      json: { name, subscriptions, ...(restartStrategy === undefined ? {} : { restartStrategy }) },
    });
    if (answer.status !== 201 && answer.status !== 200) throw new UnexpectedAnswer(`writing worker group '${id}'`, answer);
  }

  /** `PUT /instance/worker-groups/{id}/subscriptions/{queueId}`: live within seconds. */
  async putSubscription(groupId: string, queueId: string, change: Omit<SubscriptionSpec, 'workerQueueId'>): Promise<void> {
    const answer = await this.instanceRequest('PUT', `/worker-groups/${groupId}/subscriptions/${queueId}`, { json: change });
    if (answer.status !== 200) throw new UnexpectedAnswer(`changing the subscription of '${groupId}' to '${queueId}'`, answer);
  }

  /** `POST /instance/worker-groups/{id}/tokens`: the only answer that shows the token's value. */
  async createRegistrationToken(groupId: string, name: string): Promise<RegistrationToken> {
    const answer = await this.instanceRequest<RegistrationToken>('POST', `/worker-groups/${groupId}/tokens`, { json: { name } });
    const body = answer.body;
    if (answer.status !== 201 || typeof body !== 'object' || typeof body?.token !== 'string' || typeof body.id !== 'string') {
      throw new UnexpectedAnswer(`creating a registration token of '${groupId}'`, answer);
    }
    return body;
  }

  /** `DELETE /instance/worker-groups/{id}/tokens/{tokenId}`: revoked at once. */
  async revokeRegistrationToken(groupId: string, tokenId: string): Promise<void> {
    const answer = await this.instanceRequest('DELETE', `/worker-groups/${groupId}/tokens/${tokenId}`);
    if (answer.status !== 204) throw new UnexpectedAnswer(`revoking registration token ${tokenId} of '${groupId}'`, answer);
  }

  /** `GET /instance/worker-groups/{id}/workers`: the group's connected workers. */
  async groupWorkers(groupId: string): Promise<ConnectedWorker[]> {
    const answer = await this.instanceRequest('GET', `/worker-groups/${groupId}/workers`);
    if (answer.status !== 200) throw new UnexpectedAnswer(`listing the workers of '${groupId}'`, answer);
    return listIn<ConnectedWorker>(answer.body, []);
  }

  /** `GET /instance/worker-groups/{id}/capacity` (`{ workerGroupId, workers }`): the live ledger of each connected worker. */
  async groupCapacity(groupId: string): Promise<WorkerCapacity[]> {
    const answer = await this.instanceRequest('GET', `/worker-groups/${groupId}/capacity`);
    if (answer.status !== 200) throw new UnexpectedAnswer(`reading the capacity of '${groupId}'`, answer);
    return listIn<WorkerCapacity>(answer.body, ['workers']);
  }

  /** POSTs a flow's YAML; expects 201 (each spec uses flow ids of its own on a fresh database). */
  async createFlow(yaml: string): Promise<void> {
    const answer = await this.request('POST', '/flows', { yaml });
    if (answer.status !== 201) throw new UnexpectedAnswer('creating a flow', answer);
  }

  async execute(namespace: string, flowId: string, inputs?: Record<string, unknown>): Promise<Execution> {
    const answer = await this.request<Execution>('POST', `/executions/${namespace}/${flowId}`, {
      json: inputs ? { inputs } : {},
    });
    if (answer.status !== 200 || typeof answer.body !== 'object' || !answer.body?.id) {
      throw new UnexpectedAnswer(`starting ${namespace}.${flowId}`, answer);
    }
    return answer.body;
  }

  async execution(id: string): Promise<Execution> {
    const answer = await this.request<Execution>('GET', `/executions/${id}`);
    if (answer.status !== 200) throw new UnexpectedAnswer(`reading execution ${id}`, answer);
    return answer.body;
  }

  /**
   * Polls the execution until `accept` holds. On the deadline it fails with where the
   * execution stood (states of every task run and attempt): the first broken hop.
   */
  async waitFor(id: string, accept: (execution: Execution) => boolean, what: string, timeoutMs = 45_000): Promise<Execution> {
    const deadline = Date.now() + timeoutMs;
    let last: Execution | undefined;
    let lastError = '';
    while (Date.now() < deadline) {
      try {
        last = await this.execution(id);
        if (accept(last)) return last;
      } catch (error) {
        lastError = error instanceof Error ? error.message : String(error);
      }
      await delay(POLL_INTERVAL_MS);
    }
    const where = last ? describeExecution(last) : `never read it: ${lastError}`;
    throw new Error(`execution ${id} did not reach "${what}" within ${timeoutMs} ms; last seen:\n${where}`);
  }

  /** Waits for the execution to end (any terminal state), so a wrong end state is reported as such. */
  async waitUntilEnded(id: string, timeoutMs?: number): Promise<Execution> {
    return this.waitFor(
      id,
      (execution) => (TERMINAL_STATES as readonly string[]).includes(stateOf(execution)),
      'a terminal state',
      timeoutMs,
    );
  }

  async waitForState(id: string, state: string, timeoutMs?: number): Promise<Execution> {
    return this.waitFor(id, (execution) => stateOf(execution) === state, state, timeoutMs);
  }

  kill(id: string): Promise<ApiAnswer> {
    return this.request('DELETE', `/executions/${id}/kill`);
  }

  resume(id: string, inputs?: Record<string, unknown>): Promise<ApiAnswer> {
    return this.request('POST', `/executions/${id}/resume`, { json: inputs ? { inputs } : {} });
  }

  logs(executionId: string): Promise<ApiAnswer> {
    return this.request('GET', `/logs/${executionId}`);
  }

  /**
   * Follows an SSE endpoint (`path` under the tenant) and resolves with the `data:`
   * payloads received up to the first one for which `until` holds. Fails on the
   * deadline with everything received so far.
   */
  async followUntil(path: string, until: (data: string) => boolean, timeoutMs = 45_000): Promise<string[]> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const received: string[] = [];
    try {
      const response = await fetch(this.url(path), {
        headers: { authorization: `Bearer ${this.token}`, accept: 'text/event-stream' },
        signal: controller.signal,
      });
      if (response.status !== 200 || !response.body) {
        throw new UnexpectedAnswer(`following ${path}`, {
          status: response.status,
          contentType: response.headers.get('content-type') ?? '',
          body: undefined,
          text: await response.text(),
          headers: response.headers,
        });
      }
      if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
        throw new Error(`following ${path}: content type is ${response.headers.get('content-type')}, not text/event-stream`);
      }
      const decoder = new TextDecoder();
      let buffered = '';
      for await (const chunk of response.body) {
        buffered += decoder.decode(chunk as Uint8Array, { stream: true });
        // Events end with a blank line; a `data:` field may span several lines.
        let end: number;
        while ((end = buffered.search(/\r?\n\r?\n/)) >= 0) {
          const rawEvent = buffered.slice(0, end);
          buffered = buffered.slice(end).replace(/^\r?\n\r?\n/, '');
          const data = rawEvent
            .split(/\r?\n/)
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).replace(/^ /, ''))
            .join('\n');
          if (data === '') continue;
          received.push(data);
          if (until(data)) return received;
        }
      }
      throw new Error(`following ${path}: the stream ended before the expected event; received:\n${received.join('\n')}`);
    } catch (error) {
      if (controller.signal.aborted) {
        throw new Error(
          `following ${path}: no expected event within ${timeoutMs} ms; received:\n${received.join('\n') || '(nothing)'}`,
        );
      }
      throw error;
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
  }
}
