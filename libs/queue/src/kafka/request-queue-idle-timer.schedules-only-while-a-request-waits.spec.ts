import {
  kafkajsRequestQueue,
  scheduleCheckWhilePending,
  stopIdleRequestQueueTimers,
  type SchedulingRequestQueue,
} from './request-queue-idle-timer';

// kafkajs's real RequestQueue (no socket: requests are handed to `sendRequest`).
type RequestQueue = SchedulingRequestQueue & {
  push(request: {
    entry: {
      correlationId: number;
      apiKey: number;
      apiName: string;
      apiVersion: number;
      resolve: () => void;
      reject: () => void;
    };
    expectResponse: boolean;
    sendRequest: () => void;
  }): void;
  maybeThrottle(milliseconds: number): void;
  fulfillRequest(response: { correlationId: number; payload: Buffer; size: number }): void;
  destroy(): void;
};
type RequestQueueClass = new (options: Record<string, unknown>) => RequestQueue;

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const RequestQueueClass = kafkajsRequestQueue() as unknown as RequestQueueClass;
const shipped = kafkajsRequestQueue().prototype.scheduleCheckPendingRequests;

function requestQueue(maxInFlightRequests: number | null = null): RequestQueue {
  return new RequestQueueClass({
    maxInFlightRequests,
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: 'spec',
    broker: 'broker:9092',
    logger: quiet,
  });
}

let nextCorrelationId = 0;
function request(sent: number[]) {
  const correlationId = (nextCorrelationId += 1);
  const settle = () => undefined;
  return {
    entry: { correlationId, apiKey: 1, apiName: 'Fetch', apiVersion: 11, resolve: settle, reject: settle },
    expectResponse: true,
    sendRequest: () => sent.push(correlationId),
  };
}

describe("kafkajs's request queue schedules checks only while a request waits", () => {
  const queues: RequestQueue[] = [];
  const track = (queue: RequestQueue) => (queues.push(queue), queue);

  beforeEach(() => jest.useFakeTimers());
  afterEach(() => {
    for (const queue of queues.splice(0)) queue.destroy();
    jest.useRealTimers();
  });

  it('as shipped, keeps a timer running with nothing pending (drop the replacement once kafkajs stops doing this)', () => {
    expect(shipped).not.toBe(scheduleCheckWhilePending);
    const queue = track(requestQueue());
    Object.assign(queue, { scheduleCheckPendingRequests: shipped });
    queue.checkPendingRequests();
    expect(queue.throttleCheckTimeoutId).not.toBeNull();
    // ...and it keeps coming back: each run schedules the next one.
    jest.advanceTimersByTime(5);
    expect(queue.throttleCheckTimeoutId).not.toBeNull();
  });

  it('with the replacement in place, an idle connection has no timer after a response', () => {
    stopIdleRequestQueueTimers();
    expect(kafkajsRequestQueue().prototype.scheduleCheckPendingRequests).toBe(scheduleCheckWhilePending);
    const queue = track(requestQueue());
    const sent: number[] = [];
    const fetch = request(sent);
    queue.push(fetch);
    expect(sent).toEqual([fetch.entry.correlationId]);
    queue.fulfillRequest({ correlationId: fetch.entry.correlationId, payload: Buffer.alloc(0), size: 0 });
    expect(queue.throttleCheckTimeoutId).toBeNull();
    expect(jest.getTimerCount()).toBe(0);
  });

  it('sends a request held back by a broker throttle when the throttle ends, then stops checking', () => {
    stopIdleRequestQueueTimers();
    const queue = track(requestQueue());
    const sent: number[] = [];
    queue.maybeThrottle(200);
    const held = request(sent);
    queue.push(held);
    expect(sent).toEqual([]);
    jest.advanceTimersByTime(199);
    expect(sent).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(sent).toEqual([held.entry.correlationId]);
    expect(queue.throttleCheckTimeoutId).toBeNull();
  });

  it('sends a request held back by the in-flight limit as soon as a response frees a place', () => {
    stopIdleRequestQueueTimers();
    const queue = track(requestQueue(1));
    const sent: number[] = [];
    const first = request(sent);
    const second = request(sent);
    queue.push(first);
    queue.push(second);
    expect(sent).toEqual([first.entry.correlationId]);
    // While it waits, the queue is checked again every 10 ms, as kafkajs does.
    expect(queue.throttleCheckTimeoutId).not.toBeNull();
    jest.advanceTimersByTime(50);
    expect(sent).toEqual([first.entry.correlationId]);
    queue.fulfillRequest({ correlationId: first.entry.correlationId, payload: Buffer.alloc(0), size: 0 });
    expect(sent).toEqual([first.entry.correlationId, second.entry.correlationId]);
    jest.advanceTimersByTime(10);
    expect(queue.throttleCheckTimeoutId).toBeNull();
  });

  it('installs once, however many queues are created', () => {
    stopIdleRequestQueueTimers();
    stopIdleRequestQueueTimers();
    expect(kafkajsRequestQueue().prototype.scheduleCheckPendingRequests).toBe(scheduleCheckWhilePending);
  });
});
