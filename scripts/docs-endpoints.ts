/**
 * Writes the endpoint table of docs/api.md from the OpenAPI document (openapi.json, itself built from the API's own
 * action schemas by `npm run openapi`), so the guide and the document say the same thing: each operation under
 * /api/v1 with its method and path, the scope it requires (`x-required-scope`) and its summary, in the document's
 * order. `test/unit/docs.test.ts` fails when the committed table differs from what this writes.
 *
 *   npm run -s docs:endpoints          rewrites the table between the markers in docs/api.md
 */
import fs from 'node:fs';
import path from 'node:path';

export const OPENAPI_FILE = path.join(__dirname, '..', 'openapi.json');
export const API_DOC = path.join(__dirname, '..', 'docs', 'api.md');
export const START_MARKER = '<!-- endpoints:start (written by npm run -s docs:endpoints from openapi.json; do not edit) -->';
export const END_MARKER = '<!-- endpoints:end -->';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

interface Operation {
  summary?: string;
  'x-required-scope'?: string;
}

export interface Endpoint {
  method: string;
  path: string;
  scope: string | null;
  summary: string;
}

/** The API's operations (paths under /api/v1), in the OpenAPI document's order. */
export function readEndpoints(file = OPENAPI_FILE): Endpoint[] {
  const document = JSON.parse(fs.readFileSync(file, 'utf8')) as { paths: Record<string, Partial<Record<string, Operation>>> };
  return Object.entries(document.paths)
    .filter(([route]) => route.startsWith('/api/v1/'))
    .flatMap(([route, operations]) =>
      METHODS.flatMap((method) => {
        const operation = operations[method];
        if (!operation) return [];
        return [
          { method: method.toUpperCase(), path: route, scope: operation['x-required-scope'] ?? null, summary: operation.summary ?? '' },
        ];
      }),
    );
}

export function endpointsTable(endpoints = readEndpoints()): string {
  const cell = (t: string) => t.replace(/\|/g, '\\|');
  return [
    '| method and path | scope | what it does |',
    '|---|---|---|',
    ...endpoints.map((e) => `| \`${e.method} ${e.path}\` | ${e.scope ? `\`${e.scope}\`` : 'any key'} | ${cell(e.summary)} |`),
  ].join('\n');
}

/** The document with its table replaced by `table`. */
export function withEndpointsTable(doc: string, table: string): string {
  const start = doc.indexOf(START_MARKER);
  const end = doc.indexOf(END_MARKER);
  if (start < 0 || end < start) throw new Error(`docs/api.md has no ${START_MARKER} … ${END_MARKER} markers`);
  return `${doc.slice(0, start + START_MARKER.length)}\n\n${table}\n\n${doc.slice(end)}`;
}

if (require.main === module) {
  const doc = fs.readFileSync(API_DOC, 'utf8');
  const next = withEndpointsTable(doc, endpointsTable());
  if (next !== doc) fs.writeFileSync(API_DOC, next);
  console.log(`${path.relative(process.cwd(), API_DOC)}: ${readEndpoints().length} endpoints${next === doc ? ', unchanged' : ', written'}`);
}
