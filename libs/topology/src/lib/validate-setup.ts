import { DEFAULT_WORKER_QUEUE_ID, SYSTEM_WORKER_QUEUE_ID } from '@lanner/model';
import { type ValidationProblem, type WorkerQueue } from '@lanner/worker-selector';
import {
  REGISTRATION_TOKEN_FORMAT,
  RegistrationTokenSecret,
  isWellFormedRegistrationToken,
  type RegisteredTokenLookup,
  type TokenFileReader,
} from './registration-token';
import {
  Problems,
  collidingQueue,
  element,
  field,
  quote,
  readList,
  readObject,
  readOptionalText,
  readQueueId,
  readId,
  readRestartStrategy,
  readSubscriptions,
  readWorkerQueueBody,
  rejectUnknownFields,
  type Fields,
} from './topology-fields';
import type { RegistrationTokenSpec, WorkerGroupSpec, WorkerQueueSpec } from './topology-model';

/** The `setup` section after validation: every value checked, token values wrapped. */
export interface ValidatedSetup {
  workerQueues: WorkerQueueSpec[];
  workerGroups: WorkerGroupSpec[];
}

/** What already exists in the repository (the reserved queues are implied). */
export interface ExistingTopology {
  workerQueues: readonly WorkerQueue[];
  workerGroupIds: readonly string[];
}

export interface SetupValidationPorts {
  tokenFiles: TokenFileReader;
  registeredTokens: RegisteredTokenLookup;
}

export type SetupValidation = { ok: true; setup: ValidatedSetup } | { ok: false; problems: ValidationProblem[] };

const SETUP_FIELDS = ['workerQueues', 'workerGroups'];
const QUEUE_FIELDS = ['id', 'tags', 'allowedTenants', 'description'];
const GROUP_FIELDS = ['id', 'name', 'description', 'restartStrategy', 'subscriptions', 'registrationTokens'];
const TOKEN_FIELDS = ['name', 'tokenFile', 'token'];

/**
 * Validates the whole declarative `setup` section before anything is written
 * and returns every problem at once (all-or-nothing), each with its path
 * under `root` (default `setup`).
 *
 * Checks that compare with what already exists (tag collisions with existing
 * queues, tokens registered on another group) apply only to entities that
 * will be created: an entity whose id exists is skipped whole, so its
 * declaration cannot conflict with anything. Every other rule applies to the
 * whole declaration.
 */
export function validateSetup(
  input: unknown,
  existing: ExistingTopology,
  ports: SetupValidationPorts,
  root = 'setup',
): SetupValidation {
  const problems = new Problems();
  if (input === undefined || input === null) return { ok: true, setup: { workerQueues: [], workerGroups: [] } };
  const fields = readObject(input, root, 'the declarative setup', problems);
  if (!fields) return { ok: false, problems: problems.list };
  rejectUnknownFields(fields, SETUP_FIELDS, root, 'the declarative setup', problems);

  const existingQueueIds = new Set([DEFAULT_WORKER_QUEUE_ID, SYSTEM_WORKER_QUEUE_ID, ...existing.workerQueues.map((q) => q.id)]);
  const existingGroupIds = new Set(existing.workerGroupIds);

  const queuesPath = field(root, 'workerQueues');
  const declaredQueues = readDeclaredQueues(fields['workerQueues'], queuesPath, problems);
  for (const { spec, path } of declaredQueues) {
    if (!spec || existingQueueIds.has(spec.id)) continue;
    const clash = collidingQueue(spec, existing.workerQueues);
    if (clash) problems.add(field(path, 'tags'), `has the same tags as the existing worker queue ${quote(clash.id)}`);
  }

  const catalog = new Set([...existingQueueIds, ...declaredQueues.flatMap((q) => (q.id === undefined ? [] : [q.id]))]);
  const groups = readDeclaredGroups(
    fields['workerGroups'],
    field(root, 'workerGroups'),
    catalog,
    existingGroupIds,
    ports,
    problems,
  );

  if (!problems.empty) return { ok: false, problems: problems.list };
  return {
    ok: true,
    setup: {
      workerQueues: declaredQueues.map((q) => q.spec).filter((spec): spec is WorkerQueueSpec => spec !== undefined),
      workerGroups: groups,
    },
  };
}

