import { configDefault, loadRoleConfig } from '@lanner/runtime';
import { controllerSettingsFrom, controllerTimings } from './controller-settings';

const env = {
  DATABASE_URL: 'postgresql://lanner:pw@db:5432/lanner',
  KAFKA_BROKERS: 'kafka-1:9092',
  LANNER_JWT_SIGNING_KEY: 'a-worker-jwt-signing-key-of-32-bytes-or-more',
};

describe("the controller's heartbeat, anonymous adoption and registry cadences", () => {
  it('are the variables when set', () => {
    const settings = controllerSettingsFrom(
      loadRoleConfig('controller', {
        ...env,
        LANNER_WORKER_HEARTBEAT_INTERVAL_MS: '500',
        LANNER_ANONYMOUS_ADOPTION_WAIT_MS: '700',
        LANNER_ANONYMOUS_ADOPTION_RECHECK_MS: '50',
        LANNER_WORKER_REGISTRY_WRITE_INTERVAL_MS: '200',
        LANNER_WORKER_REGISTRY_SCAN_MS: '40',
        LANNER_WORKER_REGISTRY_FULL_CHECK_MS: '900',
      }),
    );
    expect(controllerTimings(settings)).toEqual({
      heartbeatIntervalMs: 500,
      anonymousAdoptionWaitMs: 700,
      anonymousAdoptionRecheckMs: 50,
      registryWriteIntervalMs: 200,
      registryScanMs: 40,
      registryFullCheckMs: 900,
    });
  });

  it("default to the variable table's, also for settings given without the environment or with only some of them", () => {
    const table = {
      heartbeatIntervalMs: configDefault('LANNER_WORKER_HEARTBEAT_INTERVAL_MS', 'controller'),
      anonymousAdoptionWaitMs: configDefault('LANNER_ANONYMOUS_ADOPTION_WAIT_MS', 'controller'),
      anonymousAdoptionRecheckMs: configDefault('LANNER_ANONYMOUS_ADOPTION_RECHECK_MS', 'controller'),
      registryWriteIntervalMs: configDefault('LANNER_WORKER_REGISTRY_WRITE_INTERVAL_MS', 'controller'),
      registryScanMs: configDefault('LANNER_WORKER_REGISTRY_SCAN_MS', 'controller'),
      registryFullCheckMs: configDefault('LANNER_WORKER_REGISTRY_FULL_CHECK_MS', 'controller'),
    };
    expect(table).toEqual({
      heartbeatIntervalMs: 3_000,
      anonymousAdoptionWaitMs: 3_000,
      anonymousAdoptionRecheckMs: 250,
      registryWriteIntervalMs: 1_000,
      registryScanMs: 250,
      registryFullCheckMs: 5_000,
    });
    expect(controllerTimings(controllerSettingsFrom(loadRoleConfig('controller', env)))).toEqual(table);
    expect(controllerTimings({})).toEqual(table);
    expect(controllerTimings({ timings: { heartbeatIntervalMs: 1_000, registryScanMs: undefined } })).toEqual({
      ...table,
      heartbeatIntervalMs: 1_000,
    });
  });

  it('refuses a heartbeat interval out of range, naming the variable', () => {
    expect(() => loadRoleConfig('controller', { ...env, LANNER_WORKER_HEARTBEAT_INTERVAL_MS: '5' })).toThrow(
      /LANNER_WORKER_HEARTBEAT_INTERVAL_MS/,
    );
  });
});
