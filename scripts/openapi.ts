/**
 * Writes the OpenAPI document the gateway serves (services/gateway/openapi.ts) to openapi.json, the committed copy
 * that the typed client (clients/typescript) is generated from. `npm run openapi` after changing a public action;
 * test/integration/client.test.ts fails while the two differ.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config';
import { buildOpenApiDocument } from '../services/gateway/openapi';

const OPENAPI_FILE = path.join(__dirname, '..', 'openapi.json');

// The document depends on no deployment setting but the body limit, whose default it states.
const document = buildOpenApiDocument(loadConfig({}));
fs.writeFileSync(OPENAPI_FILE, `${JSON.stringify(document, null, 2)}\n`);
console.log(`wrote ${path.relative(process.cwd(), OPENAPI_FILE)}`);
