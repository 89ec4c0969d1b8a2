import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';

// Fuzzes the REST API from its own OpenAPI document: every operation, with
// random and hostile values for each path parameter, query parameter, header
// and body it declares (and some it does not), against a running Lanner. The
// answers are checked as a user would see them: no 5xx, nothing leaked, an
// answer to every request, the server's memory bounded. Used by the e2e spec
// (a reduced run) and by tools/fuzz/run.js (the full run).

export interface FuzzTarget {
  /** `http://127.0.0.1:<port>` */
  readonly apiUrl: string;
  readonly adminToken: string;
  /** The server process, whose RSS is sampled from /proc/<pid>/status. */
  readonly pid: number;
}

export interface FuzzOptions {
  readonly seed: number;
  readonly requests: number;
  /** Requests in flight at once. */
  readonly concurrency?: number;
  /** An answer later than this is a hang (generous: it reports a stuck request, it does not measure speed). */
  readonly answerWithinMs?: number;
  /** Texts that must never appear in an answer besides the admin token (the server's folders, say). */
  readonly secrets?: readonly string[];
  readonly onProgress?: (done: number) => void;
}

/** What one request was, short enough to print. */
export interface SentRequest {
  readonly method: string;
  readonly path: string;
  readonly contentType?: string;
  readonly contentEncoding?: string;
  readonly bodyBytes: number;
  readonly bodyExcerpt?: string;
}

export interface FuzzFinding {
  readonly request: SentRequest;
  readonly status: number | 'no answer' | typeof HEAD_TOO_LARGE;
  readonly problem: string;
  readonly answerExcerpt: string;
}

export interface FuzzReport {
  readonly seed: number;
  readonly requests: number;
  readonly operations: number;
  /** Operations that got at least one request. */
  readonly operationsCovered: number;
  /** Answers by status code (`no answer` for requests that got none). */
  readonly statuses: Readonly<Record<string, number>>;
  readonly findings: readonly FuzzFinding[];
  readonly startRssBytes: number;
  readonly maxRssBytes: number;
  readonly slowestAnswerMs: number;
  readonly durationMs: number;
}

// ---------------------------------------------------------------------------
// The operations, from the OpenAPI document

interface Operation {
  readonly method: string;
  /** `/api/v1/{tenant}/flows/{namespace}/{id}` */
  readonly template: string;
  readonly pathParams: readonly string[];
  readonly queryParams: readonly string[];
  /** Media types of the request body; empty when the operation takes none. */
  readonly bodyTypes: readonly string[];
}

interface OpenApiDocument {
  readonly paths: Record<
    string,
    Record<string, { parameters?: { name: string; in: string }[]; requestBody?: { content?: Record<string, unknown> } }>
  >;
}

export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [template, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const parameters = operation.parameters ?? [];
      operations.push({
        method: method.toUpperCase(),
        template,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: parameters.filter((p) => p.in === 'query').map((p) => p.name),
        bodyTypes: Object.keys(operation.requestBody?.content ?? {}),
      });
    }
  }
  return operations;
}

// ---------------------------------------------------------------------------
// Values

/** Resources the fuzz creates first, so that some requests reach a real flow, execution, queue and group. */
export interface KnownIds {
  readonly namespace: string;
  readonly flowId: string;
  readonly executionId: string;
  readonly workerQueueId: string;
  readonly workerGroupId: string;
}

const HUGE = 'h'.repeat(300_000);
const LONG = 'l'.repeat(5_000);

// None of these matches a leak pattern below, so an answer echoing one is not a finding.
const HOSTILE_TEXTS = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\ud83d',
  '\ud83d\ude00',
  '..',
  '.',
  '../../etc/passwd',
  '%',
  '%00',
  '%E0%A4%A',
  "'; DROP TABLE flows; --",
  '{{ 1 / 0 }}',
  '{% for x in range(0, 99999999) %}{% endfor %}',
  '${jndi:ldap://example.invalid/a}',
  '<script>alert(1)</script>',
  '',
  ' ',
  '\t',
  '\r\n',
  '-1',
  '0',
  '1',
  '9007199254740991',
  '99999999999999999999999',
  '1e400',
  '-0',
  'NaN',
  'Infinity',
  'true',
  'null',
  '[]',
  '{}',
  'PT-1S',
  'P9999999Y',
  'PT0.0000001S',
  '\u202e',
  '\ufeff',
  '💥'.repeat(50),
];

