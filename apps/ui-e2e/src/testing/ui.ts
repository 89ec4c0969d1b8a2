import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { UI_E2E_STATE, type UiE2eState } from './standalone-setup';

/** Debian's chromium-headless-shell, installed by tools/ci/install-chromium.sh: no browser is downloaded. */
export const CHROMIUM = '/usr/lib/chromium/chromium-headless-shell';
/** The README shows the screenshots the specs take. */
export const SCREENSHOTS = resolve(__dirname, '..', '..', '..', '..', 'docs', 'images');

// Without the background-networking switches Chromium keeps calling hosts a closed network refuses.
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function uiState(): UiE2eState {
  const file = process.env[UI_E2E_STATE];
  if (!file)
    throw new Error(
      `${UI_E2E_STATE} is not set: run the specs through jest.int.config.js (its global setup starts the standalone)`,
    );
  return JSON.parse(readFileSync(file, 'utf8')) as UiE2eState;
}

export interface UiScenario {
  readonly state: UiE2eState;
  /** The page of the current test, in a fresh browser context (an empty sessionStorage). */
  page(): Page;
  /** An answer the current test expects to fail (e.g. a 422 for a bad input): not counted as a problem. */
  expectFailedRequest(pattern: RegExp, status: number): void;
  /** The current test ends on an error box on purpose (e.g. an unknown execution's problem). */
  expectAlert(): void;
  /** Signs in on the login page with the admin token. */
  signIn(page: Page): Promise<void>;
  /** The password of the user `admin`, from the standalone's data dir. */
  adminPassword(): string;
  screenshot(page: Page, name: string): Promise<void>;
  /** A call to the REST API as the admin, for what a test arranges outside the UI. */
  api(method: string, path: string, body?: unknown): Promise<Response>;
}

/**
 * Each test gets a fresh context at 1280x720. A test fails when its page threw,
 * logged a console error, or got a 4xx/5xx answer it did not declare, or when
 * the page shows an error box (role=alert) at the end.
 */
export function uiScenario(): UiScenario {
  let browser: Browser;
  let context: BrowserContext | undefined;
  let current: Page | undefined;
  let problems: string[] = [];
  let expected: { pattern: RegExp; status: number }[] = [];
  let alertExpected = false;
  const state = uiState();

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    problems = [];
    expected = [];
    alertExpected = false;
    context = await browser.newContext({ viewport: { width: 1280, height: 720 }, colorScheme: 'light' });
    current = await context.newPage();
    current.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    current.on('console', (message) => {
      if (message.type() !== 'error') return;
      // Chromium logs every 4xx/5xx answer as a console error; those are judged from the response below.
      if (/^Failed to load resource: the server responded with a status of/.test(message.text())) return;
      problems.push(`console error: ${message.text()}`);
    });
    current.on('response', (response) => {
      const status = response.status();
      if (status < 400) return;
      const url = response.url();
      if (expected.some((entry) => entry.status === status && entry.pattern.test(url))) return;
      problems.push(`HTTP ${status} for ${response.request().method()} ${url}`);
    });
  });
  afterEach(async () => {
    const alerts = current && !alertExpected ? await current.getByRole('alert').allInnerTexts() : [];
    await context?.close();
    context = undefined;
    expect({ problems, alerts }).toEqual({ problems: [], alerts: [] });
  });

  return {
    state,
    page: () => {
      if (!current) throw new Error('no page outside a test');
      return current;
    },
    expectFailedRequest: (pattern, status) => {
      expected.push({ pattern, status });
    },
    expectAlert: () => {
      alertExpected = true;
    },
    async signIn(page) {
      await page.goto(`${state.baseUrl}/`);
      await page.getByRole('button', { name: 'Use an API token' }).click();
      await page.getByLabel('API token').fill(state.adminToken);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Flows' }).waitFor();
    },
    adminPassword: () => readFileSync(join(state.workDir, '.lanner', 'admin-password'), 'utf8').trim(),
    async screenshot(page, name) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
    },
    api: (method, path, body) =>
      fetch(`${state.baseUrl}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${state.adminToken}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
  };
}
