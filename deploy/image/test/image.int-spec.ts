import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from 'pg';
import { eventually, freePort, requiredEnv } from '@lanner/testing';

// The image as a cluster runs it: its own entry point and user, `lanner db migrate`, then
// `lanner server api` against the real PostgreSQL and Kafka of the development services.
// buildah runs the image's processes (chroot isolation, the host's network) with no
// Docker engine. deploy/image/run-image-test.sh builds the image, then runs this spec.
const VERSION: string = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')).version;
const IMAGE = process.env.LANNER_IMAGE ?? `localhost/lanner:${VERSION}`;
const BUILDAH = ['--storage-driver', 'vfs'];

function buildah(args: string[]): string {
  const result = spawnSync('buildah', [...BUILDAH, ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`buildah ${args.join(' ')} failed:\n${result.stderr}`);
  return result.stdout.trim();
}

interface ImageConfig {
  Entrypoint: string[];
  User: string;
  Labels: Record<string, string>;
}

let config: ImageConfig;
let container: string;
const databaseName = `lanner_image_${randomBytes(4).toString('hex')}`;
let databaseUrl: string;

/** Runs the image's entry point with these arguments, as `docker run IMAGE ...args` would. */
function runEntryPoint(args: string[], env: Record<string, string>): ChildProcess {
  const envArgs = Object.entries(env).flatMap(([name, value]) => ['--env', `${name}=${value}`]);
  return spawn(
    'buildah',
    [...BUILDAH, 'run', '--isolation', 'chroot', '--network', 'host', ...envArgs, container, '--', ...config.Entrypoint, ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
}

/** The processes under `pid`, read from /proc: buildah run's process tree. */
function descendants(pid: number): { pid: number; command: string }[] {
  const processes = fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        const command = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
        return [{ pid: Number(entry), parent, command }];
      } catch {
        return []; // ended while being read
      }
    });
  const found: { pid: number; command: string }[] = [];
  const visit = (parent: number) => {
    for (const child of processes.filter((candidate) => candidate.parent === parent)) {
      found.push({ pid: child.pid, command: child.command });
      visit(child.pid);
    }
  };
  visit(pid);
  return found;
}

/**
 * Stops what runs in the container as Kubernetes does: SIGTERM to its PID 1, the image's
 * tini. (Signalling `buildah run` itself does not reach the container's processes.)
 */
function stopContainerProcess(child: ChildProcess): void {
  const tini = descendants(child.pid as number).find((process) => process.command.startsWith('/usr/bin/tini '));
  if (!tini) throw new Error('no tini process under buildah run');
  process.kill(tini.pid, 'SIGTERM');
}

