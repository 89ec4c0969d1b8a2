/**
 * The fleet bench's load process: N simulated workers, each on a real grpc-js
 * `Connect` stream to one controller. A simulated worker says Hello (anonymous,
 * so it joins the `default` group), grants its slots as credit once welcomed,
 * heartbeats at the interval the Welcome gives (with a random phase, as
 * independent workers would), answers each Job with JobStarted, then after
 * `runMs` with a SUCCESS JobResult and one more credit, and records when each
 * Job and ConfigChanged frame arrived. Driven by the bench over IPC
 * (protocol.ts); started by fleet.bench.ts, not by hand.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import * as grpc from '@grpc/grpc-js';
import {
  frameSizeChannelOptions,
  JobState,
  millisFromDuration,
  PROTOCOL_VERSION,
  WorkerControllerServiceClient,
  type ControllerFrame,
  type Job,
  type WorkerFrame,
} from '@lanner/frames';
import { cpuTicks, rssKb } from './proc';
import { PUBLISHED_AT_FIELD, type FromLoad, type LoadSettings, type LoadStats, type ToLoad } from './protocol';

/** Streams opened per event-loop turn while ramping up, so the controller is not hit by thousands at once. */
const OPEN_BATCH = 50;

function send(message: FromLoad): void {
  process.send?.(message);
}

function settingsFromEnv(): LoadSettings {
  const raw = process.env['FLEET_LOAD_SETTINGS'];
  if (!raw) throw new Error('FLEET_LOAD_SETTINGS is not set: the load process is started by tools/bench/fleet/fleet.bench.ts');
  return JSON.parse(raw) as LoadSettings;
}

const settings = settingsFromEnv();
const clients: WorkerControllerServiceClient[] = [];
const workers: SimulatedWorker[] = [];
let latencies: number[] = [];
let jobsReceived = 0;
let resultsSent = 0;
let foreignJobs = 0;
let ended = 0;
let connectRetries = 0;
const connectRetryReasons: Record<string, number> = {};
const endReasons: Record<string, number> = {};
const streamErrors: Record<string, number> = {};
let heartbeatIntervalMs: number | undefined;
let lastConfigChanged: unknown;
/** How late this process's own event loop ran since the last latency reset: a Job frame is timed only when it is read. */
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();

function count(into: Record<string, number>, key: string): void {
  into[key] = (into[key] ?? 0) + 1;
}

/** The client (and so the HTTP/2 connection) of the index-th stream. */
function clientFor(index: number): WorkerControllerServiceClient {
  const slot = Math.floor(index / settings.streamsPerConnection);
  let client = clients[slot];
  if (!client) {
    // A local subchannel pool per client: grpc-js would otherwise share one connection among identical channels.
    client = new WorkerControllerServiceClient(settings.target, grpc.credentials.createInsecure(), {
      ...frameSizeChannelOptions(),
      'grpc.use_local_subchannel_pool': 1,
    });
    clients[slot] = client;
  }
  return client;
}

class SimulatedWorker {
  welcomed = false;
  configChangedAt: number | undefined;
  private call!: grpc.ClientDuplexStream<WorkerFrame, ControllerFrame>;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly running = new Map<string, { taskRunId: string; attempt: number }>();
  private done = false;
  private attempt = 0;

  constructor(readonly index: number) {
    this.connect();
  }

  /**
   * Opens the stream and says Hello. A stream refused or dropped before its Welcome is
   * opened again after a jittered 1-2 s, as a real worker's reconnect backoff would;
   * one that ends after its Welcome is not (the bench reports it as ended).
   */
  private connect(): void {
    this.attempt += 1;
    const call = clientFor(this.index).connect();
    this.call = call;
    call.on('data', (frame: ControllerFrame) => this.onFrame(frame));
    call.on('error', (error: grpc.ServiceError) => this.onEnd(call, `error: ${error.details || error.message}`));
    call.on('end', () => this.onEnd(call, 'ended by the controller'));
    this.write({
      frame: {
        $case: 'hello',
        value: {
          protocolVersion: { ...PROTOCOL_VERSION },
          workerName: `bench-fleet-${this.index}`,
          slots: settings.slots,
          labels: { bench: 'fleet' },
          workerVersion: 'bench',
          runningJobs: [],
        },
      },
    });
  }

  private write(frame: WorkerFrame): void {
    if (!this.done && !this.call.writableEnded && !this.call.destroyed) this.call.write(frame);
  }

  private onFrame(frame: ControllerFrame): void {
    const received = frame.frame;
    if (!received) return;
    switch (received.$case) {
      case 'welcome': {
        this.welcomed = true;
        const interval = millisFromDuration(received.value.heartbeatInterval) ?? 3_000;
        heartbeatIntervalMs = interval;
        this.write({ frame: { $case: 'credit', value: { slots: settings.slots } } });
        // A random phase, so thousands of workers do not heartbeat in the same millisecond.
        const first = setTimeout(() => {
          this.beat();
          this.heartbeat = setInterval(() => this.beat(), interval);
        }, Math.random() * interval);
        this.heartbeat = first;
        return;
      }
      case 'job':
        return this.onJob(received.value);
      case 'configChanged':
        this.configChangedAt ??= Date.now();
        lastConfigChanged = received.value.subscriptions;
        return;
      case 'kill': {
        const key = `${received.value.taskRunId}:${received.value.attempt}`;
        if (this.running.delete(key)) this.result(received.value.taskRunId, received.value.attempt, JobState.KILLED);
        return;
      }
      case 'reconnect':
        count(endReasons, `reconnect: ${received.value.reason}`);
        return;
      case 'error':
        count(streamErrors, received.value.message);
        return;
    }
  }

