import type { LaneSend } from './send-lane';
import { SendLane } from './send-lane';

class TopicMissing extends Error {}

/** Produce requests the test answers by hand; a send to a topic in `missing` fails. */
function broker(maxTopicBytes = 1_000) {
  const requests: { sends: readonly LaneSend[]; answer: (error?: Error) => void }[] = [];
  const written: string[] = [];
  const missing = new Set<string>();
  const record = (send: LaneSend) => written.push(...send.records.map((r) => `${send.topic}:${r.key}`));
  const request = (sends: readonly LaneSend[]) =>
    new Promise<void>((resolve, reject) =>
      requests.push({
        sends,
        answer: (error) => {
          if (error) return reject(error);
          const gone = sends.find((send) => missing.has(send.topic));
          if (gone) return reject(new TopicMissing(gone.topic));
          sends.forEach(record);
          resolve();
        },
      }),
    );
  const lane = new SendLane({
    sendAll: request,
    sendOne: (send) => request([send]),
    isPerTopicError: (error) => error instanceof TopicMissing,
    maxTopicBytes,
  });
  const publish = (topic: string, key: string, sizeBytes = 10) =>
    lane.send({ topic, records: [{ key, value: Buffer.from(key) }], sizeBytes });
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  const shape = (index: number) => requests[index].sends.map((send) => `${send.topic}:${send.records[0].key}`);
  /** Publishes once to each topic, alone, so later publishes to them may share requests. */
  async function reach(...topics: string[]) {
    for (const topic of topics) {
      const first = publish(topic, 'first');
      requests[requests.length - 1].answer();
      await first;
      await settle();
    }
    requests.length = 0;
    written.length = 0;
  }
  return { requests, written, missing, publish, settle, shape, reach };
}

describe('publishes sharing produce requests', () => {
  it('sends a publish at once when nothing is in flight, then everything that queued behind it in one request', async () => {
    const { requests, written, publish, settle, shape, reach } = broker();
    await reach('a', 'b');
    const first = publish('a', '1');
    expect(requests).toHaveLength(1);
    const later = [publish('a', '2'), publish('b', '3'), publish('a', '4')];
    expect(requests).toHaveLength(1);

    requests[0].answer();
    await first;
    await settle();
    expect(shape(1)).toEqual(['a:2', 'b:3', 'a:4']);
    requests[1].answer();
    await Promise.all(later);
    expect(written).toEqual(['a:1', 'a:2', 'b:3', 'a:4']);
  });

  it('sends a publish to a topic not reached yet beside the lane at once, and shares requests for it once reached', async () => {
    const { requests, publish, settle, shape, reach } = broker();
    await reach('a');
    const inFlight = publish('a', '0');
    const fresh = publish('new', '1');
    // Not queued behind the request in flight: a topic that may not exist never holds others up, nor waits for them.
    expect(shape(1)).toEqual(['new:1']);
    const queued = [publish('a', '2')];
    requests[1].answer();
    await fresh;
    queued.push(publish('new', '3'));
    expect(requests).toHaveLength(2);
    requests[0].answer();
    await inFlight;
    await settle();
    expect(shape(2)).toEqual(['a:2', 'new:3']);
    requests[2].answer();
    await Promise.all(queued);
  });

  it("keeps each topic within the byte limit per request, and a topic's records in their order", async () => {
    const { requests, publish, settle, shape, reach } = broker(100);
    await reach('a', 'b');
    const first = publish('a', '0');
    const rest = [
      publish('a', '1', 60),
      publish('b', '2', 60),
      publish('a', '3', 60),
      publish('b', '4', 30),
      publish('a', '5', 10),
    ];
    requests[0].answer();
    await first;
    await settle();
    // a:3 does not fit with a:1, so a:5 waits behind it; b fits both of its records.
    expect(shape(1)).toEqual(['a:1', 'b:2', 'b:4']);
    requests[1].answer();
    await settle();
    expect(shape(2)).toEqual(['a:3', 'a:5']);
    requests[2].answer();
    await Promise.all(rest);
  });

  it('when a merged request fails for a topic deleted meanwhile, only the publish of that topic fails; the others are written', async () => {
    const { requests, written, missing, publish, settle, reach } = broker();
    await reach('a', 'gone', 'b');
    missing.add('gone');
    const first = publish('a', '0');
    const outcomes = Promise.allSettled([publish('a', '1'), publish('gone', '2'), publish('b', '3')]);
    requests[0].answer();
    await first;
    await settle();
    requests[1].answer();
    // Each send of the failed request is retried on its own.
    for (let index = 2; index < 5; index++) {
      await settle();
      requests[index].answer();
    }
    const [good, bad, alsoGood] = await outcomes;
    expect(good.status).toBe('fulfilled');
    expect(bad).toMatchObject({ status: 'rejected', reason: expect.any(TopicMissing) });
    expect(alsoGood.status).toBe('fulfilled');
    expect(written).toEqual(['a:0', 'a:1', 'b:3']);
    await settle();

    // The deleted topic's next publish goes alone again.
    const inFlight = publish('a', '4');
    const after = [publish('gone', '5'), publish('a', '6')];
    requests[5].answer();
    await inFlight;
    await settle();
    expect(requests[6].sends.map((send) => send.topic)).toEqual(['gone']);
    const settled = Promise.allSettled(after);
    requests[6].answer();
    await settle();
    requests[7].answer();
    expect((await settled).map((outcome) => outcome.status)).toEqual(['rejected', 'fulfilled']);
  });

  it('fails every publish of a merged request at once when the error is not about one topic (the broker is down)', async () => {
    const { requests, publish, settle, reach } = broker();
    await reach('a', 'b');
    const first = publish('a', '0');
    const outcomes = Promise.allSettled([publish('a', '1'), publish('b', '2')]);
    requests[0].answer();
    await first;
    await settle();
    requests[1].answer(new Error('broker unreachable'));
    for (const outcome of await outcomes)
      expect(outcome).toMatchObject({ status: 'rejected', reason: new Error('broker unreachable') });
    expect(requests).toHaveLength(2);
    const after = publish('a', '3');
    await settle();
    requests[2].answer();
    await expect(after).resolves.toBeUndefined();
  });
});
