import fs from 'node:fs';
import { API_KEY, BASE_URL, deleteSandbox, expect, restoreRunning, signIn, test, waitForPrompt } from '../fixtures';

test.describe.serial('file tree and editor', () => {
  let sandboxId = '';

  test.beforeAll(async ({ playwright }) => {
    const api = await playwright.request.newContext({
      baseURL: BASE_URL,
      extraHTTPHeaders: { authorization: `Bearer ${API_KEY}` },
    });
    sandboxId = await restoreRunning(api);
    await api.dispose();
  });

  test.afterAll(async ({ playwright }) => {
    const api = await playwright.request.newContext({
      baseURL: BASE_URL,
      extraHTTPHeaders: { authorization: `Bearer ${API_KEY}` },
    });
    await deleteSandbox(api, sandboxId);
    await api.dispose();
  });

  test('creates a folder, uploads, renames, downloads and deletes a file', async ({ page, api }) => {
    await signIn(page);
    await page.goto(`/sandbox/${sandboxId}`);
    await waitForPrompt(page);
    const tree = page.getByTestId('file-tree');

    await page.getByTestId('file-tree-new-folder').click();
    await page.getByTestId('file-tree-name-input').fill('uploads');
    await page.getByTestId('file-tree-name-input').press('Enter');
    const folder = tree.locator('[data-path="/workspace/uploads"]');
    await expect(folder).toBeVisible();
    await folder.click();

    await page.getByTestId('file-tree-upload-input').setInputFiles({
      name: 'notes.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from('# Notes\nuploaded from the browser\n'),
    });
    await expect(tree.locator('[data-path="/workspace/uploads/notes.md"]')).toBeVisible();
    const uploaded = await api.post(`/v1/sandbox/${sandboxId}/filesystem/read-file`, {
      data: { path: '/workspace/uploads/notes.md' },
    });
    expect(await uploaded.text()).toBe('# Notes\nuploaded from the browser\n');

    const row = tree.locator('[data-path="/workspace/uploads/notes.md"]');
    await row.hover();
    await row.getByRole('button', { name: 'Rename notes.md' }).click();
    await page.getByTestId('dialog-input').fill('renamed.md');
    await page.getByTestId('dialog-confirm').click();
    const renamed = tree.locator('[data-path="/workspace/uploads/renamed.md"]');
    await expect(renamed).toBeVisible();
    await expect(row).toHaveCount(0);

    await renamed.hover();
    const download = page.waitForEvent('download');
    await renamed.getByRole('button', { name: 'Download renamed.md' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('renamed.md');
    const saved = await file.path();
    expect(fs.readFileSync(saved, 'utf8')).toBe('# Notes\nuploaded from the browser\n');

    await renamed.hover();
    await renamed.getByRole('button', { name: 'Delete renamed.md' }).click();
    await expect(page.getByTestId('dialog')).toContainText('Delete renamed.md?');
    await page.getByTestId('dialog-confirm').click();
    await expect(renamed).toHaveCount(0);
    const exists = await api.post(`/v1/sandbox/${sandboxId}/filesystem/exists`, {
      data: { path: '/workspace/uploads/renamed.md' },
    });
    expect(await exists.json()).toEqual({ exists: false });
  });

  test('warns when a file changed on disk since it was opened, and asks before overwriting', async ({ page, api }) => {
    const write = (text: string) =>
      api.post(`/v1/sandbox/${sandboxId}/filesystem/write-file?path=/workspace/shared.txt`, {
        headers: { 'content-type': 'application/octet-stream' },
        data: Buffer.from(text),
      });
    expect((await write('first version\n')).status()).toBe(204);
    await signIn(page);
    await page.goto(`/sandbox/${sandboxId}`);
    const tree = page.getByTestId('file-tree');
    await page.getByTestId('file-tree-refresh').click();
    await tree.locator('[data-path="/workspace/shared.txt"]').click();
    const editor = page.getByTestId('editor');
    await expect(editor.locator('.view-lines')).toContainText('first version');

    // Someone else writes the file (mtime has one-second resolution).
    await page.waitForTimeout(1100);
    expect((await write('changed elsewhere\n')).status()).toBe(204);
    await editor.locator('.view-lines').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('my edit');
    await page.keyboard.press('Control+s');
    const dialog = page.getByTestId('dialog');
    await expect(dialog).toContainText('changed on disk');
    await page.getByTestId('dialog-cancel').click();
    const kept = await api.post(`/v1/sandbox/${sandboxId}/filesystem/read-file`, {
      data: { path: '/workspace/shared.txt' },
    });
    expect(await kept.text()).toBe('changed elsewhere\n');
    await expect(page.getByTestId('editor-tab-shared.txt')).toHaveAttribute('data-dirty', 'true');

    await page.keyboard.press('Control+s');
    await page.getByTestId('dialog-confirm').click();
    await expect(page.getByTestId('editor-tab-shared.txt')).toHaveAttribute('data-dirty', 'false');
    const overwritten = await api.post(`/v1/sandbox/${sandboxId}/filesystem/read-file`, {
      data: { path: '/workspace/shared.txt' },
    });
    expect(await overwritten.text()).toBe('first version\nmy edit');
  });

  test('shows binary files read-only instead of editing them', async ({ page, api }) => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02, 0xff]);
    await api.post(`/v1/sandbox/${sandboxId}/filesystem/write-file?path=/workspace/image.png`, {
      headers: { 'content-type': 'application/octet-stream' },
      data: bytes,
    });
    await signIn(page);
    await page.goto(`/sandbox/${sandboxId}`);
    await page.getByTestId('file-tree-refresh').click();
    await page.getByTestId('file-tree').locator('[data-path="/workspace/image.png"]').click();
    await expect(page.getByTestId('editor-readonly-note')).toContainText('Binary file');
    await expect(page.getByTestId('editor-binary')).toContainText('89 50 4e 47 00 01 02 ff');
  });
});
