/**
 * moleculer-runner with our SERVICES setting: `SERVICES=api,campaigns` names services, which the
 * runner would otherwise only expand to `<name>.service.js`. Names map to files here (.ts under tsx,
 * .js in dist/), then moleculer-runner takes over with the same command-line flags.
 */
import path from 'node:path';
import { loadConfig } from '../config';

// SERVICES is read where every setting is read (config/index.ts): undefined means all.
const names = loadConfig().services ?? [];
if (names.length) {
  const extension = path.extname(__filename);
  process.env.SERVICEDIR = path.resolve(__dirname, '..', 'services');
  process.env.SERVICES = names.map((name) => `${name}.service${extension}`).join(',');
} else {
  delete process.env.SERVICES;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
require(path.join(path.dirname(require.resolve('moleculer')), 'bin', 'moleculer-runner.js'));
