/**
 * Fixed values of the end-to-end run, shared by the Playwright config (which passes them to the
 * server it starts) and the tests. Test-only credentials for a throwaway data dir.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const PROJECT_ROOT = path.resolve(__dirname, '..');
export const PORT = Number(process.env.SHOAL_E2E_PORT || 3100);
export const BASE_URL = `http://127.0.0.1:${PORT}`;
export const ADMIN_EMAIL = 'admin@localhost';
export const ADMIN_PASSWORD = 'e2e-admin-password';
export const API_KEY = 'sk_e2e_0123456789abcdefghijklmnopqrstuvwxyz_ABCDEF';
export const CHROMIUM = '/usr/bin/chromium';
export const DIST_DIR = process.env.SHOAL_NEXT_DIST_DIR || '.next';

/**
 * A fresh data dir per run. The runner creates it; its workers inherit the variable, so every
 * process of one run agrees on it.
 */
export function dataDir(): string {
  if (!process.env.SHOAL_E2E_DATA_DIR) {
    process.env.SHOAL_E2E_DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-e2e-'));
  }
  return process.env.SHOAL_E2E_DATA_DIR;
}
