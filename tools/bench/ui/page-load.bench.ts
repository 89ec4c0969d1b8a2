// Page load of the web UI on `lanner server standalone`: starts one standalone in a
// scratch folder on free ports (or uses LANNER_BENCH_API_URL + LANNER_BENCH_TOKEN), then
// opens the app in Debian's chromium-headless-shell, each load in a fresh browser
// context (an empty cache, as a first visit), signed in through the tab's session.
// Reports, over the runs, the median and worst: DOMContentLoaded, the load event, and
// the time until the flows page shows its list; plus the bytes of JavaScript transferred.
//   SWC_NODE_PROJECT=tsconfig.base.json node -r @swc-node/register tools/bench/ui/page-load.bench.ts
// Knobs: UI_BENCH_RUNS (default 10), UI_BENCH_PAGE (default /flows).
import { spawn } from 'node:child_process';
import { chmodSync, closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { freePort } from '@lanner/testing';

const ROOT = resolve(__dirname, '..', '..', '..');
const CHROMIUM = '/usr/lib/chromium/chromium-headless-shell';
const RUNS = Number(process.env.UI_BENCH_RUNS ?? 10);
const PAGE = process.env.UI_BENCH_PAGE ?? '/flows';

async function ready(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(2000) })).ok;
  } catch {
    return false;
  }
}

async function standalone(): Promise<{ baseUrl: string; token: string; stop: () => Promise<void> }> {
  if (process.env.LANNER_BENCH_API_URL && process.env.LANNER_BENCH_TOKEN)
    return { baseUrl: process.env.LANNER_BENCH_API_URL, token: process.env.LANNER_BENCH_TOKEN, stop: async () => undefined };
  const workDir = mkdtempSync(join(tmpdir(), 'lanner-ui-bench-'));
  chmodSync(workDir, 0o755);
  const [http, database, grpc] = await Promise.all([freePort(), freePort(), freePort()]);
  // bin/lanner.js picks its own TypeScript settings; the bench's (tsconfig.base.json) would lose the path aliases.
  const inherited = { ...process.env };
  delete inherited.SWC_NODE_PROJECT;
  const logFile = join(workDir, 'standalone.log');
  const output = openSync(logFile, 'a');
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'lanner.js'), 'server', 'standalone'], {
    cwd: workDir,
    env: {
      ...inherited,
      LANNER_LOG_LEVEL: 'warn',
      LANNER_HTTP_PORT: String(http),
      LANNER_EMBEDDED_DB_PORT: String(database),
      LANNER_GRPC_PORT: String(grpc),
    },
    stdio: ['ignore', output, output],
  });
  closeSync(output);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const baseUrl = `http://127.0.0.1:${http}`;
  const started = Date.now();
  while (!(await ready(baseUrl))) {
    if (child.exitCode !== null) throw new Error(`standalone exited before it was ready; log: ${logFile}`);
    if (Date.now() - started > 120_000) throw new Error('standalone was not ready within 120 s');
    await new Promise((wait) => setTimeout(wait, 250));
  }
  return {
    baseUrl,
    token: readFileSync(join(workDir, '.lanner', 'admin-token'), 'utf8').trim(),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      rmSync(workDir, { recursive: true, force: true });
    },
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const worst = (values: number[]) => Math.max(...values);

async function main(): Promise<void> {
  const server = await standalone();
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  const samples: { domContentLoaded: number; load: number; shown: number; jsBytes: number }[] = [];
  try {
    for (let run = 0; run < RUNS; run++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
      // Runs in the page (no DOM types here): signs the tab in as the login page would.
      await context.addInitScript({ content: `sessionStorage.setItem('lanner.apiToken', ${JSON.stringify(server.token)});` });
      const page = await context.newPage();
      let jsBytes = 0;
      page.on('response', (response) => {
        // As sent (Content-Length), so gzipped when the server compressed it.
        if (response.url().endsWith('.js')) jsBytes += Number(response.headers()['content-length'] ?? 0);
      });
      const started = Date.now();
      await page.goto(`${server.baseUrl}${PAGE}`, { waitUntil: 'load' });
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await page.locator('table, .empty').first().waitFor();
      const shown = Date.now() - started;
      const timing = JSON.parse(
        await page.evaluate<string>(
          `(() => { const [n] = performance.getEntriesByType('navigation'); return JSON.stringify({ domContentLoaded: n.domContentLoadedEventEnd, load: n.loadEventEnd }); })()`,
        ),
      ) as { domContentLoaded: number; load: number };
      samples.push({ ...timing, shown, jsBytes });
      await context.close();
    }
  } finally {
    await browser.close();
    await server.stop();
  }
  const figure = (name: keyof (typeof samples)[number]) => samples.map((sample) => sample[name]);
  process.stdout.write(
    [
      `ui page load, ${PAGE}, ${RUNS} first visits (fresh context each):`,
      `  DOMContentLoaded  median ${median(figure('domContentLoaded')).toFixed(0)} ms, worst ${worst(figure('domContentLoaded')).toFixed(0)} ms`,
      `  load event        median ${median(figure('load')).toFixed(0)} ms, worst ${worst(figure('load')).toFixed(0)} ms`,
      `  list shown        median ${median(figure('shown'))} ms, worst ${worst(figure('shown'))} ms`,
      `  JavaScript        ${(median(figure('jsBytes')) / 1024).toFixed(1)} KB transferred`,
      '',
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`ui page-load bench: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
