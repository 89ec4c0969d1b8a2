import { randomUUID } from 'node:crypto';
import { generateSecretToken, hashToken } from './secret-tokens';
import { signingKeyFrom } from './signing-key';
import { WorkerAccessTokens } from './worker-access-tokens';
import {
  CredentialRejected,
  CredentialStoreUnavailable,
  InvalidCredentialRequest,
  WorkerCredentialIssuer,
  type NewRefreshToken,
  type NewWorker,
  type RefreshTokenConsumption,
  type StoredRegistrationToken,
  type WorkerCredentialStore,
} from './worker-credential-issuer';

// An in-memory store with the semantics the repository gives in PostgreSQL.
class FakeCredentialStore implements WorkerCredentialStore {
  readonly registrationTokens = new Map<string, StoredRegistrationToken & { lastUsedAt: Date | null }>();
  readonly workers = new Map<string, NewWorker>();
  readonly refreshTokens: (NewRefreshToken & { id: string; workerId: string; usedAt: Date | null; revokedAt: Date | null })[] =
    [];
  down = false;

  addRegistrationToken(workerGroupId: string): { value: string; id: string } {
    const value = generateSecretToken();
    const id = randomUUID();
    this.registrationTokens.set(id, { id, workerGroupId, tokenHash: hashToken(value), revokedAt: null, lastUsedAt: null });
    return { value, id };
  }

  revokeRegistrationToken(id: string, at: Date): void {
    const token = this.registrationTokens.get(id);
    if (token) this.registrationTokens.set(id, { ...token, revokedAt: at });
  }

  async findRegistrationTokenByHash(tokenHash: string) {
    this.check();
    return [...this.registrationTokens.values()].find((token) => token.tokenHash === tokenHash) ?? null;
  }

  async markRegistrationTokenUsed(id: string, at: Date) {
    this.check();
    const token = this.registrationTokens.get(id);
    if (token) token.lastUsedAt = at;
  }

  async createWorker(worker: NewWorker, first: NewRefreshToken) {
    this.check();
    this.workers.set(worker.id, worker);
    this.refreshTokens.push({ ...first, id: randomUUID(), workerId: worker.id, usedAt: null, revokedAt: null });
  }

  async consumeRefreshToken(
    tokenHash: string,
    successor: Omit<NewRefreshToken, 'familyId'>,
    at: Date,
  ): Promise<RefreshTokenConsumption> {
    this.check();
    const row = this.refreshTokens.find((token) => token.tokenHash === tokenHash);
    if (!row) return { outcome: 'unknown' };
    const worker = this.workers.get(row.workerId) as NewWorker;
    const registration = this.registrationTokens.get(worker.registrationTokenId);
    const token = {
      id: row.id,
      familyId: row.familyId,
      tokenHash: row.tokenHash,
      workerId: row.workerId,
      workerGroupId: worker.workerGroupId,
      registrationTokenId: worker.registrationTokenId,
      registrationTokenActive: registration !== undefined && registration.revokedAt === null,
    };
    if (row.usedAt) return { outcome: 'used', token };
    if (row.revokedAt) return { outcome: 'revoked', token };
    if (row.expiresAt <= at) return { outcome: 'expired', token };
    row.usedAt = at;
    this.refreshTokens.push({
      ...successor,
      familyId: row.familyId,
      id: randomUUID(),
      workerId: row.workerId,
      usedAt: null,
      revokedAt: null,
    });
    return { outcome: 'rotated', token };
  }

  async revokeRefreshFamily(familyId: string, at: Date) {
    this.check();
    const live = this.refreshTokens.filter((token) => token.familyId === familyId && token.revokedAt === null);
    for (const token of live) token.revokedAt = at;
    return live.length;
  }

  private check(): void {
    if (this.down) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
  }
}

const now = new Date('2026-11-30T12:00:00.000Z');
const later = (seconds: number) => new Date(now.getTime() + seconds * 1000);
const tokens = new WorkerAccessTokens(signingKeyFrom('issuer-spec-signing-key-0123456789abcdef', 'spec'), 300);

async function rejectionOf(promise: Promise<unknown>): Promise<CredentialRejected> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof CredentialRejected)) throw new Error(`expected CredentialRejected, got ${String(outcome)}`);
  return outcome;
}

