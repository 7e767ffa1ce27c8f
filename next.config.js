/** @type {import('next').NextConfig} */
module.exports = {
  reactStrictMode: true,
  poweredByHeader: false,
  devIndicators: false,
  // Lets several builds coexist (parallel test runs); the custom server reads the same variable.
  distDir: process.env.SHOAL_NEXT_DIST_DIR || '.next',
  // Native and Node-only modules stay outside the bundles and are loaded from node_modules.
  serverExternalPackages: ['better-sqlite3', 'dockerode', 'docker-modem', 'ssh2', 'cpu-features', 'ws'],
  // `make test` runs tsc and ESLint itself; the build does not repeat them.
  typescript: { ignoreBuildErrors: true },
};
