import * as grpc from '@grpc/grpc-js';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import {
  CredentialRejected,
  CredentialStoreUnavailable,
  InvalidCredentialRequest,
  signingKeyFrom,
  WorkerAccessTokens,
  WorkerCredentialIssuer,
  type IssuedWorkerCredentials,
  type RefreshTokenConsumption,
  type WorkerCredentialStore,
} from '@lanner/auth';
import type { Credentials, WorkerAuthServiceServer } from '@lanner/frames';
import type { Repositories } from '@lanner/repository';
import { MetricsRegistry, REPOSITORIES } from '@lanner/runtime';
import type { Counter } from 'prom-client';
import { CLOCK, type Clock } from './clock';
import { CONTROLLER_SETTINGS, type ControllerSettings } from './controller-settings';
import { refusalError } from './grpc-refusals';

/** Where the signing key comes from, as errors name it (standalone fills the same setting from its data directory). */
const SIGNING_KEY_SOURCE = 'LANNER_JWT_SIGNING_KEY';

type Operation = 'register' | 'refresh';
type Outcome = 'issued' | 'rejected' | 'invalid' | 'unavailable' | 'failed';

/** The credential store of the issuer, over the repositories. */
export function repositoryCredentialStore(repositories: Repositories): WorkerCredentialStore {
  return {
    async findRegistrationTokenByHash(tokenHash) {
      const match = await repositories.registrationTokens.findMatchByHash(tokenHash);
      return match === null
        ? null
        : {
            id: match.token.id,
            workerGroupId: match.token.workerGroupId,
            tokenHash: match.tokenHash,
            revokedAt: match.token.revokedAt,
          };
    },
    markRegistrationTokenUsed: (registrationTokenId, at) => repositories.registrationTokens.markUsed(registrationTokenId, at),
    async createWorker(worker, firstRefreshToken, at) {
      await repositories.workerCredentials.createWorker(worker, firstRefreshToken, at);
    },
    async consumeRefreshToken(tokenHash, successor, at): Promise<RefreshTokenConsumption> {
      const consumed = await repositories.workerCredentials.consumeRefreshToken(tokenHash, successor, at);
      if (consumed.outcome === 'unknown') return { outcome: 'unknown' };
      return {
        outcome: consumed.outcome,
        token: {
          id: consumed.token.id,
          familyId: consumed.token.familyId,
          tokenHash: consumed.tokenHash,
          workerId: consumed.worker.id,
          workerGroupId: consumed.worker.workerGroupId,
          registrationTokenId: consumed.worker.registrationTokenId,
          registrationTokenActive: consumed.registrationTokenActive,
        },
      };
    },
    revokeRefreshFamily: (familyId, at) => repositories.workerCredentials.revokeFamily(familyId, at),
  };
}

/**
 * WorkerAuthService (`proto/lanner/worker/v1/auth.proto`): Register turns a
 * registration token into worker credentials, Refresh rotates them. The rules
 * live in `@lanner/auth`; this edge validates nothing itself and maps the
 * outcome to gRPC: UNAUTHENTICATED (one message whatever the reason),
 * INVALID_ARGUMENT naming the field, UNAVAILABLE when the database is down.
 * Logs carry ids (worker, group, registration token, refresh family), never a token.
 *
 * `accessTokens` verifies the JWT a worker presents when it opens its stream.
 */
@Injectable()
export class WorkerAuthGrpc {
  readonly accessTokens: WorkerAccessTokens;
  private readonly issuer: WorkerCredentialIssuer;
  private readonly logger = new Logger(WorkerAuthGrpc.name);
  private readonly requests: Counter<'operation' | 'outcome'> | undefined;
  private readonly rejections: Counter<'reason'> | undefined;

