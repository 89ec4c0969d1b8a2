import { Fleet, onlyTaskRun, outputsOf, scenario, stateOf } from './harness/scenario';

// A 128 MiB FILE input goes through without any process holding it: uploaded to the api
// (streamed to storage), fetched by a worker into a task's working directory, copied by
// the task and uploaded again as an output file, then downloaded. The resident memory of
// the api and of the worker, sampled all along from their /metrics, never grows by more
// than a bound well under the file's size past a warm-up (so neither held the file whole).
const NAMESPACE = 'e2e.files.large';
const FILE_BYTES = 128 * 1024 * 1024;
/**
 * Past a warm-up: under the file's 128 MiB, so a process that held the file whole fails.
 * Multipart uploads keep two 5 MiB parts in flight, and the chunks already streamed stay
 * resident until the next collection: that garbage does not grow with the file (with a
 * 50 MiB file a loaded CI run saw the api at 44 MiB, with this one a run saw 33), so the
 * file is large enough for the bound to leave room for it.
 */
const MAX_GROWTH_BYTES = 96 * 1024 * 1024;
const LIMIT_MIB = MAX_GROWTH_BYTES / (1024 * 1024);
const WARM_UP_BYTES = 12 * 1024 * 1024;
const QUEUE = 'large-files';
const GROUP = 'large-files-workers';
const WORKER = 'large-files-worker';

const FLOW = `
id: copy-large
namespace: ${NAMESPACE}
inputs:
  - { id: data, type: FILE }
tasks:
  - id: copy
    type: io.kestra.plugin.scripts.shell.Commands
    workerSelector: { tags: [${QUEUE}] }
    inputFiles:
      data.bin: "{{ inputs.data }}"
    outputFiles:
      - copy.bin
    commands:
      - cp data.bin copy.bin
      - echo "::{\\"outputs\\":{\\"bytes\\":$(wc -c < data.bin)}}::"
`;

async function residentBytes(baseUrl: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
  const found = /^lanner_process_resident_memory_bytes(?:\{[^}]*\})? (\S+)$/m.exec(text);
  if (!found) throw new Error(`no lanner_process_resident_memory_bytes in ${baseUrl}/metrics`);
  return Number(found[1]);
}

/** Samples a process's resident memory until stopped; the highest value seen. */
function sampler(baseUrl: string): { stop: () => Promise<number> } {
  let highest = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      highest = Math.max(highest, await residentBytes(baseUrl).catch(() => highest));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return highest;
    },
  };
}

/** `size` bytes of a repeating, position-dependent pattern, and its byte sum as a check. */
function largeFile(size: number): { bytes: Buffer; checksum: number } {
  const bytes = Buffer.alloc(size);
  let checksum = 0;
  for (let index = 0; index < size; index += 1) {
    const value = (index * 31 + (index >> 12)) & 0xff;
    bytes[index] = value;
    checksum = (checksum + value) % 1_000_000_007;
  }
  return { bytes, checksum };
}

describe('a 128 MiB file through the api, storage and a worker', () => {
  const { lanner, cluster, controllerEndpoint } = scenario();
  const fleet = new Fleet(cluster, lanner);
  let workerUrl = '';

  beforeAll(async () => {
    await lanner.putWorkerQueue(QUEUE, [QUEUE]);
    await lanner.putWorkerGroup(GROUP, [{ workerQueueId: QUEUE }]);
    const token = (await lanner.createRegistrationToken(GROUP, `${WORKER}-token`)).token;
    const worker = await fleet.startWorker(WORKER, { registrationToken: token, slots: 1, controllers: controllerEndpoint });
    workerUrl = `http://127.0.0.1:${worker.httpPort}`;
    await fleet.workerIdOf(GROUP, WORKER);
    await lanner.createFlow(FLOW);
  }, 240_000);

  afterAll(() => fleet.stopAll(), 60_000);

  /** Runs the flow on a file of `size` bytes, checks the copy downloads intact, and gives the peak resident memory of both. */
  async function passThrough(size: number): Promise<{ api: number; worker: number }> {
    const { bytes, checksum } = largeFile(size);
    const apiSampler = sampler(apiUrl());
    const workerSampler = sampler(workerUrl);
    const form = new FormData();
    form.append('data', new Blob([bytes]), 'large.bin');
    const answer = await lanner.raw('POST', `/executions/${NAMESPACE}/copy-large`, form);
    expect(answer.status).toBe(200);
    const { id } = (await answer.json()) as { id: string };
    const ended = await lanner.waitUntilEnded(id, 120_000);
    const copy = onlyTaskRun(ended, 'copy');
    expect(stateOf(ended)).toBe('SUCCESS');
    expect(outputsOf(copy)).toEqual(expect.objectContaining({ vars: { bytes: size } }));

    const uri = (outputsOf(copy) as { outputFiles: Record<string, string> }).outputFiles['copy.bin'] ?? '';
    const download = await lanner.raw('GET', `/executions/${id}/file?path=${encodeURIComponent(uri)}`);
    expect(download.status).toBe(200);
    let received = 0;
    let sum = 0;
    for await (const chunk of download.body as unknown as AsyncIterable<Uint8Array>) {
      for (const value of chunk) sum = (sum + value) % 1_000_000_007;
      received += chunk.length;
    }
    expect({ received, sum }).toEqual({ received: size, sum: checksum });
    return { api: await apiSampler.stop(), worker: await workerSampler.stop() };
  }

  const apiUrl = (): string => new URL(lanner.url('/')).origin;

  it('passes it whole while neither the api nor the worker grows by more than a constant', async () => {
    // A first, small file warms up what any transfer allocates once (buffers, clients, code).
    const warm = await passThrough(WARM_UP_BYTES);
    const peak = await passThrough(FILE_BYTES);
    const growthMiB = (after: number, before: number) => Math.round((after - before) / 104857.6) / 10;
    const growth = { api: growthMiB(peak.api, warm.api), worker: growthMiB(peak.worker, warm.worker) };
    process.stdout.write(
      `resident growth past the warm-up, for a ${FILE_BYTES / 1048576} MiB file: ${JSON.stringify(growth)} MiB\n`,
    );
    expect({ api: growth.api < LIMIT_MIB, worker: growth.worker < LIMIT_MIB }).toEqual({ api: true, worker: true });
  }, 300_000);
});
