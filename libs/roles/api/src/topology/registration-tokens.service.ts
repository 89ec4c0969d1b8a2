import { Inject, Injectable } from '@nestjs/common';
import { generateSecretToken, hashToken } from '@lanner/auth';
import type { RegistrationTokenRecord } from '@lanner/model';
import { NotFound, type Repositories } from '@lanner/repository';
import { REPOSITORIES } from '@lanner/runtime';
import { z } from 'zod';
import { contentWith } from '../http/request-body';
import { TopologyBroadcasts } from './topology-broadcasts';

const MAX_TOKEN_NAME_LENGTH = 200;
const NON_BLANK = 'must be a non-blank string';

/** The body of a new registration token: `{ name }`, a non-blank string; every problem with its JSON path (422). */
export const RegistrationTokenBodySchema = z.strictObject(
  {
    name: z
      .string({ error: (issue) => (issue.input === undefined || issue.input === null ? 'is required' : NON_BLANK) })
      .min(1, { error: NON_BLANK, abort: true })
      .refine((name) => name.trim().length > 0, { error: NON_BLANK, abort: true })
      .max(MAX_TOKEN_NAME_LENGTH, `must be at most ${MAX_TOKEN_NAME_LENGTH} characters`),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? 'is not a known field of a registration token'
        : 'must be an object describing a registration token',
  },
);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A new token with its value: the only moment the value exists outside the worker that presents it. */
export interface MintedRegistrationToken {
  readonly record: RegistrationTokenRecord;
  readonly token: string;
}

/**
 * Registration tokens of a worker group (WORKERS.md "Worker authentication"):
 * random (256 bits), shown once, stored only as their SHA-256 hash. Revoking
 * one tells every controller at once, so its workers get no new work.
 */
@Injectable()
export class RegistrationTokensService {
  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    private readonly broadcasts: TopologyBroadcasts,
  ) {}

  async mint(groupId: string, body: unknown): Promise<MintedRegistrationToken> {
    const { name } = contentWith(RegistrationTokenBodySchema, body, 'The registration token is not valid');
    await this.repositories.workerGroups.get(groupId);
    const token = generateSecretToken();
    const record = await this.repositories.registrationTokens.create(groupId, name, hashToken(token));
    return { record, token };
  }

  async list(groupId: string): Promise<RegistrationTokenRecord[]> {
    await this.repositories.workerGroups.get(groupId);
    return this.repositories.registrationTokens.listByGroup(groupId);
  }

  async revoke(groupId: string, tokenId: string, correlationId: string): Promise<void> {
    await this.repositories.workerGroups.get(groupId);
    // Token ids are UUIDs; anything else names no token (and must not reach the database as one).
    if (!UUID.test(tokenId)) throw new NotFound('registration token', tokenId);
    const now = new Date();
    await this.repositories.registrationTokens.revoke(groupId, tokenId, now);
    // Refreshes are refused for a revoked token anyway; ending the families at once leaves nothing usable behind.
    await this.repositories.workerCredentials.revokeByRegistrationToken(tokenId, now);
    await this.broadcasts.tokenRevoked(groupId, tokenId, correlationId);
  }
}
