import {
  expect,
  runInTerminal,
  signIn,
  terminalText,
  test,
  waitForPrompt,
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
} from '../fixtures';

/**
 * One user session through the IDE, in order: sign in, restore from the picker, use the
 * terminal, create and save a file, commit it. The steps share the sandbox restored in the
 * first one (the global teardown deletes it).
 */
test.describe.serial('the IDE', () => {
  let sandboxId = '';

  test('signed-out visitors see only the sign-in page; a wrong password is refused', async ({ page }) => {
    await page.goto('/');
    await expect(page).toHaveURL(/\/login/);
    await expect(page.getByTestId('snapshot-picker')).toHaveCount(0);
    await page.getByTestId('login-email').fill(ADMIN_EMAIL);
    await page.getByTestId('login-password').fill(`${ADMIN_PASSWORD}-wrong`);
    await page.getByTestId('login-submit').click();
    await expect(page.getByTestId('login-error')).toHaveText('Wrong email or password');
    await expect(page).toHaveURL(/\/login/);
  });

  test('signs in and restores a sandbox from the snapshot picker', async ({ page }) => {
    await signIn(page);
    const picker = page.getByTestId('snapshot-picker');
    await expect(picker).toContainText('debian-bookworm');
    await expect(picker).toContainText('system/debian:bookworm');
    await page.getByTestId('snapshot-debian-bookworm').click();
    await expect(page).toHaveURL(/\/sandbox\/sbx-[a-z0-9]{12}$/);
    sandboxId = page.url().split('/').pop()!;
    await waitForPrompt(page);
    await expect(page.getByTestId('status-state')).toContainText('running');
    await expect(page.getByTestId('status-time-left')).toContainText('left');

    await page.goto('/');
    await expect(page.getByTestId('sandbox-list').getByTestId(`sandbox-row-${sandboxId}`)).toContainText('running');
  });

  test('runs a command in the terminal and shows the scrollback again after a reload', async ({ page }) => {
    await signIn(page);
    await page.goto(`/sandbox/${sandboxId}`);
    await waitForPrompt(page);
    await runInTerminal(page, 'echo "answer-$((6*7))"');
    await expect.poll(() => terminalText(page)).toContain('answer-42');

    await page.reload();
    await expect.poll(() => terminalText(page)).toContain('answer-42');
    await expect.poll(() => terminalText(page)).toContain('echo "answer-$((6*7))"');
    // The same shell, not a new one: one terminal tab, and it keeps working.
    await expect(page.locator('[data-testid^="terminal-tab-"]')).toHaveCount(1);
    await runInTerminal(page, 'echo "still-$((40+2))"');
    await expect.poll(() => terminalText(page)).toContain('still-42');
  });

  test('creates a file in the tree, edits it in Monaco, saves it, and the API reads it back', async ({ page, api }) => {
    await signIn(page);
    await page.goto(`/sandbox/${sandboxId}`);
    await waitForPrompt(page);
    await runInTerminal(page, 'git init -q /workspace/demo && echo "init-$((1+1))"');
    await expect.poll(() => terminalText(page)).toContain('init-2');

    const tree = page.getByTestId('file-tree');
    await page.getByTestId('file-tree-refresh').click();
    await tree.locator('[data-path="/workspace/demo"]').click();
    await page.getByTestId('file-tree-new-file').click();
    await page.getByTestId('file-tree-name-input').fill('hello.txt');
    await page.getByTestId('file-tree-name-input').press('Enter');
    await expect(tree.locator('[data-path="/workspace/demo/hello.txt"]')).toBeVisible();

    const editor = page.getByTestId('editor');
    await expect(editor).toHaveAttribute('data-active-path', '/workspace/demo/hello.txt');
    await editor.locator('.monaco-editor .view-lines').click();
    await page.keyboard.type('Hello from Monaco');
    const tab = page.getByTestId('editor-tab-hello.txt');
    await expect(tab).toHaveAttribute('data-dirty', 'true');
    await page.keyboard.press('Control+s');
    await expect(tab).toHaveAttribute('data-dirty', 'false');

    const read = await api.post(`/v1/sandbox/${sandboxId}/filesystem/read-files`, {
      data: { paths: ['/workspace/demo/hello.txt'] },
    });
    expect(read.status()).toBe(200);
    expect(read.headers()['content-type']).toContain('multipart/form-data');
    const body = await read.text();
    expect(body).toContain('name="/workspace/demo/hello.txt"');
    expect(body).toContain('Hello from Monaco');
  });

  test('stages and commits the file in the git panel, and git log shows the commit', async ({ page, api }) => {
    await signIn(page);
    await page.goto(`/sandbox/${sandboxId}`);
    await page.getByTestId('git-panel-open').click();
    const panel = page.getByTestId('git-panel');
    await expect(panel).toBeVisible();
    await page.getByTestId('git-repo-path').fill('/workspace/demo');
    await page.getByTestId('git-repo-path').press('Enter');
    await page.getByTestId('git-refresh').click();

    await page.getByTestId('git-stage-hello.txt').click();
    await expect(page.getByTestId('git-unstage-hello.txt')).toBeVisible();
    await expect(page.getByTestId('git-stage-hello.txt')).toHaveCount(0);
    await page.getByTestId('git-commit-message').fill('Add hello from the IDE');
    await page.getByTestId('git-commit').click();
    await expect(page.getByTestId('toast-success')).toContainText('Committed');
    await expect(page.getByTestId('git-unstage-hello.txt')).toHaveCount(0);
    await expect(page.getByTestId('git-log')).toContainText('Add hello from the IDE');

    const log = await api.post(`/v1/sandbox/${sandboxId}/git/log`, { data: { path: '/workspace/demo' } });
    expect(log.status()).toBe(200);
    const result = (await log.json()) as { output: string; exit_code: number };
    expect(result.exit_code).toBe(0);
    expect(result.output).toContain('Add hello from the IDE');
  });
  test('shows the diff of a changed file and creates and switches branches', async ({ page, api }) => {
    const write = await api.post(`/v1/sandbox/${sandboxId}/filesystem/write-file?path=/workspace/demo/hello.txt`, {
      headers: { 'content-type': 'application/octet-stream' },
      data: Buffer.from('Hello from Monaco, changed\n'),
    });
    expect(write.status()).toBe(204);
    await signIn(page);
    await page.goto(`/sandbox/${sandboxId}`);
    await page.getByTestId('git-panel-open').click();
    await page.getByTestId('git-repo-path').fill('/workspace/demo');
    await page.getByTestId('git-repo-path').press('Enter');
    await page.getByTestId('git-refresh').click();
    const changed = page.getByTestId('git-file-unstaged-hello.txt');
    await expect(changed).toContainText('M');
    await page.getByTestId('git-diff-work-hello.txt').click();
    const diff = page.getByTestId('editor-diff');
    await expect(diff).toContainText('staged ↔ working tree');
    await expect(diff.locator('.modified .view-lines')).toContainText('Hello from Monaco, changed');
    await expect(diff.locator('.original .view-lines')).toContainText('Hello from Monaco');

    await page.getByRole('button', { name: 'New branch' }).click();
    await page.getByTestId('dialog-input').fill('feature-x');
    await page.getByTestId('dialog-confirm').click();
    await expect(page.getByTestId('git-branch-select')).toHaveValue('feature-x');
    const branches = await api.post(`/v1/sandbox/${sandboxId}/git/branches`, { data: { path: '/workspace/demo' } });
    expect(((await branches.json()) as { output: string }).output).toMatch(/^\* feature-x$/m);

    const main = ((await branches.json()) as { output: string }).output.match(/^ {2}(\S+)$/m)![1];
    await page.getByTestId('git-branch-select').selectOption(main);
    await expect
      .poll(async () => {
        const listed = await api.post(`/v1/sandbox/${sandboxId}/git/branches`, { data: { path: '/workspace/demo' } });
        return ((await listed.json()) as { output: string }).output;
      })
      .toMatch(new RegExp(`^\\* ${main}$`, 'm'));
  });
});
