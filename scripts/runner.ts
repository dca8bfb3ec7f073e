/**
 * moleculer-runner with our SERVICES setting: `SERVICES=api,campaigns` names services, which the
 * runner would otherwise only expand to `<name>.service.js`. Names map to files here (.ts under tsx,
 * .js in dist/), then moleculer-runner takes over with the same command-line flags.
 */
import path from 'node:path';

const names = (process.env.SERVICES ?? '').split(',').map((s) => s.trim()).filter(Boolean);
if (names.length && process.env.SERVICES !== 'all') {
  const extension = path.extname(__filename);
  process.env.SERVICEDIR = path.resolve(__dirname, '..', 'services');
  process.env.SERVICES = names.map((name) => `${name}.service${extension}`).join(',');
} else {
  delete process.env.SERVICES;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
require(path.join(path.dirname(require.resolve('moleculer')), 'bin', 'moleculer-runner.js'));
