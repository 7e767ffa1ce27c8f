import { test as base, expect, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { ADMIN_EMAIL, ADMIN_PASSWORD, API_KEY, BASE_URL } from './env';

export { expect };
export { ADMIN_EMAIL, ADMIN_PASSWORD, API_KEY, BASE_URL };

export interface SandboxBody {
  id: string;
  state: string;
  expires_in?: number;
}

/** `api`: a request context authenticated with the run's API key (what API clients do). */
export const test = base.extend<{ api: APIRequestContext }>({
  // The second argument is Playwright's `use`, renamed: lint reads `use(...)` as a React hook.
  api: async ({ playwright }, provide) => {
    const context = await playwright.request.newContext({
      baseURL: BASE_URL,
      extraHTTPHeaders: { authorization: `Bearer ${API_KEY}` },
    });
    await provide(context);
    await context.dispose();
  },
});

/** Signs in through the sign-in page, as a person would. */
export async function signIn(page: Page, password = ADMIN_PASSWORD): Promise<void> {
  await page.goto('/login');
  await page.getByTestId('login-email').fill(ADMIN_EMAIL);
  await page.getByTestId('login-password').fill(password);
  await page.getByTestId('login-submit').click();
  await expect(page.getByTestId('snapshot-picker')).toBeVisible();
}

/** Restores the default snapshot through the API and waits until it runs. */
export async function restoreRunning(api: APIRequestContext): Promise<string> {
  const created = await api.post('/v1/snapshot/restore', { data: { snapshot_name: 'debian-bookworm', timeout: 900 } });
  expect(created.status(), await created.text()).toBe(201);
  const { id } = (await created.json()) as SandboxBody;
  await expect
    .poll(async () => ((await (await api.get(`/v1/sandbox/${id}`)).json()) as SandboxBody).state, { timeout: 60_000 })
    .toBe('running');
  return id;
}

export async function deleteSandbox(api: APIRequestContext, id: string): Promise<void> {
  await api.delete(`/v1/sandbox/${id}`);
}

/** The visible terminal's rendered rows (xterm's DOM renderer). */
export function terminalRows(page: Page): Locator {
  return page.getByTestId('terminal').locator('.xterm-rows');
}

export async function terminalText(page: Page): Promise<string> {
  return (await terminalRows(page).innerText()).replace(/\u00a0/g, ' ');
}

/** A bash prompt such as `root@3f2c…:/workspace# `. */
export const PROMPT = /[\w.-]+@[\w.-]+:[^\n]*[#$]\s*$/m;

export async function waitForPrompt(page: Page, timeout = 30_000): Promise<void> {
  await expect.poll(() => terminalText(page), { timeout }).toMatch(PROMPT);
}

/** Types a command into the terminal and presses Enter. */
export async function runInTerminal(page: Page, command: string): Promise<void> {
  await page.getByTestId('terminal').click();
  await page.keyboard.type(command);
  await page.keyboard.press('Enter');
}