/**
 * The tenant the fuzz works in: what it lists and reads is what it made, so an
 * answer echoing another spec's data (a scratch path in a shell task's inputs)
 * is never taken for a leak.
 */
export const FUZZ_TENANT = 'fuzz';

/**
 * A text for any parameter or field. Only URL parts get the 300 kB one (a
 * request head over Node's limit); bodies have their own large cases, made once,
 * so that thousands of drafted requests do not each hold a copy.
 */
function hostileText(known: KnownIds, inUrl = false): fc.Arbitrary<string> {
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constantFrom(
        FUZZ_TENANT,
        known.namespace,
        known.flowId,
        known.executionId,
        known.workerQueueId,
        known.workerGroupId,
      ),
    },
    { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_TEXTS) },
    { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
    // Any UTF-16 code unit: lone surrogates and control characters included.
    {
      weight: 1,
      arbitrary: fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)), maxLength: 20 }),
    },
    { weight: 1, arbitrary: fc.oneof(fc.bigInt().map(String), fc.double().map(String), fc.integer().map(String)) },
    { weight: 1, arbitrary: inUrl ? fc.constantFrom(LONG, HUGE) : fc.constant(LONG) },
  );
}

/** A JSON value of any shape, with hostile texts as strings and keys. */
function jsonish(known: KnownIds): fc.Arbitrary<unknown> {
  const text = hostileText(known);
  const leaf = fc.oneof(
    text,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.bigInt().map((n) => Number(n)),
  );
  return fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(text, tie('value'), { maxKeys: 4 }),
    ),
  })).value;
}

/** Percent-encodes every byte but the unreserved ones; a lone surrogate becomes its (invalid) UTF-8-style bytes. */
export function percentEncode(text: string): string {
  let encoded = '';
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    const next = text.charCodeAt(index + 1);
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      encoded += encodeURIComponent(text.slice(index, index + 2));
      index += 1;
    } else if (unit >= 0xd800 && unit <= 0xdfff) {
      encoded += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join('');
    } else {
      encoded += encodeURIComponent(text[index]);
    }
  }
  return encoded;
}

/** As sent: percent-encoded, or raw when the text is printable ASCII (then `%`, `/`, `?` and `#` change the URL's shape, on purpose). */
function urlPart(known: KnownIds): fc.Arbitrary<string> {
  return fc
    .tuple(hostileText(known, true), fc.nat(9))
    .map(([text, roll]) => (roll === 0 && /^[\x21-\x7e]*$/.test(text) ? text : percentEncode(text)));
}

interface Draft {
  /** The operation it was generated for (method and path template). */
  readonly operation: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  /** Kept as text until sent: the large ones are shared constants, so thousands of drafts cost little memory. */
  readonly body?: string;
  /** Sent gzip-compressed (a real gzip body under `Content-Encoding: gzip`). */
  readonly gzip?: boolean;
}

const JSON_BROKEN = [
  '{',
  '{"inputs":}',
  '[1,',
  'nul',
  '"\\ud800"',
  '{"inputs":"\\u0000"}',
  '{"a":"\\x"}',
  '\u0000',
  '\ufeff{}',
  '1e999999',
];
const WRONG_CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'application/json',
  'application/x-yaml',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'multipart/form-data; boundary=zz',
  'application/json; charset=utf-16',
  'application/json; charset=latin-7',
  'application/x-www-form-urlencoded',
  'a/b/c',
  '*/*',
  '',
];
const ENCODINGS = ['gzip', 'deflate', 'br', 'snappy', 'gzip, identity', 'identity', 'x'.repeat(300)];

function flowYaml(known: KnownIds): fc.Arbitrary<string> {
  const text = hostileText(known);
  return fc.oneof(
    fc
      .tuple(text, text, text)
      .map(
        ([id, namespace, message]) =>
          `id: ${JSON.stringify(id)}\nnamespace: ${JSON.stringify(namespace)}\ntasks:\n  - id: t\n    type: io.kestra.plugin.core.log.Log\n    message: ${JSON.stringify(message)}\n`,
      ),
    text.map(
      (message) =>
        `id: ${known.flowId}\nnamespace: ${known.namespace}\ntasks:\n  - id: t\n    type: io.kestra.plugin.core.debug.Return\n    format: ${JSON.stringify(message)}\n`,
    ),
    fc.constant(
      `a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\nid: bomb\nnamespace: fuzz\ntasks: [*d]\n`,
    ),
    fc.constant(
      `id: x\nnamespace: y\ntasks:\n${'  - id: t\n    type: io.kestra.plugin.core.log.Log\n    message: m\n'.repeat(20_000)}`,
    ),
    fc.constant('key: [unclosed\n\t- tab: "\\x"\n'),
    text,
  );
}

