import { uiScenario } from './testing/ui';

const QUEUE = `ui-e2e-${process.pid}`;

describe('the fleet page', () => {
  const ui = uiScenario();

  afterAll(async () => {
    await ui.api('DELETE', `/api/v1/instance/worker-groups/default/subscriptions/${QUEUE}`);
    await ui.api('DELETE', `/api/v1/instance/worker-queues/${QUEUE}`);
  });

  it("shows the standalone worker's capacity and updates it live when a subscription is added through the API", async () => {
    const page = ui.page();
    await ui.signIn(page);
    await page.getByRole('link', { name: 'Fleet' }).click();
    const group = page.getByRole('article', { name: 'Worker group default' });
    await group.getByRole('meter', { name: 'standalone on default' }).waitFor();
    await expect(group.getByRole('meter', { name: `standalone on ${QUEUE}` }).count()).resolves.toBe(0);

    expect((await ui.api('PUT', `/api/v1/instance/worker-queues/${QUEUE}`, { tags: ['ui-e2e'] })).status).toBe(201);
    expect(
      (await ui.api('PUT', `/api/v1/instance/worker-groups/default/subscriptions/${QUEUE}`, { reservedPercent: 50 })).status,
    ).toBe(200);

    // Half of the worker's slots are now reserved for the new queue: the page shows it without a reload.
    const meter = group.getByRole('meter', { name: `standalone on ${QUEUE}` });
    await meter.waitFor({ timeout: 20_000 });
    const slots = Number(await group.getByRole('meter', { name: 'standalone capacity' }).getAttribute('aria-valuemax'));
    expect(slots).toBeGreaterThan(0);
    const row = group.locator('tr', { has: page.getByRole('meter', { name: `standalone on ${QUEUE}` }) });
    await row.getByText(`reserved ${Math.floor(slots / 2)} ·`).waitFor({ timeout: 20_000 });
    await ui.screenshot(page, 'ui-fleet');
  });

  it('creates a registration token, shows its value once, and revokes it', async () => {
    const page = ui.page();
    await ui.signIn(page);
    await page.getByRole('link', { name: 'Fleet' }).click();
    const group = page.getByRole('article', { name: 'Worker group default' });
    await group.getByText(/Registration tokens/).click();
    await group.getByLabel('Token name').fill(`ui-token-${process.pid}`);
    await group.getByRole('button', { name: 'Create token' }).click();
    const shown = group.getByRole('status');
    await expect(shown.innerText()).resolves.toMatch(new RegExp(`ui-token-${process.pid}, shown only now: \\S{16,}`));
    const listed = group.locator('li', { hasText: `ui-token-${process.pid}` });
    await listed.getByRole('button', { name: 'Revoke' }).click();
    await listed.waitFor({ state: 'detached' });

    const tokens = (await (await ui.api('GET', '/api/v1/instance/worker-groups/default/tokens')).json()) as {
      name: string;
      revokedAt: string | null;
    }[];
    expect(tokens.find((token) => token.name === `ui-token-${process.pid}`)?.revokedAt).not.toBeNull();
  });
});
