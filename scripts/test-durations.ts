/**
 * Writes test/durations.json (each test file's wall time in a full run, seconds) from Jest's JSON report, for the
 * longest-first order of test/support/sequencer.js. Refresh it after a full run when suites were added or changed:
 *   bash scripts/test.sh --json --outputFile=/tmp/jest.json && npx tsx scripts/test-durations.ts /tmp/jest.json
 */
import fs from 'node:fs';
import path from 'node:path';

interface JestReport {
  testResults: Array<{ name: string; startTime: number; endTime: number }>;
}

const input = process.argv[2];
if (!input) {
  console.error('usage: npx tsx scripts/test-durations.ts <jest --json output>');
  process.exit(2);
}
const root = path.resolve(__dirname, '..');
const report = JSON.parse(fs.readFileSync(input, 'utf8')) as JestReport;
/**
 * A test file's key as test/support/sequencer.js looks it up: its path from the checkout's root. The report may come
 * from another checkout (a clean clone elsewhere): the path is taken from its `test/` folder, not from this root, or
 * every key would miss and the order fall back to the files' names.
 */
function testPath(name: string): string {
  const from = name.lastIndexOf(`${path.sep}test${path.sep}`);
  if (from < 0) throw new Error(`${name}: not under a test/ folder`);
  return name
    .slice(from + 1)
    .split(path.sep)
    .join('/');
}
const durations = Object.fromEntries(
  report.testResults
    .map((r) => [testPath(r.name), Math.round((r.endTime - r.startTime) / 100) / 10] as const)
    .sort(([a], [b]) => a.localeCompare(b)),
);
const out = path.join(root, 'test', 'durations.json');
fs.writeFileSync(out, `${JSON.stringify(durations, null, 2)}\n`);
const total = Object.values(durations).reduce((sum, s) => sum + s, 0);
console.log(`${out}: ${Object.keys(durations).length} files, ${total.toFixed(0)} s in all`);
