import path from 'node:path';
import { defineConfig } from 'vitest/config';

const alias = { '@': path.resolve(__dirname) };
const ignored = ['node_modules/**', '.next/**', '.next-*/**', 'e2e/**', '.data/**'];

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: { name: 'unit', include: ['**/*.test.ts'], exclude: [...ignored, '**/*.int.test.ts'] },
      },
      {
        resolve: { alias },
        test: {
          name: 'integration',
          include: ['**/*.int.test.ts'],
          exclude: ignored,
          globalSetup: ['server/testing/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // Files share one Docker engine and two cores: one file at a time keeps timings sane.
          fileParallelism: false,
        },
      },
    ],
  },
});