function multipartBody(known: KnownIds): fc.Arbitrary<{ type: string; body: string }> {
  const text = hostileText(known);
  return fc.tuple(fc.array(fc.tuple(text, text, fc.boolean()), { maxLength: 4 }), fc.boolean()).map(([parts, closed]) => {
    const boundary = 'fuzzboundary';
    const body =
      parts
        .map(
          ([name, value, file]) =>
            `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file ? '; filename="f.txt"' : ''}\r\n\r\n${value}\r\n`,
        )
        .join('') + (closed ? `--${boundary}--\r\n` : '');
    return { type: `multipart/form-data; boundary=${boundary}`, body };
  });
}

function bodyFor(operation: Operation, known: KnownIds): fc.Arbitrary<{ type?: string; body?: string }> {
  const text = hostileText(known);
  const json = fc.oneof(
    fc
      .record(
        { inputs: fc.dictionary(text, jsonish(known), { maxKeys: 4 }), labels: fc.dictionary(text, text, { maxKeys: 4 }) },
        { requiredKeys: [] },
      )
      .map((v) => JSON.stringify(v)),
    fc
      .record(
        {
          name: text,
          description: text,
          tags: fc.array(text, { maxLength: 4 }),
          allowedTenants: fc.array(text, { maxLength: 2 }),
          reservedPercent: fc.oneof(fc.integer(), fc.double(), text),
          mode: fc.oneof(fc.constantFrom('STRICT', 'ELASTIC'), text),
          subscriptions: fc.array(
            fc.record({ workerQueueId: text, reservedPercent: fc.oneof(fc.integer(), text), mode: text }, { requiredKeys: [] }),
            { maxLength: 3 },
          ),
          disabled: fc.oneof(fc.boolean(), text),
        },
        { requiredKeys: [] },
      )
      .map((v) => JSON.stringify(v)),
    jsonish(known).map((v) => JSON.stringify(v) ?? 'null'),
    fc.constantFrom(...JSON_BROKEN),
    fc.constant(`{"inputs":{"deep":${'['.repeat(20_000)}${']'.repeat(20_000)}}}`),
    fc.constant(`${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`),
    fc.constant(`{"inputs":{"big":"${HUGE}"}}`),
  );
  const declared = operation.bodyTypes;
  const ofDeclaredType: fc.Arbitrary<{ type?: string; body?: string }>[] = [];
  if (declared.some((type) => type.includes('json')))
    ofDeclaredType.push(json.map((body) => ({ type: 'application/json', body })));
  if (declared.some((type) => type.includes('yaml')))
    ofDeclaredType.push(flowYaml(known).map((body) => ({ type: 'application/x-yaml', body })));
  if (declared.some((type) => type.includes('multipart'))) ofDeclaredType.push(multipartBody(known));
  const anyBody = fc.oneof(json, flowYaml(known), text);
  const mismatched = fc
    .tuple(fc.constantFrom(...WRONG_CONTENT_TYPES), anyBody)
    .map(([type, body]) => ({ type: type === '' ? undefined : type, body }));
  const none = fc.constant({});
  if (ofDeclaredType.length === 0) return fc.oneof({ weight: 4, arbitrary: none }, { weight: 1, arbitrary: mismatched });
  return fc.oneof(
    { weight: 6, arbitrary: fc.oneof(...ofDeclaredType) },
    { weight: 2, arbitrary: mismatched },
    { weight: 1, arbitrary: none },
  );
}