/** Last resort, so that a failed test leaves no process of the image running. */
function killContainerProcesses(child: ChildProcess): void {
  for (const { pid } of descendants(child.pid as number).reverse()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

function collect(child: ChildProcess): { output: () => string; exit: Promise<number | null> } {
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk) => (output += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { output: () => output, exit };
}

beforeAll(async () => {
  config = JSON.parse(buildah(['inspect', '--type', 'image', IMAGE])).OCIv1.config;
  container = buildah(['from', '--name', `lanner-image-spec-${process.pid}`, IMAGE]);
  const serverUrl = requiredEnv('DATABASE_URL', 'the image spec');
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${databaseName}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${databaseName}`;
  databaseUrl = url.toString();
});

afterAll(async () => {
  if (container) buildah(['rm', container]);
  const admin = new Client({ connectionString: requiredEnv('DATABASE_URL', 'the image spec') });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
  await admin.end();
});

describe('the Lanner image', () => {
  it('runs lanner under tini as a non-root user, labelled with its version', () => {
    expect(config.Entrypoint).toEqual(['/usr/bin/tini', '-s', '--', 'lanner']);
    expect(config.User).toBe('10001:10001');
    expect(config.Labels['org.opencontainers.image.version']).toBe(VERSION);
    expect(config.Labels['org.opencontainers.image.revision']).toMatch(/^[0-9a-f]{40}$/);
    expect(config.Labels['org.opencontainers.image.source']).toBeDefined();
  });

  it('holds no test, test support, development tooling or UI sources', () => {
    const listing = spawnSync(
      'buildah',
      [
        ...BUILDAH,
        'run',
        '--isolation',
        'chroot',
        container,
        '--',
        'sh',
        '-c',
        'ls /app/node_modules/jest /app/node_modules/nx /app/node_modules/prisma /app/libs/testing /usr/local/bin/npm /app/apps/ui/src /app/apps/ui-e2e 2>&1; find /app/libs -name "*.spec.ts" | wc -l',
      ],
      { encoding: 'utf8' },
    );

    expect(listing.stdout).toMatch(/jest': No such file/);
    expect(listing.stdout).toMatch(/nx': No such file/);
    expect(listing.stdout).toMatch(/prisma': No such file/);
    expect(listing.stdout).toMatch(/testing': No such file/);
    expect(listing.stdout).toMatch(/npm': No such file/);
    expect(listing.stdout).toMatch(/ui\/src': No such file/);
    expect(listing.stdout).toMatch(/ui-e2e': No such file/);
    expect(listing.stdout.trim().split('\n').pop()).toBe('0');
  });

  // The image leaves out the ES module and browser copies of date-holidays, astronomia and
  // moment: the PublicHoliday condition must still find a fixed holiday and one computed
  // from the equinox (astronomia's planetary data, in a time zone through moment-timezone).
  it('keeps what the PublicHoliday condition reads: a fixed holiday and an equinox holiday', () => {
    const script = [
      "const Holidays = require('date-holidays');",
      'const names = (country, date) => (new Holidays(country).isHoliday(new Date(date)) || []).map((h) => h.name);',
      "console.log(JSON.stringify([names('FR', '2026-07-14T12:00:00Z'), names('JP', '2026-03-20T03:00:00Z')]));",
    ].join(' ');
    const run = spawnSync(
      'buildah',
      [...BUILDAH, 'run', '--isolation', 'chroot', '--workingdir', '/app', container, '--', 'node', '-e', script],
      { encoding: 'utf8' },
    );

    expect(run.stderr).toBe('');
    const [france, japan] = JSON.parse(run.stdout.trim()) as string[][];
    expect(france.length).toBeGreaterThan(0);
    expect(japan.length).toBeGreaterThan(0);
  });

  it('applies the migrations with `lanner db migrate`, then serves the api, which answers health and authenticated requests', async () => {
    const migrate = collect(runEntryPoint(['db', 'migrate'], { DATABASE_URL: databaseUrl }));
    expect([await migrate.exit, migrate.output()]).toEqual([0, expect.any(String)]);

    const port = await freePort();
    const adminToken = randomBytes(24).toString('hex');
    const api = runEntryPoint(['server', 'api'], {
      DATABASE_URL: databaseUrl,
      KAFKA_BROKERS: requiredEnv('KAFKA_BROKERS', 'the image spec'),
      LANNER_KAFKA_NAMESPACE: `image-spec-${process.pid}.`,
      LANNER_ADMIN_TOKEN: adminToken,
      LANNER_HTTP_PORT: String(port),
    });
    const served = collect(api);
    try {
      const ready = await eventually(
        'the api from the image to be ready',
        async () => {
          if (api.exitCode !== null) throw new Error(`the api exited (${api.exitCode}):\n${served.output()}`);
          const response = await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => undefined);
          return response?.status === 200 ? response.json() : undefined;
        },
        { waitMs: 120_000, pollMs: 500 },
      );
      expect(ready).toMatchObject({ status: 'ok' });

      const flows = await fetch(`http://127.0.0.1:${port}/api/v1/main/flows/search`, {
        headers: { authorization: `Bearer ${adminToken}` },
      });
      expect(flows.status).toBe(200);
      const refused = await fetch(`http://127.0.0.1:${port}/api/v1/main/flows/search`, {
        headers: { authorization: 'Bearer wrong' },
      });
      expect(refused.status).toBe(401);
      // The web UI's bundle is in the image: the page at /, and the script it names.
      const page = await fetch(`http://127.0.0.1:${port}/flows`);
      expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
      const html = await page.text();
      const script = /<script[^>]+src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
      expect(script).toBeDefined();
      const bundle = await fetch(`http://127.0.0.1:${port}${script}`);
      expect([bundle.status, bundle.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
      // tini passes SIGTERM on to Node: the api shuts down gracefully, as on a rollout.
      stopContainerProcess(api);
      expect(await served.exit).toBe(0);
      expect(served.output()).toContain('lanner api stopped');
    } finally {
      killContainerProcesses(api);
    }
  });
  it('runs `lanner server standalone` on its embedded PostgreSQL as the image user, and a flow to SUCCESS', async () => {
    const port = await freePort();
    const standalone = runEntryPoint(['server', 'standalone'], {
      LANNER_HTTP_PORT: String(port),
      LANNER_EMBEDDED_DB_PORT: String(await freePort()),
    });
    const served = collect(standalone);
    try {
      await eventually(
        'standalone from the image to be ready',
        async () => {
          if (standalone.exitCode !== null) throw new Error(`standalone exited (${standalone.exitCode}):\n${served.output()}`);
          return served.output().includes('Lanner standalone is ready.') ? true : undefined;
        },
        { waitMs: 180_000, pollMs: 500 },
      );
      // The admin token is printed once, as `npm start` prints it; the database and the
      // credentials live in the image's data folder, owned by the image user.
      const adminToken = /Admin token: (\S+)/.exec(served.output())?.[1];
      expect(adminToken?.length).toBeGreaterThan(20);
      const headers = { authorization: `Bearer ${adminToken}` };
      const deployed = await fetch(`http://127.0.0.1:${port}/api/v1/main/flows`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/x-yaml' },
        body: [
          'id: from-the-image',
          'namespace: image.spec',
          'tasks:',
          '  - id: answer',
          '    type: io.kestra.plugin.core.debug.Return',
          '    format: "{{ 6 * 7 }}"',
        ].join('\n'),
      });
      expect(deployed.status).toBe(201);
      const run = await fetch(`http://127.0.0.1:${port}/api/v1/main/executions/image.spec/from-the-image?wait=true`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: '{}',
      });
      const execution = (await run.json()) as { state?: { current?: string }; taskRunList?: { outputs?: unknown }[] };
      expect([run.status, execution.state?.current, execution.taskRunList?.[0]?.outputs]).toEqual([
        200,
        'SUCCESS',
        { value: '42' },
      ]);
      stopContainerProcess(standalone);
      expect(await served.exit).toBe(0);
    } finally {
      killContainerProcesses(standalone);
    }
  });
});
