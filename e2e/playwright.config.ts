import fs from 'node:fs';
import path from 'node:path';
import { defineConfig } from '@playwright/test';
import { ADMIN_EMAIL, ADMIN_PASSWORD, API_KEY, BASE_URL, CHROMIUM, DIST_DIR, PORT, PROJECT_ROOT, dataDir } from './env';

// Missing prerequisites fail the run with the command that fixes them; nothing is skipped.
if (!fs.existsSync(CHROMIUM)) {
  throw new Error(`Chromium is missing at ${CHROMIUM}. Install it with: apt-get install -y chromium`);
}
if (!fs.existsSync(path.join(PROJECT_ROOT, DIST_DIR, 'BUILD_ID'))) {
  throw new Error(`The app is not built (${DIST_DIR}/BUILD_ID missing). Run: npm run build`);
}

const chromium = {
  browserName: 'chromium' as const,
  viewport: { width: 1440, height: 900 },
  launchOptions: {
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  },
};

export default defineConfig({
  testDir: '.',
  outputDir: path.join(__dirname, 'test-results'),
  // One Docker engine and two cores: tests run one at a time, in order.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 120_000,
  expect: { timeout: 20_000 },
  reporter: [['list']],
  globalSetup: './global-setup.ts',
  globalTeardown: './global-teardown.ts',
  use: {
    baseURL: BASE_URL,
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    actionTimeout: 20_000,
    navigationTimeout: 30_000,
  },
  projects: [
    { name: 'api', testDir: './api' },
    { name: 'ui', testDir: './ui', testIgnore: /screenshots\.spec\.ts/, use: chromium },
    // Writes docs/screenshots/*.png; run on purpose: SHOAL_SCREENSHOTS=1 ... --project screenshots
    ...(process.env.SHOAL_SCREENSHOTS === '1'
      ? [{ name: 'screenshots', testDir: './ui', testMatch: /screenshots\.spec\.ts/, use: chromium }]
      : []),
  ],
  // The real production server, as `npm start` runs it, on a fresh data dir.
  webServer: {
    command: 'node --import tsx server/index.ts',
    cwd: PROJECT_ROOT,
    url: `${BASE_URL}/login`,
    reuseExistingServer: false,
    timeout: 90_000,
    stdout: 'ignore',
    stderr: 'pipe',
    gracefulShutdown: { signal: 'SIGTERM', timeout: 10_000 },
    env: {
      ...(process.env as Record<string, string>),
      NODE_ENV: 'production',
      PORT: String(PORT),
      HOST: '127.0.0.1',
      SHOAL_NEXT_DIST_DIR: DIST_DIR,
      SHOAL_DATA_DIR: dataDir(),
      SHOAL_API_KEY: API_KEY,
      SHOAL_ADMIN_EMAIL: ADMIN_EMAIL,
      SHOAL_ADMIN_PASSWORD: ADMIN_PASSWORD,
      SHOAL_QUIET: '1',
      // Any free port: other Shoal servers on this machine may hold the default 2222.
      SHOAL_SSH_PORT: '0',
    },
  },
});