interface DeclaredQueue {
  path: string;
  /** The declared id when it is a readable id (even a reserved one is not kept). */
  id: string | undefined;
  spec: WorkerQueueSpec | undefined;
}

function readDeclaredQueues(value: unknown, path: string, problems: Problems): DeclaredQueue[] {
  const declared: DeclaredQueue[] = [];
  const firstById = new Map<string, string>();
  (readList(value, path, problems) ?? []).forEach((entry, i) => {
    const at = element(path, i);
    const fields = readObject(entry, at, 'a worker queue', problems);
    if (!fields) return;
    rejectUnknownFields(fields, QUEUE_FIELDS, at, 'a worker queue', problems);
    const id = readQueueId(fields['id'], field(at, 'id'), problems);
    if (id !== undefined) {
      const first = firstById.get(id);
      if (first !== undefined) problems.add(field(at, 'id'), `repeats the id ${quote(id)} of ${first}`);
      else firstById.set(id, at);
    }
    const spec = readWorkerQueueBody(id, fields, at, problems);
    // Tag collision inside the declaration: compare with every earlier declared queue.
    if (spec) {
      const clash = declared.find((other) => other.spec && other.spec.id !== spec.id && collidingQueue(spec, [other.spec]));
      if (clash) problems.add(field(at, 'tags'), `has the same tags as ${clash.path}`);
    }
    declared.push({ path: at, id, spec });
  });
  return declared;
}

function readDeclaredGroups(
  value: unknown,
  path: string,
  catalog: ReadonlySet<string>,
  existingGroupIds: ReadonlySet<string>,
  ports: SetupValidationPorts,
  problems: Problems,
): WorkerGroupSpec[] {
  const groups: WorkerGroupSpec[] = [];
  const firstById = new Map<string, string>();
  const firstPathOfToken: Array<{ secret: RegistrationTokenSecret; path: string }> = [];
  (readList(value, path, problems) ?? []).forEach((entry, i) => {
    const at = element(path, i);
    const fields = readObject(entry, at, 'a worker group', problems);
    if (!fields) return;
    rejectUnknownFields(fields, GROUP_FIELDS, at, 'a worker group', problems);
    const before = problems.list.length;
    const id = readId(fields['id'], field(at, 'id'), problems);
    if (id !== undefined) {
      const first = firstById.get(id);
      if (first !== undefined) problems.add(field(at, 'id'), `repeats the id ${quote(id)} of ${first}`);
      else firstById.set(id, at);
    }
    // Decision: in the setup the display name defaults to the id (the REST API requires it).
    const name = readOptionalText(fields['name'], field(at, 'name'), problems);
    const description = readOptionalText(fields['description'], field(at, 'description'), problems);
    const restartStrategy = readRestartStrategy(fields['restartStrategy'], field(at, 'restartStrategy'), problems);
    const subscriptions = readSubscriptions(fields['subscriptions'], field(at, 'subscriptions'), catalog, problems);
    const willBeCreated = id !== undefined && !existingGroupIds.has(id);
    const tokens = readTokens(
      fields['registrationTokens'],
      field(at, 'registrationTokens'),
      willBeCreated,
      firstPathOfToken,
      ports,
      problems,
    );
    if (id === undefined || problems.list.length > before) return;
    groups.push({
      id,
      name: name !== undefined && name.trim().length > 0 ? name : id,
      ...(description === undefined ? {} : { description }),
      ...(restartStrategy === undefined ? {} : { restartStrategy }),
      subscriptions,
      registrationTokens: tokens,
    });
  });
  return groups;
}

