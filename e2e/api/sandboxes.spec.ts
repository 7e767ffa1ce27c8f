import { deleteSandbox, expect, restoreRunning, test, type SandboxBody } from '../fixtures';

test.describe('API', () => {
  test('refuses requests without a key, or with a wrong one (401)', async ({ playwright }) => {
    const anonymous = await playwright.request.newContext();
    const missing = await anonymous.get('/v1/sandboxes');
    expect(missing.status()).toBe(401);
    expect(await missing.json()).toEqual({ message: 'Invalid or missing API key' });
    const wrong = await anonymous.get('/v1/sandboxes', {
      headers: { authorization: 'Bearer sk_wrong_key_0000000000' },
    });
    expect(wrong.status()).toBe(401);
    await anonymous.dispose();
  });

  test('restores a snapshot and lists the sandbox', async ({ api }) => {
    const id = await restoreRunning(api);
    try {
      const list = await api.get('/v1/sandboxes');
      expect(list.status()).toBe(200);
      const body = (await list.json()) as { items: SandboxBody[]; total_items: number };
      const listed = body.items.find((sandbox) => sandbox.id === id);
      expect(listed?.state).toBe('running');
      expect(listed?.expires_in).toBeGreaterThan(0);
    } finally {
      await deleteSandbox(api, id);
    }
  });

  test('serves the sign-in page to signed-out visitors and redirects every page there', async ({ playwright }) => {
    const anonymous = await playwright.request.newContext();
    for (const page of ['/', '/settings', '/sandbox/sbx-000000000000']) {
      const response = await anonymous.get(page, { maxRedirects: 0 });
      expect([302, 303, 307, 308]).toContain(response.status());
      expect(response.headers().location).toMatch(/\/login/);
    }
    expect((await anonymous.get('/login')).status()).toBe(200);
    await anonymous.dispose();
  });

  test('manages API keys: a created key works until it is revoked', async ({ api, playwright }) => {
    const created = await api.post('/v1/api-keys', { data: { name: 'api-e2e' } });
    expect(created.status()).toBe(201);
    const key = (await created.json()) as { id: string; key: string; prefix: string };
    expect(key.key.startsWith(key.prefix)).toBe(true);
    const listed = (await (await api.get('/v1/api-keys')).json()) as { items: { id: string; key?: string }[] };
    expect(listed.items.some((item) => item.id === key.id)).toBe(true);
    expect(listed.items.every((item) => item.key === undefined)).toBe(true);

    const client = await playwright.request.newContext({ extraHTTPHeaders: { authorization: `Bearer ${key.key}` } });
    expect((await client.get('/v1/sandboxes')).status()).toBe(200);
    expect((await api.delete(`/v1/api-keys/${key.id}`)).status()).toBe(204);
    expect((await client.get('/v1/sandboxes')).status()).toBe(401);
    await client.dispose();
  });

  test('refuses a password change for API-key callers, who have no user', async ({ api }) => {
    const response = await api.post('/v1/account/password', {
      data: { current_password: 'whatever', new_password: 'long enough' },
    });
    expect(response.status()).toBe(400);
    expect(((await response.json()) as { message: string }).message).toMatch(/signed-in user/);
  });
});
