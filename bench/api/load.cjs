/**
 * One autocannon run in a worker thread, so that the load generator has an event loop (and core) of
 * its own instead of competing with the server under test. workerData: autocannon options.
 */
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const autocannon = require('autocannon');

autocannon(workerData).then(
  (r) => parentPort.postMessage({
    ok: true,
    result: {
      duration: r.duration, errors: r.errors, timeouts: r.timeouts, non2xx: r.non2xx, resets: r.resets, mismatches: r.mismatches,
      '2xx': r['2xx'], statusCodeStats: r.statusCodeStats,
      latency: r.latency, requests: r.requests, throughput: r.throughput,
    },
  }),
  (err) => parentPort.postMessage({ ok: false, error: String((err && err.stack) || err) }),
);
