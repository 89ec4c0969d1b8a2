import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './harness/cli-process';
import { readClusterState } from './harness/cluster-state';
import { scenario, stateOf } from './harness/scenario';

const HELLO = `
id: hello
namespace: e2e.cli.run
inputs:
  - { id: name, type: STRING }
tasks:
  - id: greet
    type: io.kestra.plugin.core.log.Log
    message: "hello {{ inputs.name }}"
  - id: answer
    type: io.kestra.plugin.core.debug.Return
    format: "answer for {{ inputs.name }}"
outputs:
  - { id: answer, type: STRING, value: "{{ outputs.answer.value }}" }
`;

const FAILING = `
id: failing
namespace: e2e.cli.run
tasks:
  - id: broken
    type: io.kestra.plugin.scripts.shell.Commands
    commands:
      - exit 3
`;

const SLEEPER = `
id: sleeper
namespace: e2e.cli.run
tasks:
  - id: sleep
    type: io.kestra.plugin.scripts.shell.Commands
    commands:
      - exec sleep 60
`;

const APPROVAL = `
id: approval
namespace: e2e.cli.run
tasks:
  - id: wait-for-approval
    type: io.kestra.plugin.core.flow.Pause
  - id: deploy
    type: io.kestra.plugin.core.debug.Return
    format: deployed
`;

const flowFile = (namespace: string, id: string, message = 'hi') =>
  `id: ${id}\nnamespace: ${namespace}\ntasks:\n  - id: say\n    type: io.kestra.plugin.core.log.Log\n    message: ${message}\n`;

// Each step starts the CLI as a fresh Node process, as a shell does: a test of several
// steps takes longer than the suite's default on a loaded machine.
jest.setTimeout(300_000);