  constructor(
    @Inject(CONTROLLER_SETTINGS) settings: ControllerSettings,
    @Inject(REPOSITORIES) repositories: Repositories,
    @Inject(CLOCK) private readonly clock: Clock,
    @Optional() metrics?: MetricsRegistry,
  ) {
    // A short key stops the controller at start (WeakSigningKey names the variable, never the value).
    const key = signingKeyFrom(settings.workerAuth.signingKey, SIGNING_KEY_SOURCE);
    this.accessTokens = new WorkerAccessTokens(key, settings.workerAuth.accessTokenTtlS);
    this.issuer = new WorkerCredentialIssuer(repositoryCredentialStore(repositories), this.accessTokens, {
      refreshTokenTtlS: settings.workerAuth.refreshTokenTtlS,
    });
    this.requests = metrics?.counter({
      name: 'lanner_controller_worker_credential_requests_total',
      help: 'Register and Refresh calls of WorkerAuthService, by outcome (issued, rejected, invalid, unavailable, failed).',
      labelNames: ['operation', 'outcome'],
    });
    this.rejections = metrics?.counter({
      name: 'lanner_controller_worker_credential_rejections_total',
      help: 'Refused registration and refresh tokens by reason; refresh-token-reused means a copied refresh token (its family was revoked).',
      labelNames: ['reason'],
    });
  }

  implementation(): WorkerAuthServiceServer {
    return {
      register: (call, callback) => {
        void this.answer('register', callback, async () => {
          const credentials = await this.issuer.register(
            call.request.registrationToken,
            call.request.workerName,
            this.clock.now(),
          );
          this.logger.log(
            {
              workerId: credentials.workerId,
              workerGroupId: credentials.workerGroupId,
              registrationTokenId: credentials.registrationTokenId,
            },
            'worker registered',
          );
          return credentials;
        });
      },
      refresh: (call, callback) => {
        void this.answer('refresh', callback, async () => {
          const credentials = await this.issuer.refresh(call.request.refreshToken, this.clock.now());
          this.logger.debug(
            { workerId: credentials.workerId, workerGroupId: credentials.workerGroupId },
            'worker credentials refreshed',
          );
          return credentials;
        });
      },
    };
  }

  private async answer(
    operation: Operation,
    callback: grpc.sendUnaryData<Credentials>,
    issue: () => Promise<IssuedWorkerCredentials>,
  ): Promise<void> {
    try {
      const credentials = await issue();
      this.count(operation, 'issued');
      callback(null, toCredentials(credentials));
    } catch (error) {
      callback(this.statusOf(operation, error));
    }
  }

  private statusOf(operation: Operation, error: unknown): Partial<grpc.StatusObject> {
    if (error instanceof CredentialRejected) {
      this.count(operation, 'rejected');
      this.rejections?.inc({ reason: error.reason });
      const fields = { operation, reason: error.reason, ...error.ids };
      if (error.reason === 'refresh-token-reused')
        this.logger.warn(fields, 'a used refresh token was presented again; its token family is revoked');
      else this.logger.log(fields, 'worker credentials refused');
      return refusalError('unauthenticated', error.message);
    }
    if (error instanceof InvalidCredentialRequest) {
      this.count(operation, 'invalid');
      return refusalError('invalid-argument', error.message);
    }
    if (error instanceof CredentialStoreUnavailable) {
      this.count(operation, 'unavailable');
      // The cause's name and code only: driver messages can carry SQL or connection details.
      this.logger.warn({ operation, cause: describeCause(error.cause) }, 'credential store unavailable');
      return refusalError('unavailable', error.message);
    }
    this.count(operation, 'failed');
    this.logger.error({ operation, cause: describeCause(error) }, 'worker credentials could not be issued');
    return refusalError('internal', 'the controller could not issue credentials; retry later');
  }

  private count(operation: Operation, outcome: Outcome): void {
    this.requests?.inc({ operation, outcome });
  }
}

function toCredentials(issued: IssuedWorkerCredentials): Credentials {
  return {
    accessToken: issued.accessToken,
    accessExpiresAt: issued.accessExpiresAt,
    refreshToken: issued.refreshToken,
    refreshExpiresAt: issued.refreshExpiresAt,
    workerId: issued.workerId,
    workerGroupId: issued.workerGroupId,
  };
}

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return typeof cause;
  const code = (cause as { code?: unknown }).code;
  return typeof code === 'string' ? `${cause.name} (${code})` : cause.name;
}