describe('worker credential issuer', () => {
  let store: FakeCredentialStore;
  let issuer: WorkerCredentialIssuer;
  beforeEach(() => {
    store = new FakeCredentialStore();
    issuer = new WorkerCredentialIssuer(store, tokens, { refreshTokenTtlS: 604_800 });
  });

  it('registers a worker: a server-chosen id, an access token naming its group and token, a refresh token stored only as hash', async () => {
    const registration = store.addRegistrationToken('gpu');
    const credentials = await issuer.register(registration.value, 'host-a', now);

    expect(credentials.workerId).toMatch(/^worker-[0-9a-f-]{36}$/);
    expect(credentials).toMatchObject({
      workerGroupId: 'gpu',
      registrationTokenId: registration.id,
      accessExpiresAt: later(300),
      refreshExpiresAt: later(604_800),
    });
    expect(tokens.verify(credentials.accessToken, now)).toEqual({
      workerId: credentials.workerId,
      workerGroupId: 'gpu',
      registrationTokenId: registration.id,
    });
    expect(store.workers.get(credentials.workerId)).toEqual({
      id: credentials.workerId,
      workerGroupId: 'gpu',
      registrationTokenId: registration.id,
      name: 'host-a',
    });
    expect(store.refreshTokens.map((token) => token.tokenHash)).toEqual([hashToken(credentials.refreshToken)]);
    expect(store.registrationTokens.get(registration.id)?.lastUsedAt).toEqual(now);
  });

  it('gives every registration its own worker id, even with the same name', async () => {
    const registration = store.addRegistrationToken('gpu');
    const first = await issuer.register(registration.value, 'same-host', now);
    const second = await issuer.register(registration.value, 'same-host', now);
    expect(first.workerId).not.toBe(second.workerId);
  });

  it('refuses an unknown and a revoked registration token with the same message', async () => {
    const registration = store.addRegistrationToken('gpu');
    const unknown = await rejectionOf(issuer.register(generateSecretToken(), 'host-a', now));
    store.revokeRegistrationToken(registration.id, now);
    const revoked = await rejectionOf(issuer.register(registration.value, 'host-a', now));
    expect(unknown.reason).toBe('unknown-registration-token');
    expect(revoked.reason).toBe('registration-token-revoked');
    expect(revoked.message).toBe(unknown.message);
    expect(store.workers.size).toBe(0);
  });

  it('refuses malformed requests naming the field', async () => {
    const registration = store.addRegistrationToken('gpu');
    await expect(issuer.register('', 'host-a', now)).rejects.toThrow(
      new InvalidCredentialRequest('registration_token', 'is empty'),
    );
    await expect(issuer.register('has spaces in it', 'host-a', now)).rejects.toThrow(
      /^registration_token must be 43 to 512 URL-safe base64 characters/,
    );
    await expect(issuer.register(registration.value, 'h'.repeat(256), now)).rejects.toThrow(
      'worker_name is 256 characters long; at most 255 are allowed',
    );
    await expect(issuer.refresh('', now)).rejects.toThrow('refresh_token is empty');
  });

  it('rotates: each refresh returns a new refresh token and the old one stops working', async () => {
    const registration = store.addRegistrationToken('gpu');
    const first = await issuer.register(registration.value, 'host-a', now);
    const second = await issuer.refresh(first.refreshToken, later(240));

    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(second).toMatchObject({
      workerId: first.workerId,
      workerGroupId: 'gpu',
      registrationTokenId: registration.id,
      accessExpiresAt: later(540),
    });
    expect(tokens.verify(second.accessToken, later(500)).workerId).toBe(first.workerId);
    const third = await issuer.refresh(second.refreshToken, later(480));
    expect(third.workerId).toBe(first.workerId);
  });

  it('revokes the whole family when a used refresh token comes back: the newest token stops working too', async () => {
    const registration = store.addRegistrationToken('gpu');
    const first = await issuer.register(registration.value, 'host-a', now);
    const second = await issuer.refresh(first.refreshToken, later(10));

    const reused = await rejectionOf(issuer.refresh(first.refreshToken, later(20)));
    expect(reused.reason).toBe('refresh-token-reused');
    expect(reused.ids.workerId).toBe(first.workerId);

    const newest = await rejectionOf(issuer.refresh(second.refreshToken, later(30)));
    expect(newest.reason).toBe('refresh-token-revoked');
    expect(newest.message).toBe(reused.message);
  });

  it('leaves other workers of the same registration token alone when one family is revoked', async () => {
    const registration = store.addRegistrationToken('gpu');
    const mine = await issuer.register(registration.value, 'host-a', now);
    const theirs = await issuer.register(registration.value, 'host-b', now);
    await issuer.refresh(mine.refreshToken, later(10));
    await rejectionOf(issuer.refresh(mine.refreshToken, later(20)));
    expect((await issuer.refresh(theirs.refreshToken, later(30))).workerId).toBe(theirs.workerId);
  });

  it('refuses a refresh once the registration token got revoked, and kills the family', async () => {
    const registration = store.addRegistrationToken('gpu');
    const first = await issuer.register(registration.value, 'host-a', now);
    store.revokeRegistrationToken(registration.id, later(5));
    const refused = await rejectionOf(issuer.refresh(first.refreshToken, later(10)));
    expect(refused.reason).toBe('registration-token-revoked');
    expect(store.refreshTokens.every((token) => token.revokedAt !== null)).toBe(true);
  });

  it('refuses an expired and an unknown refresh token', async () => {
    const registration = store.addRegistrationToken('gpu');
    const first = await issuer.register(registration.value, 'host-a', now);
    expect((await rejectionOf(issuer.refresh(first.refreshToken, later(604_800)))).reason).toBe('refresh-token-expired');
    expect((await rejectionOf(issuer.refresh(generateSecretToken(), now))).reason).toBe('unknown-refresh-token');
  });

  it('reports a store that is down as unavailable, not as a refused token', async () => {
    const registration = store.addRegistrationToken('gpu');
    store.down = true;
    const failure = await issuer.register(registration.value, 'host-a', now).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CredentialStoreUnavailable);
    expect((failure as Error).message).toBe('the controller cannot reach its credential store; retry with backoff');
  });
});
