import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Execution, Fleet, onlyTaskRun, outputsOf, scenario, stateOf } from './harness/scenario';

// docs/scheduler.md "Polling triggers": an io.kestra.plugin.core.http.Trigger is polled on a
// worker of the queue its workerSelector picks, one poll at a time, never while the execution
// it started runs. Kestra's HTTP trigger has no change detection of its own: the endpoint here
// is a change feed (each answer lists the changes since the previous one), and the trigger's
// responseCondition fires on a non-empty list.
const NAMESPACE = 'e2e.polling';
const FLOW_ID = 'watched';
const QUEUE = 'poll-edge';
const GROUP = 'poll-edge-workers';
const WORKER = 'polling-edge';
/** Each answer takes longer than the interval: overlapping polls would show as concurrent requests. */
const ANSWER_DELAY_MS = 1500;
const SLEEP_S = 4;

interface Poll {
  readonly arrivedAt: number;
  answeredAt?: number;
  changes: string[];
}

/** The test's endpoint: a change feed answered after a delay, recording every request and the most at once. */
class ChangeFeed {
  readonly polls: Poll[] = [];
  private pending: string[] = [];
  private inFlight = 0;
  maxInFlight = 0;
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const poll: Poll = { arrivedAt: Date.now(), changes: [] };
      this.polls.push(poll);
      this.inFlight += 1;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      request.resume();
      setTimeout(() => {
        poll.changes = this.pending.splice(0);
        poll.answeredAt = Date.now();
        this.inFlight -= 1;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ changes: poll.changes }));
      }, ANSWER_DELAY_MS);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/changes`;
  }

  change(name: string): void {
    this.pending.push(name);
  }

  since(time: number): Poll[] {
    return this.polls.filter((poll) => poll.arrivedAt >= time);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server?.closeAllConnections();
      this.server?.close(() => resolve());
    });
  }
}

/** An endpoint answering `status` at once, counting the requests. */
async function statusEndpoint(): Promise<{
  url: string;
  hits: () => number;
  set: (status: number) => void;
  close: () => Promise<void>;
}> {
  let status = 503;
  let hits = 0;
  const server = createServer((request, response) => {
    hits += 1;
    request.resume();
    response.writeHead(status, { 'content-type': 'text/plain' });
    response.end(status < 400 ? 'up' : 'down');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`,
    hits: () => hits,
    set: (next) => (status = next),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a polling trigger (io.kestra.plugin.core.http.Trigger)', () => {
  const { lanner, cluster, controllerEndpoint } = scenario();
  const fleet = new Fleet(cluster, lanner);
  const feed = new ChangeFeed();

  beforeAll(async () => {
    await feed.start();
    await lanner.putWorkerQueue(QUEUE, [QUEUE]);
    await lanner.putWorkerGroup(GROUP, [{ workerQueueId: QUEUE }]);
    const { token } = await lanner.createRegistrationToken(GROUP, `${WORKER}-token`);
    await fleet.startWorker(WORKER, { registrationToken: token, slots: 2, controllers: controllerEndpoint });
    await fleet.workerIdOf(GROUP, WORKER);
  }, 120_000);

  afterAll(async () => {
    await lanner.request('DELETE', `/flows/${NAMESPACE}/${FLOW_ID}`);
    await lanner.request('DELETE', `/flows/${NAMESPACE}/until-up`);
    await fleet.stopAll();
    await feed.close();
  }, 60_000);

  async function executions(): Promise<Execution[]> {
    const answer = await lanner.request<{ results: Execution[] }>(
      'GET',
      `/executions/search?namespace=${NAMESPACE}&flowId=${FLOW_ID}&size=50`,
    );
    expect(answer.status).toBe(200);
    return answer.body.results;
  }

  async function nextExecution(known: number, timeoutMs = 30_000): Promise<Execution> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const all = await executions();
      if (all.length > known) {
        expect(all.length).toBe(known + 1);
        return all.find((one) => !seen.has(one.id)) as Execution;
      }
      await sleep(250);
    }
    throw new Error(`no execution #${known + 1} within ${timeoutMs} ms; polls: ${JSON.stringify(feed.polls)}`);
  }
  const seen = new Set<string>();

  /** Waits for the execution a change starts, checks its trigger variables and that no poll came while it ran. */
  async function firesOnceFor(change: string): Promise<void> {
    const changedAt = Date.now();
    feed.change(change);
    const started = await nextExecution(seen.size);
    seen.add(started.id);
    expect(started.labels).toMatchObject({ 'system.triggerId': 'watch' });
    const ended = await lanner.waitUntilEnded(started.id, 60_000);
    expect(stateOf(ended)).toBe('SUCCESS');
    expect(outputsOf(onlyTaskRun(ended, 'seen'))['value']).toBe(`200 ${change}`);
    const state = ended.state as { startDate?: string; endDate?: string };
    const endedAt = Date.parse(String(state.endDate));
    // The poll that carried the change, and nothing else polled until the execution had ended.
    const carrier = feed.since(changedAt).find((poll) => poll.changes.includes(change));
    expect(carrier?.answeredAt).toBeDefined();
    const whileRunning = feed.polls.filter((poll) => poll.arrivedAt > (carrier?.answeredAt ?? 0) && poll.arrivedAt < endedAt);
    expect(whileRunning).toEqual([]);
    expect(endedAt - (carrier?.answeredAt ?? 0)).toBeGreaterThanOrEqual(SLEEP_S * 1000);
  }

  it('routed to a tagged worker group, fires only when the endpoint changes, never overlaps itself, and stays silent while its execution runs', async () => {
    await lanner.createFlow(`
id: ${FLOW_ID}
namespace: ${NAMESPACE}
tasks:
  - id: seen
    type: io.kestra.plugin.core.debug.Return
    format: "{{ trigger.code }} {{ json(trigger.body).changes[0] }}"
  - id: busy
    type: io.kestra.plugin.core.flow.Sleep
    duration: PT${SLEEP_S}S
triggers:
  - id: watch
    type: io.kestra.plugin.core.http.Trigger
    uri: "${feed.url}"
    interval: PT1S
    responseCondition: "{{ json(response.body).changes | length > 0 }}"
    workerSelector: { tags: [${QUEUE}] }
`);

    // Nothing changed: it polls (one at a time) and fires nothing.
    const created = Date.now();
    while (feed.since(created).filter((poll) => poll.answeredAt !== undefined).length < 3) {
      if (Date.now() - created > 30_000) throw new Error(`fewer than 3 polls in 30 s: ${JSON.stringify(feed.polls)}`);
      await sleep(200);
    }
    expect(await executions()).toEqual([]);

    await firesOnceFor('c1');
    // Polled again once the execution ended, still firing nothing without a change.
    const afterFirst = Date.now();
    while (feed.since(afterFirst).filter((poll) => poll.answeredAt !== undefined).length < 2) await sleep(200);
    expect(await executions()).toHaveLength(1);

    await firesOnceFor('c2');
    expect(await executions()).toHaveLength(2);
    expect(feed.maxInFlight).toBe(1);

    // The poll runs on the tagged group only: with its worker gone, the cluster's default workers never poll.
    await fleet.stop(WORKER);
    const stoppedAt = Date.now();
    await sleep(ANSWER_DELAY_MS + 500);
    const settled = feed.polls.length;
    await sleep(6000);
    expect(feed.polls.length).toBe(settled);
    expect(feed.since(stoppedAt + ANSWER_DELAY_MS + 500)).toEqual([]);
  }, 180_000);

  it('with the default condition fires once the endpoint answers below 400, and stopAfter disables it after that execution', async () => {
    const endpoint = await statusEndpoint();
    try {
      await lanner.createFlow(`
id: until-up
namespace: ${NAMESPACE}
tasks:
  - id: seen
    type: io.kestra.plugin.core.debug.Return
    format: "{{ trigger.code }} {{ trigger.body }}"
triggers:
  - id: up
    type: io.kestra.plugin.core.http.Trigger
    uri: "${endpoint.url}"
    interval: PT1S
    stopAfter: [SUCCESS]
`);
      const search = async () =>
        (
          await lanner.request<{ results: Execution[] }>(
            'GET',
            `/executions/search?namespace=${NAMESPACE}&flowId=until-up&size=10`,
          )
        ).body.results;
      // 503: polled, nothing fires.
      while (endpoint.hits() < 3) await sleep(200);
      expect(await search()).toEqual([]);

      endpoint.set(200);
      let fired: Execution[] = [];
      for (const deadline = Date.now() + 30_000; fired.length === 0 && Date.now() < deadline;) {
        await sleep(250);
        fired = await search();
      }
      expect(fired).toHaveLength(1);
      const ended = await lanner.waitUntilEnded(fired[0].id, 60_000);
      expect(outputsOf(onlyTaskRun(ended, 'seen'))['value']).toBe('200 up');

      // Its execution ended SUCCESS: the trigger disables itself and polls no more.
      let disabled = false;
      for (const deadline = Date.now() + 15_000; !disabled && Date.now() < deadline;) {
        await sleep(250);
        const triggers = await lanner.request<{ results: { triggerId: string; disabled: boolean }[] }>(
          'GET',
          `/triggers/search?namespace=${NAMESPACE}&flowId=until-up`,
        );
        disabled = triggers.body.results.some((row) => row.triggerId === 'up' && row.disabled);
      }
      expect(disabled).toBe(true);
      const hits = endpoint.hits();
      await sleep(3000);
      expect(endpoint.hits()).toBe(hits);
      expect(await search()).toHaveLength(1);
    } finally {
      await endpoint.close();
    }
  }, 120_000);
});
