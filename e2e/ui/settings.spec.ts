import { ADMIN_PASSWORD, expect, signIn, test } from '../fixtures';

test.describe('settings', () => {
  test('a key created in settings works, and once revoked the API refuses it', async ({ page, playwright }) => {
    await signIn(page);
    await page.goto('/settings');
    await page.getByTestId('api-key-name').fill('e2e-revoke');
    await page.getByTestId('api-key-create').click();
    const shown = page.getByTestId('api-key-created-value');
    await expect(shown).toHaveText(/^sk_/);
    const key = (await shown.textContent())!.trim();

    const client = await playwright.request.newContext({ extraHTTPHeaders: { authorization: `Bearer ${key}` } });
    expect((await client.get('/v1/sandboxes')).status()).toBe(200);

    await page.getByTestId('api-key-revoke-e2e-revoke').click();
    await page.getByTestId('dialog-confirm').click();
    await expect(page.getByTestId('api-key-row-e2e-revoke')).toContainText('revoked');
    await expect(page.getByTestId('api-key-created')).toHaveCount(0);

    const refused = await client.get('/v1/sandboxes');
    expect(refused.status()).toBe(401);
    expect(await refused.json()).toEqual({ message: 'Invalid or missing API key' });
    await client.dispose();
  });

  test('changes the password: the old one stops working, the new one signs in', async ({ page }) => {
    const temporary = `${ADMIN_PASSWORD}-changed`;
    const change = async (from: string, to: string) => {
      await page.goto('/settings');
      await page.getByTestId('password-current').fill(from);
      await page.getByTestId('password-new').fill(to);
      await page.getByTestId('password-repeat').fill(to);
      await page.getByTestId('password-submit').click();
      await expect(page.getByTestId('toast-success')).toContainText('Password changed');
    };
    await signIn(page);
    await page.goto('/settings');
    await page.getByTestId('password-current').fill('not-the-password');
    await page.getByTestId('password-new').fill(temporary);
    await page.getByTestId('password-repeat').fill(temporary);
    await page.getByTestId('password-submit').click();
    await expect(page.getByTestId('password-error')).toContainText('current password is wrong');

    await change(ADMIN_PASSWORD, temporary);
    try {
      await page.getByTestId('sign-out').click();
      await expect(page).toHaveURL(/\/login/);
      await page.getByTestId('login-email').fill('admin@localhost');
      await page.getByTestId('login-password').fill(ADMIN_PASSWORD);
      await page.getByTestId('login-submit').click();
      await expect(page.getByTestId('login-error')).toBeVisible();
      await signIn(page, temporary);
    } finally {
      // Put the admin password back whatever failed above: the other tests sign in with it.
      await page.goto('/settings');
      if (page.url().includes('/login')) await signIn(page, temporary);
      await change(temporary, ADMIN_PASSWORD);
    }
  });
});