function readTokens(
  value: unknown,
  path: string,
  groupWillBeCreated: boolean,
  seen: Array<{ secret: RegistrationTokenSecret; path: string }>,
  ports: SetupValidationPorts,
  problems: Problems,
): RegistrationTokenSpec[] {
  const tokens: RegistrationTokenSpec[] = [];
  const names = new Map<string, string>();
  (readList(value, path, problems) ?? []).forEach((entry, i) => {
    const at = element(path, i);
    const fields = readObject(entry, at, 'a registration token', problems);
    if (!fields) return;
    rejectUnknownFields(fields, TOKEN_FIELDS, at, 'a registration token', problems);
    const before = problems.list.length;
    const name = readTokenName(fields, at, names, problems);
    const read = readTokenValue(fields, at, ports.tokenFiles, problems);
    if (read) {
      const duplicate = seen.find((other) => other.secret.sameAs(read.secret));
      if (duplicate) problems.add(at, `repeats the token of ${duplicate.path}`);
      else seen.push({ secret: read.secret, path: at });
      if (groupWillBeCreated) {
        const owner = ports.registeredTokens.groupOwning(read.secret);
        if (owner !== undefined) problems.add(at, `is already registered on the worker group ${quote(owner)}`);
      }
    }
    if (name !== undefined && read && problems.list.length === before) tokens.push({ name, ...read });
  });
  return tokens;
}

function readTokenName(fields: Fields, at: string, names: Map<string, string>, problems: Problems): string | undefined {
  const value = fields['name'];
  const path = field(at, 'name');
  if (typeof value !== 'string' || value.trim().length === 0) {
    problems.add(path, value === undefined ? 'is required' : 'must be a non-blank string');
    return undefined;
  }
  const first = names.get(value);
  if (first !== undefined) {
    problems.add(path, `repeats the token name ${quote(value)} of ${first}`);
    return undefined;
  }
  names.set(value, at);
  return value;
}

/** Messages never include the token value, only where it came from. */
function readTokenValue(
  fields: Fields,
  at: string,
  files: TokenFileReader,
  problems: Problems,
): Pick<RegistrationTokenSpec, 'source' | 'secret'> | undefined {
  const hasFile = fields['tokenFile'] !== undefined;
  const hasToken = fields['token'] !== undefined;
  if (hasFile === hasToken) {
    problems.add(
      at,
      hasFile ? 'sets both tokenFile and token: exactly one is allowed' : 'needs exactly one of tokenFile or token',
    );
    return undefined;
  }
  if (hasFile) {
    const filePath = field(at, 'tokenFile');
    const file = fields['tokenFile'];
    if (typeof file !== 'string' || file.trim().length === 0) {
      problems.add(filePath, 'must be a non-blank file path');
      return undefined;
    }
    const read = files.read(file);
    if (!read.readable) {
      problems.add(filePath, `names a file that cannot be read (${read.reason})`);
      return undefined;
    }
    // Secret files usually end with a newline; it is not part of the token.
    const content = read.content.trim();
    if (content.length === 0) {
      problems.add(filePath, 'names an empty file');
      return undefined;
    }
    if (!isWellFormedRegistrationToken(content)) {
      problems.add(filePath, `holds a malformed registration token (expected ${REGISTRATION_TOKEN_FORMAT})`);
      return undefined;
    }
    return { source: { kind: 'file', path: file }, secret: new RegistrationTokenSecret(content) };
  }
  const tokenPath = field(at, 'token');
  const token = fields['token'];
  if (typeof token !== 'string' || token.trim().length === 0) {
    problems.add(tokenPath, 'must be a non-blank string');
    return undefined;
  }
  if (token.includes('${')) {
    problems.add(tokenPath, 'is an unresolved environment placeholder: set the variable it names');
    return undefined;
  }
  if (!isWellFormedRegistrationToken(token.trim())) {
    problems.add(tokenPath, `is a malformed registration token (expected ${REGISTRATION_TOKEN_FORMAT})`);
    return undefined;
  }
  return { source: { kind: 'config' }, secret: new RegistrationTokenSecret(token.trim()) };
}
