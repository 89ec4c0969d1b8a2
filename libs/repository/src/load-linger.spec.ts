import { LoadLinger } from './load-linger';

// The window a write waits for others: short while calls are rare, longer from the load rate on.

describe('the linger of a write window by load', () => {
  const linger = () => new LoadLinger({ quietMs: 3, atLoadMs: 10, fromCallsPerSecond: 50 });

  it('stays short for calls arriving slower than the load rate', () => {
    const windows = linger();
    // 20 a second, for two seconds.
    const waits = Array.from({ length: 40 }, (_, index) => windows.arrived(index * 50));
    expect(new Set(waits)).toEqual(new Set([3]));
  });

  it('grows once calls come at the load rate, and shrinks again when they thin out', () => {
    const windows = linger();
    // One every 3 ms: about 333 a second once the average has caught up.
    const waits = Array.from({ length: 10 }, (_, index) => windows.arrived(index * 3));
    expect(waits.slice(0, 5)).toEqual([3, 3, 3, 3, 3]);
    expect(waits.slice(6)).toEqual([10, 10, 10, 10]);
    // A quiet half second later the rate has decayed.
    expect(windows.arrived(27 + 500)).toBe(3);
  });
});