describe('the lanner CLI against standalone', () => {
  const { lanner } = scenario();
  const { apiUrl, adminToken } = readClusterState();
  const env = { LANNER_URL: apiUrl, LANNER_TOKEN: adminToken };
  const workDir = mkdtempSync(join(tmpdir(), 'lanner-cli-e2e-'));
  // No profile file unless a test writes one.
  const configHome = join(workDir, 'config');
  const cli = (args: string[], extraEnv: Record<string, string> = {}) =>
    runCli(args, { XDG_CONFIG_HOME: configHome, ...env, ...extraEnv });

  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  describe('flow validate', () => {
    it('reports each problem offline with its file, line and YAML path, and exits 1', async () => {
      const bad = join(workDir, 'bad.yml');
      const good = join(workDir, 'good.yml');
      writeFileSync(
        bad,
        'id: bad\nnamespace: e2e.cli\ntasks:\n  - id: say\n    type: io.kestra.plugin.core.log.Log\n    mesage: typo\n',
      );
      writeFileSync(good, flowFile('e2e.cli', 'good'));

      // No server at all: validation is offline.
      const invalid = await runCli(['flow', 'validate', good, bad], { LANNER_URL: 'http://127.0.0.1:9' });
      expect(invalid.code).toBe(1);
      expect(invalid.stdout).toContain(`${bad}:6:5: tasks[0].mesage: unknown property 'mesage'`);
      expect(invalid.stdout).toContain(`${bad}:4:5: tasks[0].message: required`);
      expect(invalid.stdout).not.toContain(good);

      const valid = await runCli(['flow', 'validate', good]);
      expect(valid.code).toBe(0);
      expect(valid.stdout).toBe('1 flow valid\n');

      const json = await runCli(['flow', 'validate', bad, '--output', 'json']);
      expect(JSON.parse(json.stdout)).toEqual(
        expect.arrayContaining([expect.objectContaining({ file: bad, path: 'tasks[0].mesage', line: 6 })]),
      );
    });
  });

  describe('flow deploy', () => {
    it('saves every flow of a directory, then deletes those no longer in it with --delete-missing', async () => {
      const dir = join(workDir, 'flows');
      mkdirSync(join(dir, 'team'), { recursive: true });
      writeFileSync(join(dir, 'one.yml'), flowFile('e2e.cli.deploy', 'one'));
      writeFileSync(join(dir, 'team', 'two.yaml'), flowFile('e2e.cli.deploy.team', 'two'));

      const first = await cli(['flow', 'deploy', dir, '--namespace', 'e2e.cli.deploy', '--output', 'json']);
      expect(first.code).toBe(0);
      expect(JSON.parse(first.stdout)).toEqual([
        expect.objectContaining({ namespace: 'e2e.cli.deploy', id: 'one', revision: 1, action: 'created' }),
        expect.objectContaining({ namespace: 'e2e.cli.deploy.team', id: 'two', revision: 1, action: 'created' }),
      ]);
      expect((await lanner.request('GET', '/flows/e2e.cli.deploy.team/two')).status).toBe(200);

      rmSync(join(dir, 'team'), { recursive: true });
      writeFileSync(join(dir, 'one.yml'), flowFile('e2e.cli.deploy', 'one', 'changed'));
      const second = await cli(['flow', 'deploy', dir, '--namespace', 'e2e.cli.deploy', '--delete-missing']);
      expect(second.code).toBe(0);
      expect(second.stdout).toMatch(/e2e\.cli\.deploy\s+one\s+2\s+updated/);
      expect(second.stdout).toMatch(/e2e\.cli\.deploy\.team\s+two\s+deleted/);
      expect((await lanner.request('GET', '/flows/e2e.cli.deploy.team/two')).status).toBe(404);
      const one = await lanner.request<{ source: string }>('GET', '/flows/e2e.cli.deploy/one');
      expect(one.body.source).toContain('message: changed');
      const listed = await cli(['flow', 'list', '--namespace', 'e2e.cli.deploy']);
      expect(listed.stdout).toMatch(/^e2e\.cli\.deploy\s+one\s+2$/m);
      expect(listed.stdout).not.toContain('two');
    });

    it('saves nothing when one flow is invalid or outside --namespace, naming the file', async () => {
      const dir = join(workDir, 'mixed');
      mkdirSync(dir);
      writeFileSync(join(dir, 'fine.yml'), flowFile('e2e.cli.mixed', 'fine'));
      writeFileSync(join(dir, 'broken.yml'), 'id: broken\nnamespace: e2e.cli.mixed\ntasks: []\n');

      const invalid = await cli(['flow', 'deploy', dir, '--namespace', 'e2e.cli.mixed']);
      expect(invalid.code).toBe(1);
      expect(invalid.stderr).toContain('nothing was deployed');
      expect(invalid.stderr).toContain(`${join(dir, 'broken.yml')}:3`);
      expect((await lanner.request('GET', '/flows/e2e.cli.mixed/fine')).status).toBe(404);

      rmSync(join(dir, 'broken.yml'));
      const outside = await cli(['flow', 'deploy', dir, '--namespace', 'e2e.other']);
      expect(outside.code).toBe(1);
      expect(outside.stderr).toContain("namespace: 'e2e.cli.mixed' is not in --namespace e2e.other");
      expect((await lanner.request('GET', '/flows/e2e.cli.mixed/fine')).status).toBe(404);
    });
  });

  describe('execution', () => {
    beforeAll(async () => {
      for (const flow of [HELLO, FAILING, SLEEPER, APPROVAL]) await lanner.createFlow(flow);
    });

    it('run --follow prints the live logs and progress and exits 0 on SUCCESS', async () => {
      const run = await cli(['execution', 'run', 'e2e.cli.run', 'hello', '--input', 'name=lanner', '--follow']);
      expect(run.stderr).toMatch(/^execution \S+ started$/m);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^\S+ INFO\s+greet hello lanner$/m);
      expect(run.stderr).toMatch(/ SUCCESS: 2\/2 task runs ended, 0 running$/m);
      expect(run.stdout).toMatch(/^execution \S+ {2}e2e\.cli\.run\.hello rev 1 {2}SUCCESS$/m);
      expect(run.stdout).toContain('outputs: {"answer":"answer for lanner"}');

      const id = /^execution (\S+) started$/m.exec(run.stderr)?.[1] ?? '';
      const logs = await cli(['execution', 'logs', id]);
      expect(logs.code).toBe(0);
      expect(logs.stdout).toMatch(/^\S+ INFO\s+greet hello lanner$/m);
    });

    it('run --wait exits 1 when the execution FAILED, and get shows the failed task run', async () => {
      const run = await cli(['execution', 'run', 'e2e.cli.run', 'failing', '--wait', '--output', 'json']);
      expect(run.code).toBe(1);
      const ended = JSON.parse(run.stdout) as { id: string; state: { current: string } };
      expect(ended.state.current).toBe('FAILED');

      const get = await cli(['execution', 'get', ended.id]);
      expect(get.code).toBe(0);
      expect(get.stdout).toMatch(/^broken\s+FAILED\s+1/m);

      const restart = await cli(['execution', 'restart', ended.id, '--output', 'json']);
      expect(restart.code).toBe(0);
      expect(JSON.parse(restart.stdout)).toMatchObject({ id: ended.id });
      await lanner.waitFor(
        ended.id,
        (execution) => execution.taskRunList?.find((r) => r.taskId === 'broken')?.attempts?.length === 2,
        'a second attempt',
      );
    });

    it('kill --wait ends a running execution KILLED', async () => {
      const started = await cli(['execution', 'run', 'e2e.cli.run', 'sleeper', '--output', 'json']);
      expect(started.code).toBe(0);
      const { id } = JSON.parse(started.stdout) as { id: string };
      await lanner.waitForState(id, 'RUNNING');

      const kill = await cli(['execution', 'kill', id, '--wait']);
      expect(kill.code).toBe(0);
      expect(kill.stdout).toMatch(/ KILLED$/m);
      expect(stateOf(await lanner.execution(id))).toBe('KILLED');
    });

    it('resume continues a PAUSED execution; resuming it again is the API problem in one line', async () => {
      const started = await cli(['execution', 'run', 'e2e.cli.run', 'approval', '--output', 'json']);
      const { id } = JSON.parse(started.stdout) as { id: string };
      await lanner.waitForState(id, 'PAUSED');

      const resume = await cli(['execution', 'resume', id]);
      expect(resume.code).toBe(0);
      expect(stateOf(await lanner.waitUntilEnded(id))).toBe('SUCCESS');

      const again = await cli(['execution', 'resume', id]);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/^lanner: 409 [^\n]+\n$/);
    });

    it('an unknown flow or a missing token is one line naming the problem, never a stack trace', async () => {
      const unknown = await cli(['execution', 'run', 'e2e.cli.run', 'nope']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/^lanner: 404 [^\n]+\n$/);

      const anonymous = await runCli(['execution', 'get', 'x'], { LANNER_URL: apiUrl, XDG_CONFIG_HOME: configHome });
      expect(anonymous.code).toBe(1);
      expect(anonymous.stderr).toMatch(/^lanner: 401 [^\n]+\n$/);
      expect(anonymous.stderr).not.toMatch(/\bat \S+:\d+/);
    });
  });

  describe('worker topology', () => {
    it('applies, gets, lists and deletes a worker queue', async () => {
      const queue = await cli([
        'worker-queue',
        'apply',
        'cli-cpu',
        '--tags',
        'cpu,big',
        '--description',
        'CPU boxes',
        '--output',
        'json',
      ]);
      expect(queue.code).toBe(0);
      expect(JSON.parse(queue.stdout)).toMatchObject({ id: 'cli-cpu', tags: ['cpu', 'big'], description: 'CPU boxes' });
      const got = await cli(['worker-queue', 'get', 'cli-cpu']);
      expect(got.stdout).toMatch(/^cli-cpu\s+cpu,big\s+\*\s+CPU boxes$/m);

      expect((await cli(['worker-queue', 'delete', 'cli-cpu'])).code).toBe(0);
      const queues = await cli(['worker-queue', 'list']);
      expect(queues.stdout).toMatch(/^default\s/m);
      expect(queues.stdout).not.toContain('cli-cpu');
    });

    it('applies a group with subscriptions, changes one, and refuses to delete a subscribed queue', async () => {
      await lanner.putWorkerQueue('cli-gpu', ['gpu']);
      const group = await cli(['worker-group', 'apply', 'cli-team', '--name', 'Team', '--subscribe', 'cli-gpu:30:ELASTIC']);
      expect(group.code).toBe(0);
      expect(group.stdout).toMatch(/^cli-team\s+Team\s+.*cli-gpu:30%:ELASTIC/m);
      const stored = await lanner.instanceRequest<{
        subscriptions: { workerQueueId: string; reservedPercent: number; mode: string }[];
      }>('GET', '/worker-groups/cli-team');
      expect(stored.body.subscriptions).toContainEqual({ workerQueueId: 'cli-gpu', reservedPercent: 30, mode: 'ELASTIC' });

      const inUse = await cli(['worker-queue', 'delete', 'cli-gpu']);
      expect(inUse.code).toBe(1);
      expect(inUse.stderr).toMatch(/^lanner: 409 [^\n]+\n$/);

      expect(
        (await cli(['worker-group', 'subscribe', 'cli-team', 'cli-gpu', '--reserved-percent', '50', '--mode', 'strict'])).code,
      ).toBe(0);
      const list = await cli(['worker-group', 'list', '--output', 'json']);
      expect(JSON.parse(list.stdout)).toContainEqual(
        expect.objectContaining({
          id: 'cli-team',
          subscriptions: expect.arrayContaining([{ workerQueueId: 'cli-gpu', reservedPercent: 50, mode: 'STRICT' }]),
        }),
      );

      expect((await cli(['worker-group', 'unsubscribe', 'cli-team', 'cli-gpu'])).code).toBe(0);
      const unsubscribed = await lanner.instanceRequest<{ subscriptions: { workerQueueId: string }[] }>(
        'GET',
        '/worker-groups/cli-team',
      );
      expect(unsubscribed.body.subscriptions.map((s) => s.workerQueueId)).not.toContain('cli-gpu');
      expect((await cli(['worker-group', 'delete', 'cli-team'])).code).toBe(0);
      expect((await lanner.instanceRequest('GET', '/worker-groups/cli-team')).status).toBe(404);
      await lanner.instanceRequest('DELETE', '/worker-queues/cli-gpu');
    });

    it('mints a registration token (its value once, on stdout), lists it without the value and revokes it', async () => {
      await lanner.putWorkerGroup('cli-tokens', []);
      const minted = await cli(['token', 'create', 'cli-tokens', '--name', 'ci']);
      expect(minted.code).toBe(0);
      const value = minted.stdout.trim();
      expect(value.length).toBeGreaterThan(20);
      const tokens = await cli(['token', 'list', 'cli-tokens', '--output', 'json']);
      const [listed] = JSON.parse(tokens.stdout) as { id: string; name: string; revokedAt: string | null }[];
      expect(listed).toMatchObject({ name: 'ci', revokedAt: null });
      expect(tokens.stdout).not.toContain(value);

      expect((await cli(['token', 'revoke', 'cli-tokens', listed.id])).code).toBe(0);
      const revoked = await lanner.instanceRequest<{ revokedAt: string | null }[]>('GET', '/worker-groups/cli-tokens/tokens');
      expect(revoked.body[0].revokedAt).not.toBeNull();
      await lanner.instanceRequest('DELETE', '/worker-groups/cli-tokens');
    });

    it('names the JSON path of a topology write the server refuses', async () => {
      const bad = await cli(['worker-group', 'apply', 'cli-bad', '--subscribe', 'cli-missing-queue:30']);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/^lanner: 4\d\d /);
      expect(bad.stderr).toContain('subscriptions');
    });
  });

  describe('connection settings', () => {
    it('reads the server and token from a profile saved with profile set (mode 0600); flags win over it', async () => {
      const profileHome = join(workDir, 'profile-home');
      const saved = await runCli(['profile', 'set', 'ops', '--server', apiUrl, '--token', adminToken], {
        XDG_CONFIG_HOME: profileHome,
      });
      expect(saved.code).toBe(0);
      const file = join(profileHome, 'lanner', 'profile.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ profiles: { ops: { url: apiUrl, token: adminToken } } });

      const viaProfile = await runCli(['worker-queue', 'get', 'default', '--profile', 'ops'], { XDG_CONFIG_HOME: profileHome });
      expect(viaProfile.code).toBe(0);
      expect(viaProfile.stdout).toMatch(/^default\s/m);

      const flagWins = await runCli(['worker-queue', 'get', 'default', '--profile', 'ops', '--token', 'wrong'], {
        XDG_CONFIG_HOME: profileHome,
      });
      expect(flagWins.code).toBe(1);
      expect(flagWins.stderr).toMatch(/^lanner: 401 /);

      const missing = await runCli(['worker-queue', 'list', '--profile', 'nope'], { XDG_CONFIG_HOME: profileHome });
      expect(missing.stderr).toBe(`lanner: no profile 'nope' in ${file}\n`);
    });
  });

  describe('completion bash', () => {
    it('completes commands and options from the command tree in a real bash', async () => {
      const script = await runCli(['completion', 'bash']);
      expect(script.code).toBe(0);
      const scriptFile = join(workDir, 'lanner.bash');
      writeFileSync(scriptFile, script.stdout);
      const complete = (...words: string[]) =>
        execFileSync(
          'bash',
          [
            '-c',
            `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _lanner; printf '%s\\n' "\${COMPREPLY[@]}"`,
            'bash',
            scriptFile,
            ...words,
          ],
          { encoding: 'utf8' },
        )
          .trim()
          .split('\n');
      expect(complete('lanner', 'worker-')).toEqual(['worker-queue', 'worker-group']);
      expect(complete('lanner', 'execution', '')).toEqual(expect.arrayContaining(['run', 'get', 'kill', 'resume', 'restart']));
      expect(complete('lanner', '--output', 'json', 'execution', 'run', '--f')).toEqual(['--follow']);
    });
  });
});