function requestFor(operation: Operation, known: KnownIds, adminToken: string): fc.Arbitrary<Draft> {
  const part = urlPart(known);
  const pathValues = fc.tuple(
    ...operation.pathParams.map(() =>
      fc.oneof({ weight: 3, arbitrary: fc.constant<string | undefined>(undefined) }, { weight: 2, arbitrary: part }),
    ),
  );
  const queryNames = fc.constantFrom(...operation.queryParams, 'unknown', 'page', 'size', '%00', 'a[b]', '__proto__');
  const query = fc.array(fc.tuple(queryNames, part), { maxLength: operation.queryParams.length + 2 });
  const auth = fc.oneof(
    { weight: 12, arbitrary: fc.constant(`Bearer ${adminToken}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        undefined,
        'Bearer wrong',
        'Basic YWRtaW46YWRtaW4=',
        `Bearer ${'t'.repeat(10_000)}`,
        'Bearer',
        `bearer ${adminToken}x`,
      ),
    },
  );
  const encoding = fc.oneof(
    { weight: 8, arbitrary: fc.constant<string | undefined>(undefined) },
    { weight: 1, arbitrary: fc.constantFrom(...ENCODINGS) },
  );
  const method = fc.oneof(
    { weight: 14, arbitrary: fc.constant(operation.method) },
    { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD') },
  );
  return fc
    .record({ method, pathValues, query, auth, body: bodyFor(operation, known), encoding, gzipReally: fc.boolean() })
    .map(({ method: verb, pathValues: values, query: pairs, auth: authorization, body, encoding: coding, gzipReally }) => {
      let path = operation.template;
      operation.pathParams.forEach((name, index) => {
        path = path.replace(`{${name}}`, values[index] ?? percentEncode(defaultFor(name, known)));
      });
      if (pairs.length > 0) path += `?${pairs.map(([name, value]) => `${percentEncode(name)}=${value}`).join('&')}`;
      const headers: Record<string, string> = {};
      if (authorization !== undefined) headers['authorization'] = authorization;
      if (body.type !== undefined) headers['content-type'] = body.type;
      if (body.body !== undefined && coding !== undefined) headers['content-encoding'] = coding;
      // Half the gzip bodies are real gzip (then the JSON inside is checked as usual), half are not gzip at all.
      const gzip = body.body !== undefined && coding === 'gzip' && gzipReally;
      return { operation: `${operation.method} ${operation.template}`, method: verb, path, headers, body: body.body, gzip };
    });
}

function defaultFor(name: string, known: KnownIds): string {
  switch (name) {
    case 'tenant':
      return FUZZ_TENANT;
    case 'namespace':
      return known.namespace;
    case 'flowId':
      return known.flowId;
    case 'executionId':
      return known.executionId;
    case 'queueId':
      return known.workerQueueId;
    case 'id':
      return known.executionId;
    default:
      return 'x';
  }
}

// ---------------------------------------------------------------------------
// Checking the answers

/** Text that only a leak would put in an answer: none of the fuzz's own values matches these. */
const LEAK_PATTERNS: readonly { readonly name: string; readonly pattern: RegExp }[] = [
  { name: 'a stack trace', pattern: /\n\s+at [^\n]*\(?[^\n]*:\d+:\d+\)?/ },
  { name: 'a stack trace', pattern: /\b(TypeError|RangeError|ReferenceError|SyntaxError): / },
  { name: 'a file path', pattern: /(\/(home|root|usr|var|work|tmp|opt)\/[\w.-]+\/)|node_modules|\.ts:\d+|\.js:\d+/ },
  {
    name: 'SQL text',
    pattern:
      /\b(SELECT\s[\s\S]{0,200}\sFROM\s|INSERT INTO\s|UPDATE\s+"?\w+"?\s+SET\s|syntax error at or near|violates (unique|foreign key|check) constraint)/i,
  },
  {
    name: 'a database error',
    pattern:
      /\b(Prisma|PrismaClient|prisma:|22021|22P05|invalid byte sequence|unsupported Unicode escape|ECONNREFUSED|postgres(ql)?:\/\/)/i,
  },
];

export function leaksIn(answer: string, secrets: readonly string[]): string | undefined {
  for (const secret of secrets) if (secret !== '' && answer.includes(secret)) return 'a secret';
  return LEAK_PATTERNS.find(({ pattern }) => pattern.test(answer))?.name;
}

/** VmRSS of a process, in bytes (0 when it is gone). */
export function rssBytes(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? 0 : Number(match[1]) * 1024;
  } catch {
    return 0;
  }
}

interface Answer {
  readonly status: number | 'no answer' | typeof HEAD_TOO_LARGE;
  readonly text: string;
  readonly ms: number;
}

const MAX_ANSWER_CHARS = 1_000_000;
/** Node's HTTP server answers a request line and headers over 16 KiB with a 431 and closes at once; a client still writing may see only the reset. */
const MAX_HEAD_BYTES = 16 * 1024;
export const HEAD_TOO_LARGE = 'reset after a head over 16 KiB';

function headBytes(draft: Draft): number {
  return (
    Buffer.byteLength(draft.path) +
    Object.entries(draft.headers).reduce((sum, [name, value]) => sum + name.length + Buffer.byteLength(value, 'latin1') + 4, 0)
  );
}

function payloadOf(draft: Draft): Buffer | undefined {
  if (draft.body === undefined) return undefined;
  return draft.gzip === true ? gzipSync(draft.body) : Buffer.from(draft.body);
}

function send(target: FuzzTarget, draft: Draft, agent: Agent, withinMs: number): Promise<Answer> {
  const started = Date.now();
  const payload = payloadOf(draft);
  return new Promise((resolve) => {
    let settled = false;
    const done = (status: Answer['status'], text: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ status, text, ms: Date.now() - started });
    };
    const url = new URL(target.apiUrl);
    let request: ReturnType<typeof httpRequest>;
    try {
      request = httpRequest({
        host: url.hostname,
        port: url.port,
        method: draft.method,
        path: draft.path,
        agent,
        headers: { ...draft.headers, ...(payload === undefined ? {} : { 'content-length': String(payload.length) }) },
      });
    } catch (error) {
      // Node's client refused to send it (a character it will not put on the wire): not the server's doing.
      resolve({ status: 0, text: String(error), ms: 0 });
      return;
    }
    const timer = setTimeout(() => {
      done('no answer', '');
      request.destroy();
    }, withinMs);
    request.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        if (text.length < MAX_ANSWER_CHARS) text += chunk;
      });
      response.on('end', () => done(response.statusCode ?? 0, text));
      response.on('error', () => done(response.statusCode ?? 0, text));
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      const reset = error.code === 'ECONNRESET' || error.code === 'EPIPE';
      done(reset && headBytes(draft) > MAX_HEAD_BYTES ? HEAD_TOO_LARGE : 'no answer', String(error));
    });
    request.end(payload);
  });
}

function summarise(draft: Draft): SentRequest {
  return {
    method: draft.method,
    path: draft.path.length > 300 ? `${draft.path.slice(0, 300)}…` : draft.path,
    contentType: draft.headers['content-type'],
    contentEncoding: draft.headers['content-encoding'],
    bodyBytes: draft.body === undefined ? 0 : Buffer.byteLength(draft.body),
    bodyExcerpt: draft.body?.slice(0, 200),
  };
}

// ---------------------------------------------------------------------------
// The run

async function call(
  target: FuzzTarget,
  method: string,
  path: string,
  body?: { type: string; text: string },
): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${target.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${target.adminToken}`, ...(body === undefined ? {} : { 'content-type': body.type }) },
    body: body?.text,
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, json };
}

/** A flow that ends SUCCESS at once (a Return task), in its own namespace. */
export function ordinaryFlow(namespace: string, id: string): string {
  return `id: ${id}\nnamespace: ${namespace}\ninputs:\n  - { id: who, type: STRING, defaults: world }\ntasks:\n  - id: answer\n    type: io.kestra.plugin.core.debug.Return\n    format: "hello {{ inputs.who }}"\n`;
}

/** Runs a fresh ordinary flow to its end (?wait=true) and returns its final state. */
export async function runOrdinaryFlow(
  target: FuzzTarget,
  namespace: string,
  id: string,
): Promise<{ executionId: string; state: string }> {
  // Tenants are entities: the fuzz's own is created once (409 when an earlier run made it).
  const tenant = await call(target, 'POST', '/api/v1/instance/tenants', {
    type: 'application/json',
    text: JSON.stringify({ id: FUZZ_TENANT }),
  });
  if (tenant.status !== 201 && tenant.status !== 409)
    throw new Error(`could not create the tenant ${FUZZ_TENANT}: ${tenant.status} ${JSON.stringify(tenant.json)}`);
  const created = await call(target, 'PUT', `/api/v1/${FUZZ_TENANT}/flows/${namespace}/${id}`, {
    type: 'application/x-yaml',
    text: ordinaryFlow(namespace, id),
  });
  if (created.status !== 200 && created.status !== 201)
    throw new Error(`could not save the ordinary flow: ${created.status} ${JSON.stringify(created.json)}`);
  const ran = await call(target, 'POST', `/api/v1/${FUZZ_TENANT}/executions/${namespace}/${id}?wait=true&waitTimeout=PT60S`, {
    type: 'application/json',
    text: '{"inputs":{"who":"fuzz"}}',
  });
  const execution = ran.json as { id?: string; state?: { current?: string } };
  return { executionId: execution.id ?? '', state: execution.state?.current ?? `HTTP ${ran.status}` };
}

/** Creates what the known ids name: a flow with one ended execution, a worker queue and a worker group. */
async function prepare(target: FuzzTarget, seed: number): Promise<KnownIds> {
  const namespace = 'fuzz.target';
  const flowId = `target-${seed}`;
  const { executionId } = await runOrdinaryFlow(target, namespace, flowId);
  const workerQueueId = `fuzz-queue-${seed}`;
  const workerGroupId = `fuzz-group-${seed}`;
  await call(target, 'PUT', `/api/v1/instance/worker-queues/${workerQueueId}`, {
    type: 'application/json',
    text: JSON.stringify({ tags: ['fuzz'] }),
  });
  await call(target, 'PUT', `/api/v1/instance/worker-groups/${workerGroupId}`, {
    type: 'application/json',
    text: JSON.stringify({ name: 'fuzz' }),
  });
  return { namespace, flowId, executionId, workerQueueId, workerGroupId };
}

export async function fuzzApi(target: FuzzTarget, options: FuzzOptions): Promise<FuzzReport> {
  const started = Date.now();
  const document = (await (await fetch(`${target.apiUrl}/api/v1/openapi.json`)).json()) as OpenApiDocument;
  const operations = operationsOf(document);
  const known = await prepare(target, options.seed);
  const perOperation = operations.map((operation) => requestFor(operation, known, target.adminToken));
  // One request for every operation first, so each is reached whatever the seed; then random ones.
  const firsts = perOperation.map((arbitrary, index) => fc.sample(arbitrary, { seed: options.seed + index, numRuns: 1 })[0]);
  const rest = fc.sample(fc.oneof(...perOperation), {
    seed: options.seed,
    numRuns: Math.max(0, options.requests - firsts.length),
  });
  const drafts = [...firsts, ...rest].slice(0, options.requests);

  const secrets = [target.adminToken, ...(options.secrets ?? [])];
  const withinMs = options.answerWithinMs ?? 30_000;
  const statuses: Record<string, number> = {};
  const findings: FuzzFinding[] = [];
  const startRssBytes = rssBytes(target.pid);
  let maxRssBytes = startRssBytes;
  const sampler = setInterval(() => (maxRssBytes = Math.max(maxRssBytes, rssBytes(target.pid))), 200);
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency ?? 4 });
  let slowestAnswerMs = 0;
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < drafts.length) {
      const draft = drafts[next];
      next += 1;
      const answer = await send(target, draft, agent, withinMs);
      done += 1;
      if (done % 100 === 0) options.onProgress?.(done);
      if (answer.status === 0) {
        statuses['refused by the client'] = (statuses['refused by the client'] ?? 0) + 1;
        continue;
      }
      statuses[String(answer.status)] = (statuses[String(answer.status)] ?? 0) + 1;
      slowestAnswerMs = Math.max(slowestAnswerMs, answer.ms);
      const finding = (problem: string) =>
        findings.push({ request: summarise(draft), status: answer.status, problem, answerExcerpt: answer.text.slice(0, 500) });
      if (answer.status === 'no answer')
        finding(answer.text === '' ? `no answer within ${withinMs} ms` : `no answer: ${answer.text}`);
      else if (typeof answer.status === 'number' && answer.status >= 500) finding(`a ${answer.status} answer`);
      const leak = leaksIn(answer.text, secrets);
      if (leak !== undefined) finding(`the answer holds ${leak}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  } finally {
    clearInterval(sampler);
    agent.destroy();
    // A request may have put the instance in maintenance mode: leave it, so what runs next is not held.
    await call(target, 'DELETE', '/api/v1/instance/maintenance').catch(() => undefined);
  }
  maxRssBytes = Math.max(maxRssBytes, rssBytes(target.pid));
  return {
    seed: options.seed,
    requests: drafts.length,
    operations: operations.length,
    operationsCovered: new Set(drafts.map((draft) => draft.operation)).size,
    statuses,
    findings,
    startRssBytes,
    maxRssBytes,
    slowestAnswerMs,
    durationMs: Date.now() - started,
  };
}
