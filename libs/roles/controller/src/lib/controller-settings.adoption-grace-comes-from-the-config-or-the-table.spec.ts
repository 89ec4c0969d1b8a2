import { configDefault, loadRoleConfig } from '@lanner/runtime';
import { controllerSettingsFrom, DEFAULT_WORKER_ADOPTION_GRACE_MS } from './controller-settings';
import { unheldRowQuietMs } from './ledger-reconciler';

const env = {
  DATABASE_URL: 'postgresql://lanner:pw@db:5432/lanner',
  KAFKA_BROKERS: 'kafka-1:9092',
  LANNER_JWT_SIGNING_KEY: 'a-worker-jwt-signing-key-of-32-bytes-or-more',
};

describe("the controller's adoption grace", () => {
  it('is LANNER_WORKER_ADOPTION_GRACE_MS when set', () => {
    const settings = controllerSettingsFrom(loadRoleConfig('controller', { ...env, LANNER_WORKER_ADOPTION_GRACE_MS: '500' }));
    expect(settings.adoptionGraceMs).toBe(500);
  });

  it("defaults to the variable table's 10 s, also for settings given without the environment (standalone)", () => {
    expect(controllerSettingsFrom(loadRoleConfig('controller', env)).adoptionGraceMs).toBe(10_000);
    expect(DEFAULT_WORKER_ADOPTION_GRACE_MS).toBe(configDefault('LANNER_WORKER_ADOPTION_GRACE_MS', 'controller'));
  });

  it('sets the quiet time of the lost-report retry to one and a half graces: 15 s by default, as before', () => {
    expect(unheldRowQuietMs(DEFAULT_WORKER_ADOPTION_GRACE_MS)).toBe(15_000);
    expect(unheldRowQuietMs(1_800)).toBe(2_700);
  });
});
