import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Fleet, scenario, type StartedProcess } from './harness/scenario';

// Controller discovery through internal storage: controllers started with
// LANNER_CONTROLLER_ADVERTISED_HOST register `<host>:<gRPC port>` in internal storage; a worker
// with LANNER_WORKER_DISCOVERY=STORAGE reads the live entries. Here the store is a local folder
// that the controllers and the worker share (an S3 bucket in a cluster).
const WORKER = 'storage-discovery-worker';

describe('a worker with STORAGE discovery', () => {
  const { lanner, cluster } = scenario();
  const fleet = new Fleet(cluster, lanner);
  const folder = mkdtempSync(join(tmpdir(), 'lanner-e2e-discovery-'));
  const storage = { LANNER_STORAGE_TYPE: 'local', LANNER_STORAGE_LOCAL_DIR: folder };
  const registeredIn = join(folder, 'instance', 'lanner', 'controllers');

  /** What the controllers wrote: instance id to port. */
  const registered = (): Record<string, number> => {
    let files: string[] = [];
    try {
      files = readdirSync(registeredIn);
    } catch {
      return {};
    }
    return Object.fromEntries(
      files.map((file) => {
        const entry = JSON.parse(readFileSync(join(registeredIn, file), 'utf8')) as { instanceId: string; port: number };
        return [entry.instanceId, entry.port];
      }),
    );
  };
  const startController = (name: string): Promise<StartedProcess> =>
    fleet.startController(name, {
      ...storage,
      LANNER_CONTROLLER_ADVERTISED_HOST: '127.0.0.1',
      LANNER_CONTROLLER_REGISTRATION_REFRESH_S: '1',
    });
  const idOf = async (controller: StartedProcess): Promise<string> => {
    let id: string | undefined;
    const deadline = Date.now() + 30_000;
    while (id === undefined && Date.now() < deadline) {
      id = Object.entries(registered()).find(([, port]) => port === controller.grpcPort)?.[0];
      if (id === undefined) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    if (id === undefined)
      throw new Error(`${controller.name} never registered in ${registeredIn}: ${JSON.stringify(registered())}`);
    return id;
  };
  const controllerOfWorker = async (expected: string, timeoutMs = 45_000): Promise<string> => {
    const deadline = Date.now() + timeoutMs;
    let seen = '';
    while (Date.now() < deadline) {
      const worker = (await lanner.groupWorkers('default')).find((one) => one.name === WORKER);
      seen = worker?.controller ?? 'not connected';
      if (seen === expected) return seen;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return seen;
  };

  afterAll(async () => {
    await fleet.stopAll();
    rmSync(folder, { recursive: true, force: true });
  }, 60_000);

  it('connects to a controller started after it, and moves to another when that controller stops', async () => {
    const worker = await fleet.startWorker(WORKER, {
      slots: 1,
      waitUntilReady: false,
      env: { ...storage, LANNER_WORKER_DISCOVERY: 'STORAGE', LANNER_WORKER_DNS_REFRESH_S: '1' },
    });
    await fleet.waitForLog(worker, /no controller address/, 'that no controller is registered yet');
    expect(await fleet.isReady(worker)).toBe(false);

    const first = await startController('storage-discovery-controller-a');
    const firstId = await idOf(first);
    expect(await controllerOfWorker(firstId)).toBe(firstId);

    const second = await startController('storage-discovery-controller-b');
    const secondId = await idOf(second);
    const stopped = await fleet.stop(first.name);
    expect(stopped.exit.code).toBe(0);
    // A graceful stop removes the entry at once; the worker follows to the controller left.
    expect(Object.keys(registered())).toEqual([secondId]);
    expect(await controllerOfWorker(secondId)).toBe(secondId);
    expect(await fleet.isReady(worker)).toBe(true);
  });
});
