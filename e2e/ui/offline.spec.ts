import { expect, runInTerminal, signIn, terminalText, test, waitForPrompt } from '../fixtures';

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

test('no request leaves localhost during a whole IDE session', async ({ page, context }) => {
  const urls: string[] = [];
  context.on('request', (request) => urls.push(request.url()));
  page.on('websocket', (socket) => urls.push(socket.url()));
  page.on('worker', (worker) => urls.push(worker.url()));

  await signIn(page);
  await page.goto('/settings');
  await expect(page.getByTestId('api-keys')).toBeVisible();
  await page.goto('/');
  await page.getByTestId('snapshot-debian-bookworm').click();
  await expect(page).toHaveURL(/\/sandbox\/sbx-/);
  await waitForPrompt(page);
  await runInTerminal(
    page,
    'mkdir -p /workspace/site && printf "<h1>hi</h1>\\n" > /workspace/site/index.html && echo made-$((2+3))',
  );
  await expect.poll(() => terminalText(page)).toContain('made-5');

  // Monaco and its web workers load when a file opens.
  await page.getByTestId('file-tree-refresh').click();
  await page.getByTestId('file-tree').locator('[data-path="/workspace/site"]').click();
  await page.getByTestId('file-tree').locator('[data-path="/workspace/site/index.html"]').click();
  await expect(page.getByTestId('editor').locator('.monaco-editor .view-lines')).toContainText('hi');
  await page.getByTestId('editor').locator('.monaco-editor .view-lines').click();
  await page.keyboard.type('<p>offline</p>');
  await page.keyboard.press('Control+s');
  await expect(page.getByTestId('editor-tab-index.html')).toHaveAttribute('data-dirty', 'false');
  await page.getByTestId('git-panel-open').click();
  await expect(page.getByTestId('git-panel')).toBeVisible();
  await page.getByTestId('theme-toggle').click();
  await page.reload();
  await waitForPrompt(page);

  expect(urls.length).toBeGreaterThan(20);
  expect(urls.some((url) => url.includes('/monaco/vs/'))).toBe(true);
  const network = urls.filter((url) => /^(https?|wss?):/.test(url));
  const outside = network.filter((url) => !LOCAL_HOSTS.has(new URL(url).hostname));
  expect(outside).toEqual([]);
  // Anything else must be an in-page URL (data:, blob:), never another scheme.
  expect(urls.filter((url) => !/^(https?|wss?|data|blob):/.test(url))).toEqual([]);
});
