import type { Page } from 'playwright-core';
import { uiScenario } from './testing/ui';

const RUN = `${process.pid}${Date.now().toString(36)}`;
const NAMESPACE = 'ui.e2e';

// The task without a type starts on line 8: the editor must mark that line.
const BROKEN = `id: greeter-${RUN}
namespace: ${NAMESPACE}
inputs:
  - id: name
    type: STRING
    validator: ^[A-Za-z]+$
tasks:
  - id: warm-up
    kind: io.kestra.plugin.scripts.shell.Commands
    commands:
      - sleep 3
`;

// A pause first, so the execution page is open while it runs and the log line arrives live.
const FIXED = `id: greeter-${RUN}
namespace: ${NAMESPACE}
inputs:
  - id: name
    type: STRING
    validator: ^[A-Za-z]+$
tasks:
  - id: warm-up
    type: io.kestra.plugin.scripts.shell.Commands
    commands:
      - sleep 3
  - id: greet
    type: io.kestra.plugin.core.log.Log
    message: "Hello, {{ inputs.name }}!"
`;

/** Replaces the editor's whole text, as a paste would (no auto-indent of typed lines). */
async function setEditorText(page: Page, text: string): Promise<void> {
  const content = page.getByRole('textbox', { name: 'Flow YAML' });
  await content.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

const headerState = (page: Page) => page.locator('.page-head .state').first();

describe('flows in the browser', () => {
  const ui = uiScenario();

  async function createFlow(source: string): Promise<void> {
    const created = await fetch(`${ui.state.baseUrl}/api/v1/main/flows`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ui.state.adminToken}`, 'Content-Type': 'application/x-yaml' },
      body: source,
    });
    expect(created.status).toBe(201);
  }

  it("refuses a wrong token with the API's problem, then signs in with the admin token", async () => {
    const page = ui.page();
    ui.expectFailedRequest(/\/api\/v1\/main\/flows\/search/, 401);
    await page.goto(`${ui.state.baseUrl}/executions`);
    await page.getByRole('button', { name: 'Use an API token' }).click();
    await page.getByLabel('API token').fill('not-a-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').innerText()).resolves.toMatch(/unauthori[sz]ed|token/i);
    await page.getByLabel('API token').fill(ui.state.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Back where the user was going before the login page.
    await page.getByRole('heading', { name: 'Executions' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/executions');
  });

  it('creates a flow in the editor, shows a validation error at its line, then runs the fixed flow with inputs and follows it live to SUCCESS with its logs', async () => {
    const page = ui.page();
    await ui.signIn(page);
    await page.getByRole('link', { name: 'New flow' }).click();
    await setEditorText(page, BROKEN);

    const problems = page.getByRole('list', { name: 'Validation problems' });
    await problems.waitFor();
    await expect(problems.innerText()).resolves.toMatch(/line 8\b/);
    await expect(problems.innerText()).resolves.toContain('tasks[0]');
    // The same problem is marked inline in the editor.
    await page.locator('.cm-lintRange-error').first().waitFor();
    await expect(page.locator('.cm-lint-marker-error').count()).resolves.toBeGreaterThan(0);
    await ui.screenshot(page, 'ui-flow-editor');

    await setEditorText(page, FIXED);
    await page.getByText('The flow is valid.').waitFor();
    await expect(page.locator('.cm-lintRange-error').count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(`**/flows/${NAMESPACE}/greeter-${RUN}`);
    await page.getByText('revision 1').waitFor();

    // The run form comes from the flow's inputs; the API's problem lands on the field.
    ui.expectFailedRequest(new RegExp(`/executions/${NAMESPACE}/greeter-${RUN}$`), 422);
    const name = page.getByLabel(/^name/);
    await name.fill('not valid!');
    await page.getByRole('button', { name: 'Execute' }).click();
    await expect(page.locator('.field.invalid .field-error').innerText()).resolves.toContain('must match');

    await name.fill('Lanner');
    await page.getByRole('button', { name: 'Execute' }).click();
    await page.waitForURL('**/executions/*');
    await page.evaluate(() => ((globalThis as Record<string, unknown>)['sameDocument'] = true));
    await page.locator('.page-head .state', { hasText: 'RUNNING' }).waitFor({ timeout: 30_000 });
    await page.locator('.page-head .state', { hasText: 'SUCCESS' }).waitFor({ timeout: 60_000 });
    await page.getByRole('list', { name: 'Log lines' }).getByText('Hello, Lanner!').waitFor({ timeout: 20_000 });
    await expect(headerState(page).innerText()).resolves.toBe('SUCCESS');
    // It got there live: the same document, never reloaded.
    await expect(page.evaluate(() => (globalThis as Record<string, unknown>)['sameDocument'])).resolves.toBe(true);

    // The timeline and the task runs show each task's attempt on the standalone's worker.
    await expect(page.getByRole('table', { name: 'Timeline of task runs' }).getByRole('row').count()).resolves.toBe(2);
    await expect(page.locator('tbody tr', { hasText: 'greet' }).first().innerText()).resolves.toContain('default');
    await ui.screenshot(page, 'ui-execution');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Executions' }).click();
    await page.getByRole('heading', { name: 'Executions' }).waitFor();
    await page.getByLabel('Flow', { exact: true }).fill(`greeter-${RUN}`);
    await page
      .locator('tbody tr', { hasText: `greeter-${RUN}` })
      .getByText('SUCCESS')
      .waitFor();
  });

  it('kills a running execution from its page', async () => {
    await createFlow(
      `id: sleeper-${RUN}\nnamespace: ${NAMESPACE}\ntasks:\n  - id: sleep\n    type: io.kestra.plugin.scripts.shell.Commands\n    commands:\n      - exec sleep 60\n`,
    );

    const page = ui.page();
    await ui.signIn(page);
    await page.getByRole('link', { name: `sleeper-${RUN}` }).click();
    await page.getByRole('button', { name: 'Execute' }).click();
    await page.waitForURL('**/executions/*');
    await page.locator('.page-head .state', { hasText: 'RUNNING' }).waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Kill' }).click();
    await page.locator('.page-head .state', { hasText: 'KILLED' }).waitFor({ timeout: 30_000 });
    await expect(page.getByRole('button', { name: 'Kill' }).count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Restart' }).waitFor();
  });

  it('saves an edit as revision 2 and shows what changed since revision 1', async () => {
    const source = (message: string) =>
      `id: revised-${RUN}\nnamespace: ${NAMESPACE}\ntasks:\n  - id: say\n    type: io.kestra.plugin.core.log.Log\n    message: ${message}\n`;
    await createFlow(source('first words'));
    const page = ui.page();
    await ui.signIn(page);
    await page.getByRole('link', { name: `revised-${RUN}` }).click();
    await page.getByText('revision 1').waitFor();
    await setEditorText(page, source('second words'));
    await page.getByText('The flow is valid.').waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved revision 2.').waitFor();
    await page.getByText('Revisions (2)').click();
    const diff = page.getByLabel('Changes from revision 1 to 2');
    await diff.locator('.diff-removed', { hasText: 'message: first words' }).waitFor();
    await diff.locator('.diff-added', { hasText: 'message: second words' }).waitFor();
    await expect(diff.locator('.diff-added').count()).resolves.toBe(1);
  });

  it('resumes a paused execution from its page, refusing resume inputs that are not a JSON object', async () => {
    await createFlow(
      `id: approval-${RUN}\nnamespace: ${NAMESPACE}\ntasks:\n  - id: wait-for-approval\n    type: io.kestra.plugin.core.flow.Pause\n  - id: deploy\n    type: io.kestra.plugin.core.log.Log\n    message: deployed\n`,
    );
    const page = ui.page();
    await ui.signIn(page);
    await page.getByRole('link', { name: `approval-${RUN}` }).click();
    await page.getByRole('button', { name: 'Execute' }).click();
    await page.locator('.page-head .state', { hasText: 'PAUSED' }).waitFor({ timeout: 30_000 });
    const inputs = page.getByLabel(/Resume inputs/);
    await inputs.fill('[1, 2]');
    await page.getByText('must be a JSON object').waitFor();
    await expect(page.getByRole('button', { name: 'Resume' }).isDisabled()).resolves.toBe(true);
    await inputs.fill('');
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('.page-head .state', { hasText: 'SUCCESS' }).waitFor({ timeout: 30_000 });
    await page.getByRole('list', { name: 'Log lines' }).getByText('deployed').waitFor({ timeout: 20_000 });
  });

  it("draws the flow's topology (Parallel branches, Dag edges from dependsOn) and colours it by state on the execution page", async () => {
    const log = (id: string) => `{ id: ${id}, type: io.kestra.plugin.core.log.Log, message: ${id} }`;
    await createFlow(
      [
        `id: shapes-${RUN}`,
        `namespace: ${NAMESPACE}`,
        'tasks:',
        '  - id: fan',
        '    type: io.kestra.plugin.core.flow.Parallel',
        `    tasks: [${log('a')}, ${log('b')}]`,
        '  - id: graph',
        '    type: io.kestra.plugin.core.flow.Dag',
        '    tasks:',
        `      - task: ${log('x')}`,
        `      - task: ${log('y')}`,
        '        dependsOn: [x]',
        `      - task: ${log('z')}`,
        '        dependsOn: [x, y]',
        '',
      ].join('\n'),
    );
    const page = ui.page();
    await ui.signIn(page);
    await page.getByRole('link', { name: `shapes-${RUN}` }).click();
    const topology = page.getByRole('figure', { name: 'Flow topology' });
    await topology.locator('.react-flow__edge').first().waitFor();
    await expect(topology.locator('.react-flow__node').allInnerTexts()).resolves.toEqual(
      expect.arrayContaining(['fan · Parallel', 'a · Log', 'b · Log', 'graph · Dag', 'x · Log', 'y · Log', 'z · Log']),
    );
    // fan→a, fan→b, fan→graph, graph→x, x→y, x→z, y→z
    await expect(topology.locator('.react-flow__edge').count()).resolves.toBe(7);

    await page.getByRole('button', { name: 'Execute' }).click();
    await page.locator('.page-head .state', { hasText: 'SUCCESS' }).waitFor({ timeout: 60_000 });
    const coloured = page.getByRole('figure', { name: 'Flow topology' }).locator('.react-flow__node.state-success');
    // Coloured once the run ends; a node outside the graph's viewport is drawn but not on screen.
    await coloured.nth(6).waitFor({ state: 'attached' });
    await expect(coloured.count()).resolves.toBe(7);
  });

  it("shows the API's problem for an execution that does not exist, inside the app rather than a blank page", async () => {
    const page = ui.page();
    ui.expectFailedRequest(/\/api\/v1\/main\/executions\/no-such-execution$/, 404);
    ui.expectAlert();
    await ui.signIn(page);
    await page.goto(`${ui.state.baseUrl}/executions/no-such-execution`);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    await expect(alert.innerText()).resolves.toMatch(/not found/i);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
  });
});
