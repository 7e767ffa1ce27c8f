import fs from 'node:fs';
import path from 'node:path';
import { expect, restoreRunning, runInTerminal, signIn, terminalText, test, waitForPrompt } from '../fixtures';
import { PROJECT_ROOT } from '../env';

/** Writes the README's screenshots: `SHOAL_SCREENSHOTS=1 npx playwright test -c e2e/playwright.config.ts --project screenshots`. */
const OUT = path.join(PROJECT_ROOT, 'docs', 'screenshots');

const SAMPLE = `import { createServer } from 'node:http';

/** A tiny server to try the sandbox: run it in the terminal with \`node server.ts\`. */
const port = Number(process.env.PORT ?? 8080);

createServer((request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ path: request.url, time: new Date().toISOString() }));
}).listen(port, () => console.log(\`listening on :\${port}\`));
`;

test('dashboard and IDE screenshots for the README', async ({ page, api }) => {
  fs.mkdirSync(OUT, { recursive: true });
  const paused = await restoreRunning(api);
  expect((await api.post(`/v1/sandbox/${paused}/pause`)).status()).toBe(201);
  const id = await restoreRunning(api);
  await api.post(`/v1/sandbox/${id}/filesystem/mkdir`, { data: { path: '/workspace/hello-api/src', recursive: true } });
  await api.post(`/v1/sandbox/${id}/filesystem/write-file?path=/workspace/hello-api/src/server.ts`, {
    headers: { 'content-type': 'application/octet-stream' },
    data: Buffer.from(SAMPLE),
  });
  await api.post(`/v1/sandbox/${id}/filesystem/write-file?path=/workspace/hello-api/README.md`, {
    headers: { 'content-type': 'application/octet-stream' },
    data: Buffer.from('# hello-api\n\nA tiny HTTP server.\n'),
  });

  await signIn(page);
  await expect(page.getByTestId(`sandbox-row-${paused}`)).toContainText('paused');
  await expect(page.getByTestId(`sandbox-row-${id}`)).toContainText('running');
  await page.screenshot({ path: path.join(OUT, 'dashboard.png') });

  await page.goto(`/sandbox/${id}`);
  await waitForPrompt(page);
  await runInTerminal(
    page,
    'cd hello-api && git init -q && git add README.md && git -c user.name=Ada -c user.email=ada@example.com commit -qm "Start hello-api" && git status --short',
  );
  await expect.poll(() => terminalText(page)).toContain('?? src/');
  await page.getByTestId('file-tree-refresh').click();
  const tree = page.getByTestId('file-tree');
  await tree.locator('[data-path="/workspace/hello-api"]').click();
  await tree.locator('[data-path="/workspace/hello-api/src"]').click();
  await tree.locator('[data-path="/workspace/hello-api/src/server.ts"]').click();
  await expect(page.getByTestId('editor').locator('.view-lines')).toContainText('createServer');
  await page.getByTestId('git-panel-open').click();
  await page.getByTestId('git-repo-path').fill('/workspace/hello-api');
  await page.getByTestId('git-repo-path').press('Enter');
  // git reports a new directory as one untracked entry, `src/`.
  await page.getByTestId('git-stage-src/').click();
  await expect(page.getByTestId('git-unstage-src/server.ts')).toBeVisible();
  await page.getByTestId('git-commit-message').fill('Add the server');
  await page.getByTestId('editor').locator('.view-lines').click();
  await page.waitForTimeout(300); // let the cursor blink settle and fonts lay out
  await page.screenshot({ path: path.join(OUT, 'ide.png') });

  expect(fs.statSync(path.join(OUT, 'dashboard.png')).size).toBeGreaterThan(10_000);
  expect(fs.statSync(path.join(OUT, 'ide.png')).size).toBeGreaterThan(10_000);
});
