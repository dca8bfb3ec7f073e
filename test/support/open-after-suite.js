/**
 * Jest's global teardown: says what still keeps the process alive once every file has run. The files run in Jest's
 * own process (maxWorkers: 1 runs them in band), so a socket, timer or child left open by any file would hold the run
 * open after its last result (a CI run once passed 139 of 139 files, then waited for its 90-minute limit). forceExit in
 * jest.config.js ends the run regardless; this line names what to go and close.
 */
/* global module, process -- a CommonJS file: Jest loads it with require() */
module.exports = async function openAfterSuite() {
  // Standard streams are the process's own; anything else was opened by a test and not closed.
  const own = new Set(['TTYWrap', 'PipeWrap']);
  const counts = new Map();
  for (const resource of process.getActiveResourcesInfo()) {
    if (own.has(resource)) continue;
    counts.set(resource, (counts.get(resource) ?? 0) + 1);
  }
  if (counts.size === 0) return;
  const list = [...counts].map(([resource, n]) => `${resource} x${n}`).join(', ');
  process.stderr.write(`[jest] still open after the last file (forceExit ends them): ${list}\n`);
};
