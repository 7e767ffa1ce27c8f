import net from 'node:net';
import { deleteSandbox, expect, restoreRunning, runInTerminal, terminalText, test, waitForPrompt } from '../fixtures';
import { ADMIN_EMAIL, ADMIN_PASSWORD, PORT } from '../env';

/**
 * A TCP relay in front of the server whose connections the test can cut: a real network drop
 * as the browser sees it (the WebSocket closes abnormally), unlike the browser's offline mode,
 * which leaves open WebSockets alone.
 */
async function startRelay(): Promise<{ port: number; cut: (ms: number) => Promise<void>; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let refusing = false;
  const server = net.createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = net.connect(PORT, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    async cut(ms) {
      refusing = true;
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, ms));
      refusing = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

test('the terminal survives a network drop: output resumes from its offset, nothing lost or doubled', async ({
  page,
  api,
}) => {
  const relay = await startRelay();
  const id = await restoreRunning(api);
  try {
    const origin = `http://127.0.0.1:${relay.port}`;
    await page.goto(`${origin}/login`);
    await page.getByTestId('login-email').fill(ADMIN_EMAIL);
    await page.getByTestId('login-password').fill(ADMIN_PASSWORD);
    await page.getByTestId('login-submit').click();
    await expect(page.getByTestId('snapshot-picker')).toBeVisible();
    await page.goto(`${origin}/sandbox/${id}`);
    await waitForPrompt(page);

    await runInTerminal(page, 'for i in $(seq 1 8); do echo "tick-$i"; sleep 0.3; done; echo "loop-$((3*3))"');
    await expect.poll(() => terminalText(page)).toContain('tick-2');
    const cut = relay.cut(1200);
    await expect(page.getByTestId('terminal')).toHaveAttribute('data-status', 'reconnecting');
    await cut;
    await expect(page.getByTestId('terminal')).toHaveAttribute('data-status', 'open', { timeout: 15_000 });
    await expect.poll(() => terminalText(page)).toContain('loop-9');

    const ticks = (await terminalText(page)).match(/^tick-\d+$/gm);
    expect(ticks).toEqual(['tick-1', 'tick-2', 'tick-3', 'tick-4', 'tick-5', 'tick-6', 'tick-7', 'tick-8']);
    // Typing still reaches the same shell.
    await runInTerminal(page, 'echo "after-$((5+5))"');
    await expect.poll(() => terminalText(page)).toContain('after-10');
  } finally {
    await deleteSandbox(api, id);
    await relay.close();
  }
});
