import { chmodSync, chownSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTaskRunner } from '../task-runners';
import { recordingContext, shellCommandsTask, temporaryFolder } from '../../testing/task-fixtures';

// Lanner's task isolation (docs/task-isolation.md): a worker running as root runs script
// tasks as a user of their own. This spec runs as root, as the workers it stands for.
const TASK_USER = { uid: 65534, gid: 65534 };
const WORKER_SECRET = 'worker-only-secret-value';

// Each probe prints what it got: LEAK:<what> when the task could read it, denied:<what> otherwise.
const PROBES = [
  'id -u',
  'if cat "$DATA_DIR/credentials.json" >/dev/null 2>&1; then echo LEAK:data-file; else echo denied:data-file; fi',
  'if ls "$DATA_DIR" >/dev/null 2>&1; then echo LEAK:data-dir; else echo denied:data-dir; fi',
  // The worker's environment as it started (DATABASE_URL, LANNER_*): readable at all is the leak.
  'if cat /proc/$PPID/environ >/dev/null 2>&1; then echo LEAK:parent-env; else echo denied:parent-env; fi',
  'if env | grep -q WORKER_PROBE_SECRET; then echo LEAK:env; else echo denied:env; fi',
  'touch own-file && echo wrote:working-directory',
];

describe('shell commands under a task user of their own', () => {
  const dataDir = temporaryFolder('lanner-worker-data-');
  const work = temporaryFolder('lanner-job-');
  beforeAll(() => {
    process.env['WORKER_PROBE_SECRET'] = WORKER_SECRET;
    writeFileSync(join(dataDir.path, 'credentials.json'), '{"refreshToken":"secret"}', { mode: 0o600 });
    chownSync(work.path, TASK_USER.uid, TASK_USER.gid);
    chmodSync(work.path, 0o700);
  });
  afterAll(() => {
    delete process.env['WORKER_PROBE_SECRET'];
    dataDir.remove();
    work.remove();
  });

  async function probe(runAs: typeof TASK_USER | undefined): Promise<string[]> {
    const { context, lines } = recordingContext({ workingDirectory: work.path });
    const task = shellCommandsTask(PROBES, { env: { DATA_DIR: dataDir.path } });
    const outcome = await createTaskRunner({ scripts: runAs ? { runAs } : {} }).run(task, context);
    expect(outcome.error).toBeUndefined();
    return lines.filter((line) => line.level === 'INFO').map((line) => line.message);
  }

  it("cannot read the worker's data dir, its environment or its parent's /proc, and writes its working directory", async () => {
    expect(process.getuid?.()).toBe(0);
    expect(await probe(TASK_USER)).toEqual([
      '65534',
      'denied:data-file',
      'denied:data-dir',
      'denied:parent-env',
      'denied:env',
      'wrote:working-directory',
    ]);
  });

  it("as the worker's own user (root), the same task reads the data dir and the parent's environment", async () => {
    expect(await probe(undefined)).toEqual([
      '0',
      'LEAK:data-file',
      'LEAK:data-dir',
      'LEAK:parent-env',
      'denied:env',
      'wrote:working-directory',
    ]);
  });

  it('reads its inputFiles, written for it by the worker, in its working directory and below', async () => {
    const folder = temporaryFolder('lanner-job-inputs-');
    chownSync(folder.path, TASK_USER.uid, TASK_USER.gid);
    chmodSync(folder.path, 0o700);
    try {
      const { context, lines } = recordingContext({ workingDirectory: folder.path });
      const task = shellCommandsTask(['id -u', 'cat people.csv', 'cat data/more.csv', 'touch data/own-file && echo wrote:data'], {
        inputFiles: { 'people.csv': 'ada\n', 'data/more.csv': 'grace\n' },
      });
      const outcome = await createTaskRunner({ scripts: { runAs: TASK_USER } }).run(task, context);
      expect(outcome.error).toBeUndefined();
      expect(lines.filter((line) => line.level === 'INFO').map((line) => line.message)).toEqual([
        '65534',
        'ada',
        'grace',
        'wrote:data',
      ]);
    } finally {
      folder.remove();
    }
  });
});
