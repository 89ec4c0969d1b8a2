import { guardAgainstPoison, type HandlerFailureKind } from './poison-guard';
import type { QueueMessage } from './queue.port';

function message(offset: string): QueueMessage {
  return { topic: 'lanner.executor', partition: 0, offset, key: 'e-1', value: Buffer.from('{}'), headers: {} };
}

class Refused extends Error {}
class Unavailable extends Error {}

function guarded(handler: (message: QueueMessage) => Promise<void>, unknownAttempts = 3) {
  const parked: { offset: string; reason: string; attempts: number }[] = [];
  const classify = (error: unknown): HandlerFailureKind =>
    error instanceof Refused ? 'lasting' : error instanceof Unavailable ? 'passing' : 'unknown';
  const guard = guardAgainstPoison(handler, {
    classify,
    describe: (error) => (error instanceof Error ? error.message : 'failed'),
    park: async (parkedMessage, reason, attempts) => {
      parked.push({ offset: parkedMessage.offset, reason, attempts });
    },
    unknownAttempts,
  });
  return { guard, parked };
}

describe('poison guard: no message holds its partition forever, and an outage parks nothing', () => {
  it('parks a lasting failure at its first try and resolves, so the partition moves on', async () => {
    const { guard, parked } = guarded(async () => {
      throw new Refused('the database refuses the value');
    });
    await expect(guard(message('7'))).resolves.toBeUndefined();
    expect(parked).toEqual([{ offset: '7', reason: 'the database refuses the value', attempts: 1 }]);
  });

  it('throws a passing failure back for the adapter to retry, however often it happens', async () => {
    const { guard, parked } = guarded(async () => {
      throw new Unavailable('database unavailable');
    });
    for (let attempt = 0; attempt < 50; attempt += 1) await expect(guard(message('1'))).rejects.toThrow('database unavailable');
    expect(parked).toEqual([]);
  });

  it('retries an unknown failure a bounded number of times, then parks it with the count', async () => {
    const { guard, parked } = guarded(async () => {
      throw new Error('something odd');
    }, 3);
    await expect(guard(message('2'))).rejects.toThrow('something odd');
    await expect(guard(message('2'))).rejects.toThrow('something odd');
    await expect(guard(message('2'))).resolves.toBeUndefined();
    expect(parked).toEqual([{ offset: '2', reason: 'something odd', attempts: 3 }]);
  });

  it('counts tries per message: a success forgets them, other messages are unaffected', async () => {
    let failing = true;
    const { guard, parked } = guarded(async (received) => {
      if (failing && received.offset === '3') throw new Error('flaky');
    }, 2);
    await expect(guard(message('3'))).rejects.toThrow('flaky');
    await expect(guard(message('4'))).resolves.toBeUndefined();
    failing = false;
    await expect(guard(message('3'))).resolves.toBeUndefined();
    failing = true;
    await expect(guard(message('3'))).rejects.toThrow('flaky');
    expect(parked).toEqual([]);
  });

  it('leaves the message to be retried when parking it fails', async () => {
    const guard = guardAgainstPoison(
      async () => {
        throw new Refused('refused');
      },
      {
        classify: () => 'lasting',
        describe: () => 'refused',
        park: async () => {
          throw new Unavailable('dead-letter store unavailable');
        },
      },
    );
    await expect(guard(message('5'))).rejects.toThrow('dead-letter store unavailable');
  });
});
