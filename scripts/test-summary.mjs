// Sums the vitest and Playwright JSON reports into one closing line: "N passed, N failed".
import fs from 'node:fs';
import path from 'node:path';

const dir = process.argv[2];
let passed = 0;
let failed = 0;
let skipped = 0;
for (const name of ['unit.json', 'integration.json']) {
  try {
    const report = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
    passed += report.numPassedTests ?? 0;
    failed += report.numFailedTests ?? 0;
    skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  } catch {
    failed += 1; // the stage produced no report: count it as a failure, never as nothing
  }
}
try {
  const stats = JSON.parse(fs.readFileSync(path.join(dir, 'e2e.json'), 'utf8')).stats;
  passed += stats.expected ?? 0;
  failed += (stats.unexpected ?? 0) + (stats.flaky ?? 0);
  skipped += stats.skipped ?? 0;
} catch {
  failed += 1;
}
console.log(`\nall stages: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
