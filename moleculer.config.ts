/**
 * Broker options for moleculer-runner (npm start) and the REPL. Settings come from config/index.ts.
 * Embedded (no TRANSPORTER): every service in one process. Cluster: TRANSPORTER=redis://… and SERVICES=…
 */
import { loadConfig } from './config';
import { brokerOptions } from './broker-options';

const config = brokerOptions(loadConfig());
export = config;
