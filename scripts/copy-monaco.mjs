// Copies Monaco's AMD build into public/monaco/vs so Shoal serves the editor itself (no CDN).
// Runs before every build (npm `prebuild`); skips the copy when the same version is in place.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = path.join(root, 'node_modules', 'monaco-editor', 'min', 'vs');
const target = path.join(root, 'public', 'monaco', 'vs');
const stamp = path.join(root, 'public', 'monaco', '.version');

if (!fs.existsSync(source)) {
  console.error(`[copy-monaco] ${source} is missing: run \`npm install\` first`);
  process.exit(1);
}
const { version } = JSON.parse(
  fs.readFileSync(path.join(root, 'node_modules', 'monaco-editor', 'package.json'), 'utf8'),
);
if (
  fs.existsSync(stamp) &&
  fs.readFileSync(stamp, 'utf8').trim() === version &&
  fs.existsSync(path.join(target, 'loader.js'))
) {
  console.log(`[copy-monaco] monaco-editor ${version} already in public/monaco/vs`);
} else {
  // Copied beside the target and swapped in, so a build running at the same time never sees half a tree.
  const staging = path.join(root, 'public', `.monaco-${process.pid}`);
  fs.rmSync(staging, { recursive: true, force: true });
  fs.cpSync(source, path.join(staging, 'vs'), { recursive: true });
  fs.writeFileSync(path.join(staging, '.version'), `${version}\n`);
  fs.rmSync(path.dirname(target), { recursive: true, force: true });
  fs.renameSync(staging, path.dirname(target));
  console.log(`[copy-monaco] copied monaco-editor ${version} into public/monaco/vs`);
}
