/** Jest runs TypeScript through @swc/jest. Dynamic import() is kept as a real import so that the
 * ESM-only packages (editly, puppeteer-core) load; that needs NODE_OPTIONS=--experimental-vm-modules. */
/* global module -- a CommonJS file: Jest loads it with require() */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2023' },
        module: { type: 'commonjs', ignoreDynamic: true },
      },
    ],
  },
  testTimeout: 60000,
  // Longest first, by the durations committed in test/durations.json (a fresh clone has no Jest cache to go by).
  testSequencer: '<rootDir>/test/support/sequencer.js',
  // One file at a time: every campaign suite already keeps both cores busy (Chromium, the voices, editly, ffmpeg,
  // tesseract), so two files at once each ran 2.7-4x slower than alone. Measured on 2 cores (docs/architecture.md,
  // "Order and time"): the whole suite 2,747 s serial, beside another session's tests, against 4,284 s with two workers.
  maxWorkers: 1,
  // In band, the files share Jest's process: whatever one leaves open would keep the run from ending after its last
  // result (seen on CI: all files passed, then the run sat until its time limit). End it, and name what was open.
  forceExit: true,
  globalTeardown: '<rootDir>/test/support/open-after-suite.js',
};
