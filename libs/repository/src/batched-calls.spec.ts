import { BatchedCalls } from './batched-calls';

/** A batch function whose round trips the test finishes by hand. */
function manualRoundTrips() {
  const batches: { inputs: readonly number[]; finish: (outputs: readonly string[]) => void; fail: (error: Error) => void }[] = [];
  const run = (inputs: readonly number[]) =>
    new Promise<readonly string[]>((resolve, reject) => batches.push({ inputs, finish: resolve, fail: reject }));
  return { batches, run };
}

describe('calls batched while a round trip is in flight', () => {
  it('sends a call at once when nothing is in flight, and everything that queued behind it as one batch', async () => {
    const { batches, run } = manualRoundTrips();
    const calls = new BatchedCalls(run);

    const first = calls.call(1);
    expect(batches.map((batch) => batch.inputs)).toEqual([[1]]);
    const queued = [calls.call(2), calls.call(3), calls.call(4)];
    expect(batches).toHaveLength(1);

    batches[0].finish(['one']);
    await expect(first).resolves.toBe('one');
    await Promise.resolve();
    expect(batches.map((batch) => batch.inputs)).toEqual([[1], [2, 3, 4]]);
    batches[1].finish(['two', 'three', 'four']);
    await expect(Promise.all(queued)).resolves.toEqual(['two', 'three', 'four']);
  });

  it('splits a long queue into batches of at most the limit', async () => {
    const { batches, run } = manualRoundTrips();
    const calls = new BatchedCalls(run, 2);
    const first = calls.call(0);
    const rest = [1, 2, 3].map((input) => calls.call(input));
    batches[0].finish(['0']);
    await first;
    await Promise.resolve();
    batches[1].finish(['1', '2']);
    await Promise.all(rest.slice(0, 2));
    await Promise.resolve();
    expect(batches.map((batch) => batch.inputs)).toEqual([[0], [1, 2], [3]]);
    batches[2].finish(['3']);
    await expect(Promise.all(rest)).resolves.toEqual(['1', '2', '3']);
  });

  it('runs each call of a failed batch again alone: a failure every call meets reaches each, and later calls still go through', async () => {
    const { batches, run } = manualRoundTrips();
    const calls = new BatchedCalls(run);
    const first = calls.call(1);
    const second = calls.call(2);
    const third = calls.call(3);
    batches[0].finish(['one']);
    await first;
    await Promise.resolve();
    batches[1].fail(new Error('database unavailable'));
    await Promise.resolve();
    await Promise.resolve();
    expect(batches[2].inputs).toEqual([2]);
    batches[2].fail(new Error('database unavailable'));
    await expect(second).rejects.toThrow('database unavailable');
    expect(batches[3].inputs).toEqual([3]);
    batches[3].fail(new Error('database unavailable'));
    await expect(third).rejects.toThrow('database unavailable');

    const later = calls.call(4);
    expect(batches[4].inputs).toEqual([4]);
    batches[4].finish(['four']);
    await expect(later).resolves.toBe('four');
  });

  it('fails only the call the database refuses, never the calls batched beside it', async () => {
    const refused = new Error('unsupported Unicode escape sequence');
    const calls = new BatchedCalls(async (inputs: readonly string[]) => {
      if (inputs.some((input) => input.includes('\u0000'))) throw refused;
      return inputs.map((input) => input.toUpperCase());
    });
    const results = await Promise.allSettled(
      ['tenant-a', 'poison \u0000', 'tenant-b', 'tenant-c'].map((input) => calls.call(input)),
    );
    expect(results).toEqual([
      { status: 'fulfilled', value: 'TENANT-A' },
      { status: 'rejected', reason: refused },
      { status: 'fulfilled', value: 'TENANT-B' },
      { status: 'fulfilled', value: 'TENANT-C' },
    ]);
  });

  it('with a linger, holds the first call of a quiet moment that long and sends what came meanwhile with it', async () => {
    jest.useFakeTimers();
    try {
      const { batches, run } = manualRoundTrips();
      const calls = new BatchedCalls(run, 200, 20);
      const early = [calls.call(1), calls.call(2)];
      jest.advanceTimersByTime(19);
      const late = calls.call(3);
      expect(batches).toHaveLength(0);
      jest.advanceTimersByTime(1);
      expect(batches.map((batch) => batch.inputs)).toEqual([[1, 2, 3]]);
      batches[0].finish(['one', 'two', 'three']);
      await expect(Promise.all([...early, late])).resolves.toEqual(['one', 'two', 'three']);

      // Quiet again: the next call lingers as well.
      const next = calls.call(4);
      expect(batches).toHaveLength(1);
      jest.advanceTimersByTime(20);
      expect(batches[1].inputs).toEqual([4]);
      batches[1].finish(['four']);
      await expect(next).resolves.toBe('four');
    } finally {
      jest.useRealTimers();
    }
  });

  it('with a window by load, sends the call of a quiet moment at once and, at load, waits for the calls that follow', async () => {
    jest.useFakeTimers();
    try {
      const { batches, run } = manualRoundTrips();
      const calls = new BatchedCalls(run, 200, { quietMs: 0, atLoadMs: 5, fromCallsPerSecond: 80 });
      const answers: Promise<string>[] = [];
      // Rare calls (one every 100 ms) go at once, each alone.
      for (const input of [1, 2, 3]) {
        answers.push(calls.call(input));
        expect(batches.at(-1)?.inputs).toEqual([input]);
        batches.at(-1)?.finish([String(input)]);
        await jest.advanceTimersByTimeAsync(100);
      }
      // One a millisecond: once the rate passes 80 a second, a call waits 5 ms and the next ones join it.
      const busy = Array.from({ length: 20 }, (_, index) => 10 + index);
      for (const input of busy) {
        answers.push(calls.call(input));
        await jest.advanceTimersByTimeAsync(1);
        const last = batches.at(-1);
        if (last !== undefined && last.inputs.includes(input)) last.finish(last.inputs.map(String));
        // The round trip is over before the next call (one that came meanwhile would go in the same flush).
        await jest.advanceTimersByTimeAsync(0);
      }
      await jest.advanceTimersByTimeAsync(5);
      batches.at(-1)?.finish((batches.at(-1)?.inputs ?? []).map(String));
      // At first each goes alone (nothing in flight, the rate still low); then several share a batch.
      expect(batches[3].inputs).toEqual([10]);
      expect(Math.max(...batches.map((batch) => batch.inputs.length))).toBeGreaterThanOrEqual(4);
      expect(batches.slice(3).flatMap((batch) => batch.inputs)).toEqual(busy);
      await expect(Promise.all(answers)).resolves.toEqual(['1', '2', '3', ...busy.map(String)]);
    } finally {
      jest.useRealTimers();
    }
  });
});
