import { rmSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { uiScenario } from './testing/ui';

// The executions list's filters, the restart action and the dashboard, in the browser
// against the standalone: executions are made through the API, and the pages must
// show them as the repository counted them.

const RUN = `${process.pid}${Date.now().toString(36)}`;
/** A namespace of this run only, so the dashboard's figures are this spec's executions. */
const NAMESPACE = `ui.dash${RUN}`;
/** The restart test's flow lives apart, so that the dashboard's figures do not depend on whether it ran. */
const RESTART_NAMESPACE = `ui.restart${RUN}`;
const MARKER = `/tmp/lanner-ui-e2e-restart-${RUN}`;
/** The replay test's flow, apart too; its middle task fails on its first run only. */
const REPLAY_NAMESPACE = `ui.replay${RUN}`;
const REPLAY_MARKER = `/tmp/lanner-ui-e2e-replay-${RUN}`;

const flows = {
  quick: `id: quick\nnamespace: ${NAMESPACE}\ntasks:\n  - id: hello\n    type: io.kestra.plugin.core.log.Log\n    message: hello\n`,
  broken: `id: broken\nnamespace: ${NAMESPACE}\ntasks:\n  - id: fail\n    type: io.kestra.plugin.scripts.shell.Commands\n    commands:\n      - exit 3\n`,
  // Fails on its first run and succeeds once restarted: the first attempt leaves a marker.
  flaky: `id: flaky\nnamespace: ${RESTART_NAMESPACE}\ntasks:\n  - id: once\n    type: io.kestra.plugin.scripts.shell.Commands\n    commands:\n      - if [ -e ${MARKER} ]; then echo second; else touch ${MARKER}; exit 1; fi\n`,
  // `prepare` must not run again in a replay from `load`: the last task logs the value it output.
  replayable:
    `id: replayable\nnamespace: ${REPLAY_NAMESPACE}\ntasks:\n` +
    `  - id: prepare\n    type: io.kestra.plugin.core.output.OutputValues\n    values:\n      batch: batch-{{ execution.id }}\n` +
    `  - id: load\n    type: io.kestra.plugin.scripts.shell.Commands\n    commands:\n` +
    `      - if [ -e ${REPLAY_MARKER} ]; then echo loaded; else touch ${REPLAY_MARKER}; exit 1; fi\n` +
    `  - id: report\n    type: io.kestra.plugin.core.log.Log\n    message: "reporting {{ outputs.prepare.values.batch }}"\n`,
};

describe('executions and the dashboard in the browser', () => {
  const ui = uiScenario();

  /** Runs a flow through the API and waits for its end; returns the execution's id. */
  async function ran(
    flowId: string,
    labels: Record<string, string> = {},
    namespace = NAMESPACE,
  ): Promise<{ id: string; state: string }> {
    const response = await ui.api('POST', `/api/v1/main/executions/${namespace}/${flowId}?wait=true&waitTimeout=PT60S`, {
      labels,
    });
    expect(response.status).toBe(200);
    const execution = (await response.json()) as { id: string; state: { current: string } };
    return { id: execution.id, state: execution.state.current };
  }

  const rows = (page: Page) => page.locator('tbody tr');

  afterAll(() => {
    for (const marker of [MARKER, REPLAY_MARKER]) rmSync(marker, { force: true });
  });

  beforeAll(async () => {
    for (const source of Object.values(flows)) {
      const created = await fetch(`${ui.state.baseUrl}/api/v1/main/flows`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${ui.state.adminToken}`, 'Content-Type': 'application/x-yaml' },
        body: source,
      });
      expect(created.status).toBe(201);
    }
    await expect(ran('quick', { team: 'data', env: 'prod' })).resolves.toMatchObject({ state: 'SUCCESS' });
    await expect(ran('quick', { team: 'data', env: 'dev' })).resolves.toMatchObject({ state: 'SUCCESS' });
    await expect(ran('quick', { team: 'ops' })).resolves.toMatchObject({ state: 'SUCCESS' });
    await expect(ran('broken')).resolves.toMatchObject({ state: 'FAILED' });
  }, 240_000);

  it('filters the list by labels and by creation period, and shows a bad label as the API problem', async () => {
    const page = ui.page();
    await ui.signIn(page);
    await page.goto(`${ui.state.baseUrl}/executions?namespace=${NAMESPACE}`);
    await page.getByRole('heading', { name: 'Executions' }).waitFor();
    await page.getByText('4 execution(s)').waitFor();

    await page.getByLabel('Labels').fill('team:data');
    await page.getByText('2 execution(s)').waitFor();
    await page.getByLabel('Labels').fill('team:data, env:prod');
    await page.getByText('1 execution(s)').waitFor();
    await expect(rows(page).first().innerText()).resolves.toContain('env:prod');

    await page.getByLabel('Labels').fill('');
    await page.getByText('4 execution(s)').waitFor();
    // Everything here was created today: nothing before 2020, all of it since.
    await page.getByLabel('Created before').fill('2020-01-01T00:00');
    await page.getByText('No executions match.').waitFor();
    await page.getByLabel('Created before').fill('');
    await page.getByLabel('Created from').fill('2020-01-01T00:00');
    await page.getByText('4 execution(s)').waitFor();

    ui.expectFailedRequest(/\/executions\/search\?/, 400);
    ui.expectAlert();
    await page.getByLabel('Labels').fill('nokey');
    const problem = page.getByRole('alert');
    await problem.waitFor();
    await expect(problem.innerText()).resolves.toMatch(/labels\[0\][\s\S]*key:value/);
  });

  it('restarts a failed execution from its page and follows it to SUCCESS', async () => {
    const first = await ran('flaky', {}, RESTART_NAMESPACE);
    expect(first.state).toBe('FAILED');
    const page = ui.page();
    await ui.signIn(page);
    await page.goto(`${ui.state.baseUrl}/executions/${first.id}`);
    await page.locator('.page-head .state', { hasText: 'FAILED' }).waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Restart' }).click();
    await page.locator('.page-head .state', { hasText: 'SUCCESS' }).waitFor({ timeout: 60_000 });
    await page.getByRole('list', { name: 'Log lines' }).getByText('second').waitFor({ timeout: 20_000 });
    await expect(page.getByRole('button', { name: 'Restart' }).count()).resolves.toBe(0);
  });

  it('replays a failed execution from its failing task: a new execution carries the earlier task run over and succeeds', async () => {
    const first = await ran('replayable', {}, REPLAY_NAMESPACE);
    expect(first.state).toBe('FAILED');
    const page = ui.page();
    await ui.signIn(page);
    await page.goto(`${ui.state.baseUrl}/executions/${first.id}`);
    await page.locator('.page-head .state', { hasText: 'FAILED' }).waitFor({ timeout: 30_000 });
    const taskRow = (task: string) =>
      page.locator('tbody tr').filter({ has: page.locator('td:first-child', { hasText: new RegExp(`^${task}\\b`) }) });
    /** The attempt numbers a task run's row lists. */
    const attemptsOf = async (task: string) => (await taskRow(task).locator('td').nth(2).innerText()).match(/#\d+/g);
    await taskRow('load').getByRole('button', { name: 'Replay from here' }).click();

    // The page of the new execution opens and follows it to its end.
    await page.waitForURL((url) => url.pathname.startsWith('/executions/') && !url.pathname.endsWith(first.id));
    const replayId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
    await page.locator('.page-head .state', { hasText: 'SUCCESS' }).waitFor({ timeout: 60_000 });
    await expect(
      page
        .locator('.page-head')
        .getByRole('link', { name: first.id.slice(0, 8) })
        .count(),
    ).resolves.toBe(1);
    // prepare did not run again: one attempt, marked carried over, its output the original's (its execution id in it).
    const prepare = taskRow('prepare');
    await expect(prepare.innerText()).resolves.toContain('carried over');
    await expect(prepare.innerText()).resolves.toContain(`batch-${first.id}`);
    await expect(attemptsOf('prepare')).resolves.toEqual(['#1']);
    // load ran again (a second attempt after the first one failed), then report read prepare's carried output.
    await expect(attemptsOf('load')).resolves.toEqual(['#1', '#2']);
    await page.getByRole('list', { name: 'Log lines' }).getByText(`reporting batch-${first.id}`).waitFor({ timeout: 20_000 });
    await expect(page.getByRole('list', { name: 'Log lines' }).getByText('loaded').count()).resolves.toBe(1);

    // The original is left as it ended.
    const original = (await (await ui.api('GET', `/api/v1/main/executions/${first.id}`)).json()) as {
      state: { current: string };
    };
    expect(original.state.current).toBe('FAILED');
    const replay = (await (await ui.api('GET', `/api/v1/main/executions/${replayId}`)).json()) as {
      replayOf: { executionId: string; taskRunId: string } | null;
    };
    expect(replay.replayOf).toEqual({ executionId: first.id, taskRunId: `${first.id}:load` });
  });

  it('shows the period on the dashboard: counts, success rate, the chart, and the failing flow', async () => {
    const page = ui.page();
    await ui.signIn(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.getByLabel('Namespace').fill(NAMESPACE);
    // quick ×3 succeeded, broken failed: 4 executions, 3 of 4 ended well.
    const tiles = page.getByLabel('Figures of the period');
    await tiles.getByText('75.0 %').waitFor({ timeout: 15_000 });
    await expect(tiles.innerText()).resolves.toMatch(/Executions\s+4\b/);
    await expect(tiles.innerText()).resolves.toContain('3 succeeded of 4 ended');
    await page.locator('.chart .recharts-bar-rectangle').first().waitFor();
    const failing = page.getByRole('table', { name: 'Failing flows' });
    await expect(failing.innerText()).resolves.toContain(`${NAMESPACE}.broken`);
    await expect(failing.innerText()).resolves.toContain('1 of 1');
    await expect(page.getByRole('table', { name: 'Slowest flows' }).getByRole('row').count()).resolves.toBe(3);
    await ui.screenshot(page, 'ui-dashboard');

    // A failing flow's count opens its failed executions.
    await failing.getByRole('link', { name: '1 of 1' }).click();
    await page.getByRole('heading', { name: 'Executions' }).waitFor();
    await page.getByText('1 execution(s)').waitFor();
    await expect(rows(page).first().innerText()).resolves.toContain('FAILED');

    // A period with nothing in it says what to do.
    await page.goto(`${ui.state.baseUrl}/dashboard?namespace=${NAMESPACE}.nothing&period=1h`);
    await page.getByText('No executions in this period.').waitFor();
  });
});
