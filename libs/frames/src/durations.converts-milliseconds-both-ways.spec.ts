import fc from 'fast-check';
import { durationFromMillis, millisFromDuration } from './index';

describe('frame durations', () => {
  it('split milliseconds into seconds and nanos', () => {
    expect(durationFromMillis(90_250)).toEqual({ seconds: 90, nanos: 250_000_000 });
  });

  it('read back as the same whole milliseconds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 * 365 * 24 * 3600 * 1000 }), (millis) => {
        expect(millisFromDuration(durationFromMillis(millis))).toBe(millis);
      }),
    );
  });

  it('read an unset duration as "none"', () => {
    expect(millisFromDuration(undefined)).toBeUndefined();
  });

  it('refuse negative spans', () => {
    expect(() => durationFromMillis(-1)).toThrow('a duration must be a finite, non-negative number of milliseconds, got -1');
  });
});
