/**
 * The order of the test files (test/support/sequencer.js: longest first, by test/durations.json) only works when the
 * committed durations are keyed as the sequencer looks them up, by the file's path from the checkout's root. Keys
 * written from another checkout ('../../tmp/…/test/…') matched no file, so every suite counted as new and the whole
 * run went in name order, the long visual suites last and side by side at the end.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the sequencer is CommonJS, as Jest loads it
const LongestFirst = require('../support/sequencer.js') as new (...args: unknown[]) => {
  sort(tests: Array<{ path: string }>): Array<{ path: string }>;
};
const durations = JSON.parse(fs.readFileSync(path.join(ROOT, 'test', 'durations.json'), 'utf8')) as Record<string, number>;

test('every key of test/durations.json is a test file of this checkout, by its path from the root', () => {
  const missing = Object.keys(durations).filter((file) => !fs.existsSync(path.join(ROOT, file)) || !file.startsWith('test/'));
  expect(missing).toEqual([]);
});

test('the sequencer runs a measured long suite before a short one whose name comes first', () => {
  const [long] = Object.entries(durations).sort(([, a], [, b]) => b - a)[0];
  const short = Object.keys(durations).find((file) => file < long && durations[file] < durations[long]);
  expect(short).toBeDefined();
  const order = new LongestFirst({}).sort([short!, long].map((file) => ({ path: path.join(ROOT, file) })));
  expect(order.map((t) => path.relative(ROOT, t.path))).toEqual([long, short]);
});
