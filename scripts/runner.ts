/**
 * moleculer-runner with our SERVICES setting: `SERVICES=api,campaigns` names services, which the
 * runner would otherwise only expand to `<name>.service.js`. Names map to files here (.ts under tsx,
 * .js in dist/), then moleculer-runner takes over with the same command-line flags.
 *
 * The runner's own reading of the environment is switched off: its overwriteFromEnv() replaces every broker
 * option that has a variable of the same name, so `TRANSPORTER=redis://…` — how every node is started — would
 * swap the transporter config/ builds from it (RedisSingleConnection, which closes the connections it replaces)
 * for the stock one that leaks a connection per Redis restart. Settings are read in config/index.ts alone;
 * test/integration/runner.test.ts starts nodes this way and counts their Redis connections.
 */
import path from 'node:path';
import { Runner } from 'moleculer';
import { loadConfig } from '../config';

(Runner.prototype as unknown as { overwriteFromEnv<T>(options: T): T }).overwriteFromEnv = (options) => options;

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
