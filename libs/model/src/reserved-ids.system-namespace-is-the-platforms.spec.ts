import { isSystemNamespace, SYSTEM_NAMESPACE } from './reserved-ids';

describe('the system namespace holds the platform flows, whose tasks go to the system queue', () => {
  it('is the namespace system and its children', () => {
    expect(SYSTEM_NAMESPACE).toBe('system');
    expect(isSystemNamespace('system')).toBe(true);
    expect(isSystemNamespace('system.purges')).toBe(true);
  });

  it('is not a namespace that only starts with the same letters, nor one holding system further down', () => {
    expect(isSystemNamespace('systems')).toBe(false);
    expect(isSystemNamespace('company.system')).toBe(false);
    expect(isSystemNamespace('')).toBe(false);
  });
});
