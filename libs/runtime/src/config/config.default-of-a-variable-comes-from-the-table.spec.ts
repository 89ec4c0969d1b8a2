import { configDefault } from './config-variables';
import { loadRoleConfig } from './load-config';

const controllerEnv = {
  DATABASE_URL: 'postgresql://lanner:pw@db:5432/lanner',
  KAFKA_BROKERS: 'kafka-1:9092',
  LANNER_JWT_SIGNING_KEY: 'a-worker-jwt-signing-key-of-32-bytes-or-more',
};

// Settings given without the environment (standalone, specs) take their defaults from the
// variable table, parsed as a role's config holds them: the default is written once.
describe('configDefault', () => {
  it('is the value a role gets when the variable is unset, parsed like the environment', () => {
    const config = loadRoleConfig('controller', controllerEnv) as unknown as Record<string, unknown>;
    expect(configDefault('LANNER_WORKER_ADOPTION_GRACE_MS', 'controller')).toBe(10_000);
    expect(config['adoptionGraceMs']).toBe(configDefault('LANNER_WORKER_ADOPTION_GRACE_MS', 'controller'));
    expect(config['ledgerReconcileIntervalMs']).toBe(configDefault('LANNER_LEDGER_RECONCILE_INTERVAL_MS', 'controller'));
  });

  it('names the variable when it has no default (a required one)', () => {
    expect(() => configDefault('DATABASE_URL', 'controller')).toThrow('DATABASE_URL has no default for the controller role');
  });

  it('lets LANNER_WORKER_ADOPTION_GRACE_MS shorten the grace, and names it when out of range', () => {
    const config = loadRoleConfig('controller', {
      ...controllerEnv,
      LANNER_WORKER_ADOPTION_GRACE_MS: '500',
    }) as unknown as Record<string, unknown>;
    expect(config['adoptionGraceMs']).toBe(500);
    expect(() => loadRoleConfig('controller', { ...controllerEnv, LANNER_WORKER_ADOPTION_GRACE_MS: '5' })).toThrow(
      /LANNER_WORKER_ADOPTION_GRACE_MS/,
    );
  });
});
