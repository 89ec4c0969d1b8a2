import type { Response as PageResponse } from 'playwright-core';
import { USER_ACCESS_TOKEN_TTL_S, USER_MAX_FAILED_LOGINS } from './testing/standalone-setup';
import { uiScenario } from './testing/ui';

describe('a user logs in to the web UI with a username and password', () => {
  const ui = uiScenario();

  it('logs in as admin, stays logged in across a reload through the refresh cookie, and logs out to the login page', async () => {
    const page = ui.page();
    await page.goto(`${ui.state.baseUrl}/`);
    // Username and password is the default way in.
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(ui.adminPassword());
    await ui.screenshot(page, 'ui-login');
    const login = page.waitForResponse((response) => response.url().endsWith('/api/v1/auth/login'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect((await login).status()).toBe(200);
    await page.getByRole('heading', { name: 'Flows' }).waitFor();
    // The access token is kept in memory only: nothing a script could read from storage holds it.
    const stored = await page.evaluate<string>('JSON.stringify({ ...sessionStorage, ...localStorage })');
    expect(stored).not.toMatch(/eyJ/);

    // A reload forgets the access token; the HttpOnly refresh cookie brings a new one.
    const refreshed = page.waitForResponse((response) => response.url().endsWith('/api/v1/auth/refresh'));
    await page.reload();
    expect((await refreshed).status()).toBe(200);
    await page.getByRole('heading', { name: 'Flows' }).waitFor();
    await expect(page.getByLabel('Username').count()).resolves.toBe(0);

    const logout = page.waitForResponse((response) => response.url().endsWith('/api/v1/auth/logout'));
    await page.getByRole('button', { name: 'Log out' }).click();
    expect((await logout).status()).toBe(204);
    await page.getByLabel('Username').waitFor();
    expect(new URL(page.url()).pathname).toBe('/login');

    // The login has ended at the API: opening the app again lands on the login page.
    await page.goto(`${ui.state.baseUrl}/flows`);
    await page.getByLabel('Username').waitFor();
    expect(new URL(page.url()).pathname).toBe('/login');
  });

  it("shows the API's 401 problem for a wrong password and stays on the login page", async () => {
    const page = ui.page();
    ui.expectFailedRequest(/\/api\/v1\/auth\/login$/, 401);
    ui.expectAlert();
    await page.goto(`${ui.state.baseUrl}/flows`);
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = await page.getByRole('alert').innerText();
    expect(alert).toMatch(/Unauthorized/i);
    expect(alert).toMatch(/password/i);
    expect(new URL(page.url()).pathname).toBe('/login');
  });

  it('renews an expiring access token through the refresh cookie while the user works, without a logout', async () => {
    const page = ui.page();
    const refreshes: PageResponse[] = [];
    page.on('response', (response) => {
      if (response.url().endsWith('/api/v1/auth/refresh')) refreshes.push(response);
    });
    await page.goto(`${ui.state.baseUrl}/`);
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(ui.adminPassword());
    const login = page.waitForResponse((response) => response.url().endsWith('/api/v1/auth/login'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    const first = (await (await login).json()) as { accessToken: string; expiresAt: string };
    await page.getByRole('heading', { name: 'Flows' }).waitFor();
    // A fresh token is used as it is: no refresh while it has most of its life ahead.
    await page
      .getByRole('table')
      .or(page.getByText(/No flows/))
      .first()
      .waitFor();
    expect(refreshes).toHaveLength(0);
    const lifetimeMs = Date.parse(first.expiresAt) - Date.now();
    expect(lifetimeMs).toBeLessThanOrEqual(USER_ACCESS_TOKEN_TTL_S * 1000);

    // Past its expiry the first access token is refused by the API...
    await page.waitForTimeout(Math.max(lifetimeMs, 0) + 500);
    const stale = await fetch(`${ui.state.baseUrl}/api/v1/main/flows/search`, {
      headers: { Authorization: `Bearer ${first.accessToken}` },
    });
    expect(stale.status).toBe(401);

    // ...yet the next page the user opens is read with a renewed one, through the refresh cookie.
    const executions = page.waitForResponse((response) => response.url().includes('/api/v1/main/executions/search'));
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Executions' }).click();
    const read = await executions;
    expect(read.status()).toBe(200);
    const bearer = await read.request().headerValue('authorization');
    expect(bearer).not.toBe(`Bearer ${first.accessToken}`);
    expect(refreshes.map((response) => response.status())).not.toContain(401);
    const renewed = await Promise.all(
      refreshes.map(async (response) => ((await response.json()) as { accessToken: string }).accessToken),
    );
    expect(renewed.map((token) => `Bearer ${token}`)).toContain(bearer);
    await page.getByRole('heading', { name: 'Executions' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/executions');
    await expect(page.getByRole('button', { name: 'Log out' }).count()).resolves.toBe(1);
  });

  it("shows the API's 429 problem once a user is locked out by failed logins", async () => {
    const username = `locked-${process.pid}-${Date.now().toString(36)}`;
    const created = await ui.api('POST', '/api/v1/instance/users', {
      username,
      password: 'a-long-enough-password-1',
      role: 'viewer',
    });
    expect(created.status).toBe(201);
    const page = ui.page();
    ui.expectFailedRequest(/\/api\/v1\/auth\/login$/, 401);
    ui.expectFailedRequest(/\/api\/v1\/auth\/login$/, 429);
    ui.expectAlert();
    await page.goto(`${ui.state.baseUrl}/`);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill('not-the-password');
    const statuses: number[] = [];
    for (let attempt = 1; attempt <= USER_MAX_FAILED_LOGINS + 1; attempt++) {
      const answer = page.waitForResponse((response) => response.url().endsWith('/api/v1/auth/login'));
      await page.getByRole('button', { name: 'Sign in' }).click();
      statuses.push((await answer).status());
      await page.getByRole('alert').waitFor();
      await page.getByRole('button', { name: 'Sign in' }).and(page.locator(':enabled')).waitFor();
    }
    // The attempt that reaches the limit locks the user; every later one is refused as well, the right password too.
    expect(statuses).toEqual([...Array<number>(USER_MAX_FAILED_LOGINS - 1).fill(401), 429, 429]);
    await page.getByLabel('Password').fill('a-long-enough-password-1');
    const locked = page.waitForResponse((response) => response.url().endsWith('/api/v1/auth/login'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect((await locked).status()).toBe(429);
    const alert = page.getByRole('alert');
    await alert.getByText(/locked until/).waitFor();
    const text = await alert.innerText();
    expect(text).toMatch(/Too Many Requests/);
    expect(text).toMatch(/Too many failed logins: this user is locked until \d{4}-\d\d-\d\dT/);
    expect(new URL(page.url()).pathname).toBe('/login');
  });
});
