import { WindowedJobWrites } from './running-job-writes';

// The windows of the running-job writes: which writes share a statement, and
// what a failed shared statement does to each caller. Time is jest's fake clock.

type Statement = { inserts: string[]; removals: string[] };

function writes(fails: (statement: Statement) => boolean = () => false) {
  const statements: Statement[] = [];
  const windowed = new WindowedJobWrites<string, string>(
    async (inserts, removals) => {
      const statement = { inserts: [...inserts], removals: [...removals] };
      statements.push(statement);
      if (fails(statement)) throw new Error('refused');
      return { inserted: inserts.map((id) => !id.startsWith('dup')), removed: removals.map(() => true) };
    },
    { insertLingerMs: 3, insertLingerAtLoadMs: 10, loadInsertsPerSecond: 50, removalLingerMs: 20, maxRows: 3 },
  );
  return { windowed, statements };
}

describe('running-job writes in shared windows', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('sends the removals waiting when an insert window closes in its statement, each caller with its own answer', async () => {
    const { windowed, statements } = writes();
    const removed = windowed.remove('done-1');
    await jest.advanceTimersByTimeAsync(10);
    const inserted = [windowed.insert('next-1'), windowed.insert('dup-1')];
    await jest.advanceTimersByTimeAsync(3);
    expect(statements).toEqual([{ inserts: ['next-1', 'dup-1'], removals: ['done-1'] }]);
    expect(await Promise.all([removed, ...inserted])).toEqual([true, true, false]);
  });

  it('sends the inserts waiting when a removal window closes first, and a removal alone after its own window', async () => {
    const { windowed, statements } = writes();
    const removed = windowed.remove('done-1');
    await jest.advanceTimersByTimeAsync(19);
    const inserted = windowed.insert('next-1');
    await jest.advanceTimersByTimeAsync(1);
    expect(statements).toEqual([{ inserts: ['next-1'], removals: ['done-1'] }]);
    await Promise.all([removed, inserted]);

    const alone = windowed.remove('done-2');
    await jest.advanceTimersByTimeAsync(19);
    expect(statements).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(statements[1]).toEqual({ inserts: [], removals: ['done-2'] });
    expect(await alone).toBe(true);
  });

  it('sends a full window at once, and what is left behind it when the window it was queued in closes', async () => {
    const { windowed, statements } = writes();
    const inserted = ['a', 'b', 'c', 'd'].map((id) => windowed.insert(id));
    await jest.advanceTimersByTimeAsync(0);
    expect(statements).toEqual([{ inserts: ['a', 'b', 'c'], removals: [] }]);
    await jest.advanceTimersByTimeAsync(3);
    expect(statements).toEqual([
      { inserts: ['a', 'b', 'c'], removals: [] },
      { inserts: ['d'], removals: [] },
    ]);
    expect(await Promise.all(inserted)).toEqual([true, true, true, true]);
  });

  it('runs each write of a refused shared statement alone, so only the write the database refuses fails', async () => {
    const { windowed, statements } = writes((statement) => statement.inserts.includes('bad'));
    const outcomes = Promise.allSettled([windowed.insert('good'), windowed.insert('bad'), windowed.remove('done')]);
    await jest.advanceTimersByTimeAsync(3);
    expect((await outcomes).map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : 'refused'))).toEqual([
      true,
      'refused',
      true,
    ]);
    expect(statements.slice(1)).toEqual([
      { inserts: ['good'], removals: [] },
      { inserts: ['bad'], removals: [] },
      { inserts: [], removals: ['done'] },
    ]);
  });

  it('waits longer for other inserts while jobs are dispatched at 50 a second or more', async () => {
    const { windowed, statements } = writes();
    // One insert every 3 ms: each alone in its 3 ms window, until the rate reaches 50 a second.
    const inserted: Promise<boolean>[] = [];
    for (const id of ['a', 'b', 'c', 'd', 'e']) {
      inserted.push(windowed.insert(id));
      await jest.advanceTimersByTimeAsync(3);
    }
    expect(statements.map((statement) => statement.inserts)).toEqual([['a'], ['b'], ['c'], ['d'], ['e']]);
    // The sixth comes at over 50 a second: its window is 10 ms, and the one 5 ms later joins it.
    inserted.push(windowed.insert('f'));
    await jest.advanceTimersByTimeAsync(5);
    inserted.push(windowed.insert('g'));
    await jest.advanceTimersByTimeAsync(4);
    expect(statements).toHaveLength(5);
    await jest.advanceTimersByTimeAsync(1);
    expect(statements.slice(5)).toEqual([{ inserts: ['f', 'g'], removals: [] }]);
    expect(await Promise.all(inserted)).toEqual([true, true, true, true, true, true, true]);
  });
});
