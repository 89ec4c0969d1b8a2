import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { InvalidRecord } from '../errors';
import { useTestRepositories } from '../testing/test-database';

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 30, 12, 0, seconds));
const WEEK_LATER = new Date(Date.UTC(2026, 11, 7, 12, 0, 0));
// Hashing is the auth library's job; the repository only ever sees digests.
const newHash = () => createHash('sha256').update(randomBytes(32)).digest('hex');

describe('worker credential repository', () => {
  const fixture = useTestRepositories();
  let registrationTokenId: string;

  beforeAll(async () => {
    const { workerGroups, registrationTokens } = fixture.repositories;
    await workerGroups.put({ id: 'gpu', name: 'GPU workers' });
    registrationTokenId = (await registrationTokens.create('gpu', 'rack-1', newHash())).id;
  });

  async function registerWorker(): Promise<{ workerId: string; familyId: string; tokenHash: string }> {
    const workerId = `worker-${randomUUID()}`;
    const familyId = randomUUID();
    const tokenHash = newHash();
    await fixture.repositories.workerCredentials.createWorker(
      { id: workerId, workerGroupId: 'gpu', registrationTokenId, name: 'host-a' },
      { tokenHash, familyId, expiresAt: WEEK_LATER },
      at(0),
    );
    return { workerId, familyId, tokenHash };
  }

  it('creates a worker with the first token of its family, and rotates that token into a successor', async () => {
    const { workerCredentials } = fixture.repositories;
    const { workerId, familyId, tokenHash } = await registerWorker();
    expect(await workerCredentials.findWorker(workerId)).toMatchObject({
      id: workerId,
      workerGroupId: 'gpu',
      registrationTokenId,
      name: 'host-a',
    });

    const successorHash = newHash();
    const rotated = await workerCredentials.consumeRefreshToken(
      tokenHash,
      { tokenHash: successorHash, expiresAt: WEEK_LATER },
      at(10),
    );
    expect(rotated).toMatchObject({
      outcome: 'rotated',
      tokenHash,
      registrationTokenActive: true,
      worker: { id: workerId, workerGroupId: 'gpu' },
    });

    const family = await workerCredentials.listFamily(familyId);
    expect(family).toHaveLength(2);
    expect(family[0]).toMatchObject({ usedAt: at(10), revokedAt: null });
    expect(family[1]).toMatchObject({ usedAt: null, revokedAt: null, workerId });
    // Presented again, the used token changes nothing and reports the reuse.
    expect(
      await workerCredentials.consumeRefreshToken(tokenHash, { tokenHash: newHash(), expiresAt: WEEK_LATER }, at(20)),
    ).toMatchObject({ outcome: 'used' });
    expect(await workerCredentials.listFamily(familyId)).toHaveLength(2);
  });

  it("gives the restart strategy of a registered worker's group, and the default group's for an anonymous worker", async () => {
    const { workerGroups } = fixture.repositories;
    const { workerId } = await registerWorker();
    expect(await workerGroups.restartStrategyOfWorker(workerId)).toBe('AFTER_TERMINATION_GRACE_PERIOD');
    await workerGroups.put({ id: 'gpu', name: 'GPU workers', restartStrategy: 'NEVER' });
    expect(await workerGroups.restartStrategyOfWorker(workerId)).toBe('NEVER');
    // Unknown worker id: an anonymous worker, of the default group.
    await workerGroups.seedReserved();
    expect(await workerGroups.restartStrategyOfWorker(`anonymous-${randomUUID()}`)).toBe('AFTER_TERMINATION_GRACE_PERIOD');
    await workerGroups.put({ id: 'gpu', name: 'GPU workers', restartStrategy: 'AFTER_TERMINATION_GRACE_PERIOD' });
  });

  it('lets exactly one of two concurrent presentations of the same token rotate it', async () => {
    const { workerCredentials } = fixture.repositories;
    const { familyId, tokenHash } = await registerWorker();

    const outcomes = await Promise.all([
      workerCredentials.consumeRefreshToken(tokenHash, { tokenHash: newHash(), expiresAt: WEEK_LATER }, at(10)),
      workerCredentials.consumeRefreshToken(tokenHash, { tokenHash: newHash(), expiresAt: WEEK_LATER }, at(10)),
    ]);
    expect(outcomes.map((outcome) => outcome.outcome).sort()).toEqual(['rotated', 'used']);
    expect(await workerCredentials.listFamily(familyId)).toHaveLength(2);
  });

  it('holds under a burst: of ten concurrent presentations one rotates, nine see a used token', async () => {
    const { workerCredentials } = fixture.repositories;
    const { familyId, tokenHash } = await registerWorker();
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () =>
        workerCredentials.consumeRefreshToken(tokenHash, { tokenHash: newHash(), expiresAt: WEEK_LATER }, at(10)),
      ),
    );
    expect(outcomes.filter((outcome) => outcome.outcome === 'rotated')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.outcome === 'used')).toHaveLength(9);
    expect(await workerCredentials.listFamily(familyId)).toHaveLength(2);
  });

  it('revokes a whole family, the newest token included, and leaves other families alone', async () => {
    const { workerCredentials } = fixture.repositories;
    const mine = await registerWorker();
    const theirs = await registerWorker();
    const newestHash = newHash();
    await workerCredentials.consumeRefreshToken(mine.tokenHash, { tokenHash: newestHash, expiresAt: WEEK_LATER }, at(10));

    expect(await workerCredentials.revokeFamily(mine.familyId, at(20))).toBe(2);
    expect(await workerCredentials.revokeFamily(mine.familyId, at(30))).toBe(0);
    expect(
      (await workerCredentials.listFamily(mine.familyId)).every((token) => token.revokedAt?.getTime() === at(20).getTime()),
    ).toBe(true);
    expect(
      await workerCredentials.consumeRefreshToken(newestHash, { tokenHash: newHash(), expiresAt: WEEK_LATER }, at(40)),
    ).toMatchObject({ outcome: 'revoked' });
    expect(
      await workerCredentials.consumeRefreshToken(theirs.tokenHash, { tokenHash: newHash(), expiresAt: WEEK_LATER }, at(40)),
    ).toMatchObject({
      outcome: 'rotated',
    });
  });

  it('refuses an expired token and reports an unknown one, changing nothing', async () => {
    const { workerCredentials } = fixture.repositories;
    const { familyId, tokenHash } = await registerWorker();
    expect(
      await workerCredentials.consumeRefreshToken(tokenHash, { tokenHash: newHash(), expiresAt: WEEK_LATER }, WEEK_LATER),
    ).toMatchObject({ outcome: 'expired' });
    expect(
      await workerCredentials.consumeRefreshToken(newHash(), { tokenHash: newHash(), expiresAt: WEEK_LATER }, at(10)),
    ).toEqual({ outcome: 'unknown' });
    expect(
      await workerCredentials.consumeRefreshToken('not-a-hash', { tokenHash: newHash(), expiresAt: WEEK_LATER }, at(10)),
    ).toEqual({ outcome: 'unknown' });
    expect(await workerCredentials.listFamily(familyId)).toEqual([expect.objectContaining({ usedAt: null, revokedAt: null })]);
  });

  it("says when the registration token behind a refresh token got revoked, and revokes its workers' tokens on request", async () => {
    const { workerCredentials, registrationTokens } = fixture.repositories;
    const revocable = await registrationTokens.create('gpu', `rack-${randomBytes(3).toString('hex')}`, newHash());
    const workerId = `worker-${randomUUID()}`;
    const familyId = randomUUID();
    const tokenHash = newHash();
    await workerCredentials.createWorker(
      { id: workerId, workerGroupId: 'gpu', registrationTokenId: revocable.id, name: null },
      { tokenHash, familyId, expiresAt: WEEK_LATER },
      at(0),
    );
    expect(await registrationTokens.isActive(revocable.id)).toBe(true);

    await registrationTokens.revoke('gpu', revocable.id, at(5));
    expect(await registrationTokens.isActive(revocable.id)).toBe(false);
    expect(await registrationTokens.findById(revocable.id)).toMatchObject({ id: revocable.id, revokedAt: at(5) });
    const successorHash = newHash();
    expect(
      await workerCredentials.consumeRefreshToken(tokenHash, { tokenHash: successorHash, expiresAt: WEEK_LATER }, at(10)),
    ).toMatchObject({
      outcome: 'rotated',
      registrationTokenActive: false,
    });
    expect(await workerCredentials.revokeByRegistrationToken(revocable.id, at(20))).toBe(2);
    expect(
      await workerCredentials.consumeRefreshToken(successorHash, { tokenHash: newHash(), expiresAt: WEEK_LATER }, at(30)),
    ).toMatchObject({ outcome: 'revoked' });
  });

  it('finds a registration token with its hash for a constant-time check, and refuses ids that are not UUIDs', async () => {
    const { registrationTokens } = fixture.repositories;
    const hash = newHash();
    const created = await registrationTokens.create('gpu', `rack-${randomBytes(3).toString('hex')}`, hash);
    expect(await registrationTokens.findMatchByHash(hash)).toEqual({ token: created, tokenHash: hash });
    expect(await registrationTokens.findMatchByHash(newHash())).toBeNull();
    expect(await registrationTokens.findById('rack-1')).toBeNull();
    expect(await registrationTokens.isActive(randomUUID())).toBe(false);
  });

  it('never stores a raw refresh token', async () => {
    const { workerCredentials } = fixture.repositories;
    const attempt = workerCredentials.createWorker(
      { id: `worker-${randomUUID()}`, workerGroupId: 'gpu', registrationTokenId, name: null },
      { tokenHash: 'a-raw-token-value', familyId: randomUUID(), expiresAt: WEEK_LATER },
      at(0),
    );
    await expect(attempt).rejects.toBeInstanceOf(InvalidRecord);
  });
});
