import { uiScenario } from './testing/ui';

describe('a user logs in to the web UI with a username and password', () => {
  const ui = uiScenario();

  it('logs in as admin, stays logged in across a reload through the refresh cookie, and logs out to the login page', async () => {
    const page = ui.page();
    await page.goto(`${ui.state.baseUrl}/`);
    // Username and password is the default way in.
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(ui.adminPassword());
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
});
