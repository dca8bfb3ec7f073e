/**
 * The order of the test files: the longest first, so that, should Jest run more than one file at once (maxWorkers),
 * its workers finish together instead of one running a long suite alone at the end. Jest knows durations only from an earlier run of the
 * same checkout (its cache); a fresh clone, as CI runs, has none and would go by file size, which puts the short
 * files of long campaigns (the visual suites) last. So the durations of a full run are committed in
 * test/durations.json (`npx tsx scripts/test-durations.ts <jest --json output>` writes them); a file not listed
 * there (a new suite) runs first, then the rest by measured time, longest first.
 */
/* global module, require, __dirname -- a CommonJS file: Jest loads it with require() */
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS, as Jest loads a test sequencer */
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;
const measured = require('../durations.json');

const root = path.resolve(__dirname, '..', '..');

class LongestFirst extends Sequencer {
  sort(tests) {
    const seconds = (test) => measured[path.relative(root, test.path)] ?? Number.POSITIVE_INFINITY;
    return [...tests].sort((a, b) => {
      const [sa, sb] = [seconds(a), seconds(b)];
      return sa === sb ? a.path.localeCompare(b.path) : sb - sa;
    });
  }
}

module.exports = LongestFirst;
