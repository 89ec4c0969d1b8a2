import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  type AccessSetup,
  type DeclaredApiToken,
  type DeclaredTenant,
  type DeclaredUser,
  validateAccessSetup,
} from '@lanner/access';
import { hashPassword, hashToken, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '@lanner/auth';
import { DEFAULT_TOPIC_PARTITIONS, jobTopicsOf } from '@lanner/frames';
import type { QueuePort } from '@lanner/queue';
import { AlreadyExists, type Repositories } from '@lanner/repository';
import { QUEUE, REPOSITORIES, StartupRefused } from '@lanner/runtime';
import {
  type ExistingTopology,
  planSetup,
  type RegisteredTokenLookup,
  type RegistrationTokenSecret,
  type SetupPlan,
  type SetupValidationPorts,
  type TokenFileReader,
  validateSetup,
  type ValidatedSetup,
} from '@lanner/topology';
import { API_ROLE_OPTIONS, type ApiRoleOptions } from '../api-role.options';
import { storedRole } from '../auth/api-token-auth';
import { fileTokenReader, readSetupSection, type SetupProblem } from './setup-file';

/**
 * The declarative setup is invalid: the process must not start. The message
 * lists every problem with its path; there is no stack trace to show, because
 * the fault is in the operator's file, not in Lanner.
 */
export class InvalidSetup extends StartupRefused {
  constructor(
    readonly file: string,
    readonly setupProblems: readonly SetupProblem[],
  ) {
    super(
      `the declarative setup in ${file} is invalid, nothing was written (${setupProblems.length} problem${setupProblems.length === 1 ? '' : 's'}):\n` +
        setupProblems.map((p) => `  ${p.path} ${p.message}`).join('\n'),
      [`the declarative setup in ${file} is invalid, nothing was written`, ...setupProblems.map((p) => `${p.path} ${p.message}`)],
    );
    this.name = 'InvalidSetup';
    this.stack = `${this.name}: ${this.message}`;
  }
}

export interface SetupOutcome {
  readonly plan: SetupPlan;
}

/**
 * Applies the `setup` section of LANNER_SETUP_FILE at start (api and
 * standalone; WORKERS.md "Declarative setup"): the whole section is validated
 * against what exists, and only when every rule holds is anything written,
 * with seed semantics (an existing id is skipped whole). One log line per
 * created or skipped entity and a summary; a token value is never logged:
 * it is hashed on its way to the repository and nowhere else.
 */
@Injectable()
export class DeclarativeSetup {
  private readonly logger = new Logger(DeclarativeSetup.name);
  private readonly file: string | undefined;
  private readonly topicPrefix: string;

  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(QUEUE) private readonly queue: QueuePort,
    @Inject(API_ROLE_OPTIONS) options: ApiRoleOptions,
  ) {
    this.file = options.setupFile;
    this.topicPrefix = options.topicPrefix ?? '';
  }

  get enabled(): boolean {
    return this.file !== undefined;
  }

  /** Validates and applies the file; InvalidSetup (nothing written) when any rule fails. Needs the reserved topology seeded. */
  async apply(env: Readonly<Record<string, string | undefined>> = process.env): Promise<SetupOutcome | undefined> {
    const file = this.file;
    if (file === undefined) return undefined;
    const read = readSetupSection(file, env);
    if (!read.ok) throw new InvalidSetup(file, read.problems);

    // `tenants`, `users` and `apiTokens` are the access part of the setup; the rest is the topology's.
    const { access, topology } = splitSection(read.section);
    const tokenFiles = fileTokenReader(file);
    const tenants = await this.repositories.tenants.list();
    const validatedAccess = validateAccessSetup(access, {
      files: tokenFiles,
      env,
      existingTenantIds: tenants.map((tenant) => tenant.id),
      passwordProblem: (password) =>
        password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH
          ? `must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`
          : undefined,
    });

    const [queues, groups] = await Promise.all([this.repositories.workerQueues.list(), this.repositories.workerGroups.list()]);
    const existing: ExistingTopology = { workerQueues: queues, workerGroupIds: groups.map((g) => g.id) };
    const setup = await this.validate(topology, existing, tokenFiles, file, validatedAccess.ok ? [] : validatedAccess.problems);
    if (!validatedAccess.ok) throw new InvalidSetup(file, validatedAccess.problems);

    const plan = planSetup(setup, {
      workerQueueIds: existing.workerQueues.map((q) => q.id),
      workerGroupIds: existing.workerGroupIds,
    });
    await this.write(plan);
    const seeded = await this.seedAccess(validatedAccess.setup);
    this.logger.log({ setupFile: file }, `${plan.summary}; ${seeded}`);
    return { plan };
  }

  /**
   * The validator asks synchronously whether a token is registered on another
   * group; the repository answers asynchronously. So a first pass collects the
   * declared tokens, their owners are looked up by hash, and the second pass
   * (the validator is pure, so the same input gives the same answer) decides.
   */
  private async validate(
    section: unknown,
    existing: ExistingTopology,
    tokenFiles: TokenFileReader,
    file: string,
    otherProblems: readonly SetupProblem[],
  ): Promise<ValidatedSetup> {
    const declared: RegistrationTokenSecret[] = [];
    validateSetup(section, existing, {
      tokenFiles,
      registeredTokens: { groupOwning: (secret) => (declared.push(secret), undefined) },
    });
    const owners = new Map<string, string>();
    for (const secret of declared) {
      const tokenHash = hashToken(secret.reveal());
      const stored = await this.repositories.registrationTokens.findByHash(tokenHash);
      if (stored !== null) owners.set(tokenHash, stored.workerGroupId);
    }
    const registeredTokens: RegisteredTokenLookup = { groupOwning: (secret) => owners.get(hashToken(secret.reveal())) };
    const ports: SetupValidationPorts = { tokenFiles, registeredTokens };
    const validation = validateSetup(section, existing, ports);
    if (!validation.ok) throw new InvalidSetup(file, [...validation.problems, ...otherProblems]);
    return validation.setup;
  }

  /** Tenants, then users (a tenant they name may be new), then API tokens; returns the summary. */
  private async seedAccess(access: AccessSetup): Promise<string> {
    const tenants = await this.seedTenants(access.tenants);
    const users = await this.seedUsers(access.users);
    const tokens = await this.seedApiTokens(access.apiTokens);
    const counts = (seeded: { created: number; skipped: number }) => `${seeded.created} created, ${seeded.skipped} skipped`;
    return `tenants: ${counts(tenants)}; users: ${counts(users)}; API tokens: ${counts(tokens)}`;
  }

  /** Seed semantics: a tenant that exists (disabled or not) is left as it is, its name included. */
  private async seedTenants(tenants: readonly DeclaredTenant[]): Promise<{ created: number; skipped: number }> {
    let created = 0;
    for (const tenant of tenants) {
      const where = { kind: 'tenant', id: tenant.id };
      try {
        await this.repositories.tenants.create({ id: tenant.id, name: tenant.name });
        created += 1;
        this.logger.log(where, `created tenant '${tenant.id}'`);
      } catch (error) {
        if (!(error instanceof AlreadyExists)) throw error;
        this.logger.log(where, `skipped tenant '${tenant.id}': it exists`);
      }
    }
    return { created, skipped: tenants.length - created };
  }

  /**
   * Seed semantics: a user of that username that exists is left as it is (its password,
   * tenant and role included; change them through the API). The password is hashed
   * (argon2id) on its way to the repository and logged nowhere: the log names its source.
   */
  private async seedUsers(users: readonly DeclaredUser[]): Promise<{ created: number; skipped: number }> {
    let created = 0;
    for (const user of users) {
      const where = { kind: 'user', username: user.username };
      const exists = (await this.repositories.users.findForLogin(user.username)) !== null;
      if (!exists) {
        try {
          await this.repositories.users.create({
            username: user.username,
            passwordHash: await hashPassword(user.password.reveal()),
            tenantId: user.tenantId,
            role: storedRole(user.role),
            instanceAdmin: user.instanceAdmin,
          });
          created += 1;
          const source =
            user.passwordSource.kind === 'env'
              ? `the environment variable ${user.passwordSource.name}`
              : `the file ${user.passwordSource.path}`;
          this.logger.log(
            where,
            `created user '${user.username}' of tenant '${user.tenantId}' (${user.role}${user.instanceAdmin ? ', instance admin' : ''}), password from ${source}`,
          );
          continue;
        } catch (error) {
          // Another replica applying the same setup got there first.
          if (!(error instanceof AlreadyExists)) throw error;
        }
      }
      this.logger.log(where, `skipped user '${user.username}': it exists`);
    }
    return { created, skipped: users.length - created };
  }

  /** Seed semantics: a tenant's token of that name that exists (revoked or not) is left as it is. */
  private async seedApiTokens(tokens: readonly DeclaredApiToken[]): Promise<{ created: number; skipped: number }> {
    let created = 0;
    for (const token of tokens) {
      const where = { kind: 'api-token', tenantId: token.tenantId, name: token.name };
      const exists = (await this.repositories.apiTokens.list(token.tenantId)).some((stored) => stored.name === token.name);
      if (!exists) {
        try {
          await this.repositories.apiTokens.create({
            tenantId: token.tenantId,
            name: token.name,
            tokenHash: hashToken(token.secret.reveal()),
            role: storedRole(token.role),
            namespace: token.namespace,
            expiresAt: null,
          });
          created += 1;
          this.logger.log(where, `created API token '${token.name}' of tenant '${token.tenantId}' (${token.role})`);
          continue;
        } catch (error) {
          // Another replica applying the same setup got there first (or the value is stored under another name).
          if (!(error instanceof AlreadyExists)) throw error;
        }
      }
      this.logger.log(where, `skipped API token '${token.name}' of tenant '${token.tenantId}': it exists`);
    }
    return { created, skipped: tokens.length - created };
  }

  private async write(plan: SetupPlan): Promise<void> {
    const newQueues = plan.steps.flatMap((step) =>
      step.action === 'CREATE' && step.kind === 'worker-queue' ? [step.queue] : [],
    );
    // Topics first: a queue never exists without the topic its jobs go to (createTopics is idempotent).
    if (newQueues.length > 0) {
      await this.queue.createTopics(
        newQueues.flatMap((q) =>
          jobTopicsOf(q.id).map((topic) => ({ topic: `${this.topicPrefix}${topic}`, partitions: DEFAULT_TOPIC_PARTITIONS })),
        ),
      );
    }
    for (const step of plan.steps) {
      if (step.action === 'SKIP') {
        this.logger.log({ kind: step.kind, id: step.id }, step.logLine);
      } else if (step.kind === 'worker-queue') {
        const { id, tags, allowedTenants, description } = step.queue;
        await this.repositories.workerQueues.put({ id, tags, allowedTenants, description: description ?? null });
        this.logger.log({ kind: step.kind, id }, step.logLine);
      } else {
        const { group } = step;
        try {
          await this.repositories.workerGroups.createWithTokens(
            {
              id: group.id,
              name: group.name,
              description: group.description ?? null,
              ...(group.restartStrategy === undefined ? {} : { restartStrategy: group.restartStrategy }),
              subscriptions: group.subscriptions.map((s) => ({
                workerQueueId: s.workerQueueId,
                mode: s.mode,
                reservedPercent: s.reservedPercent ?? null,
              })),
            },
            group.registrationTokens.map((t) => ({ name: t.name, tokenHash: hashToken(t.secret.reveal()) })),
          );
          this.logger.log({ kind: step.kind, id: group.id }, step.logLine);
        } catch (error) {
          // Another api replica applying the same setup got there first: seed semantics, so it is a skip.
          if (!(error instanceof AlreadyExists)) throw error;
          this.logger.log(
            { kind: step.kind, id: group.id },
            `skipped worker group '${group.id}': it was created meanwhile (${error.entity} already exists)`,
          );
        }
      }
    }
  }
}

/** The access part of the section (`tenants`, `users`, `apiTokens`) and the rest, which is the topology's. */
function splitSection(section: unknown): { access: Record<string, unknown>; topology: unknown } {
  if (typeof section !== 'object' || section === null || Array.isArray(section)) return { access: {}, topology: section };
  const { tenants, users, apiTokens, ...topology } = section as Record<string, unknown>;
  return { access: { tenants, users, apiTokens }, topology };
}
