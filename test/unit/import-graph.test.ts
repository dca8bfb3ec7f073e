/**
 * The shape of the code (docs/architecture.md): imports point down, services → mixins → lib → config, and no module
 * imports one that imports it back, directly or through others (a count in Nov 2026 found 16 such circles, each a factory beside
 * the interface its implementations import). Read by madge from the TypeScript sources, type-only imports included.
 */
import path from 'node:path';
import madge from 'madge';

const ROOT = path.resolve(__dirname, '../..');
let graph: Record<string, string[]>;
let circles: string[][];

beforeAll(async () => {
  const result = await madge(['lib', 'services', 'mixins', 'config', 'types', 'broker-options.ts', 'moleculer.config.ts'], {
    baseDir: ROOT,
    fileExtensions: ['ts'],
    tsConfig: path.join(ROOT, 'tsconfig.json'),
  });
  graph = result.obj();
  circles = result.circular();
}, 120_000);

test('the graph is read: every layer is there, and a known import is seen', () => {
  const files = Object.keys(graph);
  for (const layer of ['lib/', 'services/', 'mixins/', 'config/']) expect(files.some((f) => f.startsWith(layer))).toBe(true);
  expect(graph['services/campaigns.service.ts']).toContain('lib/campaign/states.ts');
});

test('no import circles', () => {
  expect(circles).toEqual([]);
});

test('imports point down: config imports only config; lib never mixins or services; mixins never services', () => {
  const upward: string[] = [];
  for (const [file, imports] of Object.entries(graph)) {
    const above = file.startsWith('config/')
      ? imports.filter((i) => !i.startsWith('config/'))
      : file.startsWith('lib/')
        ? imports.filter((i) => i.startsWith('services/') || i.startsWith('mixins/'))
        : file.startsWith('mixins/')
          ? imports.filter((i) => i.startsWith('services/'))
          : [];
    for (const target of above) upward.push(`${file} → ${target}`);
  }
  expect(upward).toEqual([]);
});

test('lib/ keeps a top level of a few files; the rest sits in folders by concern', () => {
  const top = Object.keys(graph).filter((f) => /^lib\/[^/]+\.ts$/.test(f));
  expect(top.sort()).toEqual(['lib/deadline.ts', 'lib/errors.ts', 'lib/ids.ts', 'lib/text.ts']);
});
