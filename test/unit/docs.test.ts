/**
 * The documentation keeps to the code and stays readable from outside the team: the settings table in
 * docs/operating.md is what scripts/docs-settings.ts writes from config/index.ts.
 */
import fs from 'node:fs';
import { OPERATING_DOC, readSettings, settingsTable, withTable } from '../../scripts/docs-settings';

describe('the settings table', () => {
  test('docs/operating.md holds the table written from config/index.ts (run npm run -s docs:settings after changing a setting)', () => {
    const doc = fs.readFileSync(OPERATING_DOC, 'utf8');
    expect(doc).toBe(withTable(doc, settingsTable()));
  });

  test('every variable config/index.ts reads is in the table, with a meaning', () => {
    const source = fs.readFileSync(require.resolve('../../config/index.ts'), 'utf8');
    const read = new Set([...source.matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]));
    const settings = readSettings();
    expect(new Set(settings.map((s) => s.name))).toEqual(read);
    for (const s of settings) expect(s.meaning.length).toBeGreaterThan(10);
    const table = settingsTable(settings);
    for (const name of read) expect(table).toContain(`\`${name}\``);
  });
});