  private onJob(job: Job): void {
    const now = Date.now();
    jobsReceived += 1;
    let publishedAt: unknown;
    try {
      publishedAt = (JSON.parse(job.taskDefinitionJson) as Record<string, unknown>)[PUBLISHED_AT_FIELD];
    } catch {
      publishedAt = undefined;
    }
    if (typeof publishedAt === 'number') latencies.push(now - publishedAt);
    else foreignJobs += 1;
    const { taskRunId, attempt } = job;
    const key = `${taskRunId}:${attempt}`;
    this.running.set(key, { taskRunId, attempt });
    const startedAt = new Date();
    this.write({ frame: { $case: 'jobStarted', value: { taskRunId, attempt, startedAt } } });
    setTimeout(() => {
      if (this.running.delete(key)) this.result(taskRunId, attempt, JobState.SUCCESS, startedAt);
    }, settings.runMs);
  }

  private result(taskRunId: string, attempt: number, state: JobState, startedAt?: Date): void {
    this.write({
      frame: {
        $case: 'jobResult',
        value: {
          taskRunId,
          attempt,
          state,
          outputsJson: '{}',
          errorMessage: '',
          cacheHit: false,
          deadlinePassed: false,
          credit: 0,
          startedAt,
          endedAt: new Date(),
        },
      },
    });
    this.write({ frame: { $case: 'credit', value: { slots: 1 } } });
    resultsSent += 1;
  }

  private beat(): void {
    this.write({ frame: { $case: 'heartbeat', value: { sentAt: new Date(), runningJobs: [...this.running.values()] } } });
  }

  private onEnd(call: grpc.ClientDuplexStream<WorkerFrame, ControllerFrame>, reason: string): void {
    if (this.done || call !== this.call) return;
    if (!this.welcomed) {
      connectRetries += 1;
      count(connectRetryReasons, reason.replace(/\(\d{4}-[^)]*\)/g, '').slice(0, 160));
      const retry = setTimeout(
        () => {
          if (!this.done) this.connect();
        },
        1_000 + Math.random() * 1_000,
      );
      this.heartbeat = retry;
      return;
    }
    this.done = true;
    clearTimeout(this.heartbeat);
    clearInterval(this.heartbeat);
    ended += 1;
    count(endReasons, reason);
  }

  close(): void {
    clearTimeout(this.heartbeat);
    clearInterval(this.heartbeat);
    if (this.done) return;
    this.done = true;
    this.call.cancel();
  }
}

async function openUpTo(total: number): Promise<void> {
  while (workers.length < total) {
    const batchEnd = Math.min(total, workers.length + OPEN_BATCH);
    while (workers.length < batchEnd) workers.push(new SimulatedWorker(workers.length));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function stats(withLatencies: boolean): LoadStats {
  return {
    opened: workers.length,
    welcomed: workers.filter((worker) => worker.welcomed).length,
    ended,
    endReasons: { ...endReasons },
    connectRetries,
    connectRetryReasons: { ...connectRetryReasons },
    streamErrors: { ...streamErrors },
    jobsReceived,
    resultsSent,
    latenciesMs: withLatencies ? latencies : undefined,
    foreignJobs,
    configChangedAt: workers.flatMap((worker) => (worker.configChangedAt !== undefined ? [worker.configChangedAt] : [])),
    lastConfigChanged,
    heartbeatIntervalMs,
    rssKb: rssKb(process.pid),
    cpuTicks: cpuTicks(process.pid),
    eventLoopDelayP99Ms: Math.round(loopDelay.percentile(99) / 1e5) / 10,
    eventLoopDelayMaxMs: Math.round(loopDelay.max / 1e5) / 10,
  };
}

process.on('message', (message: ToLoad) => {
  void (async () => {
    try {
      switch (message.type) {
        case 'open':
          await openUpTo(message.total);
          send({ type: 'opened', total: workers.length });
          return;
        case 'stats':
          send({ type: 'stats', stats: stats(message.withLatencies) });
          return;
        case 'reset-latencies':
          latencies = [];
          loopDelay.reset();
          return;
        case 'reset-config-changed':
          for (const worker of workers) worker.configChangedAt = undefined;
          return;
        case 'close':
          for (const worker of workers) worker.close();
          for (const client of clients) client.close();
          send({ type: 'closed' });
          setTimeout(() => process.exit(0), 200);
          return;
      }
    } catch (error) {
      send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
    }
  })();
});

// The bench going away (Ctrl-C, crash) takes the load process with it.
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
