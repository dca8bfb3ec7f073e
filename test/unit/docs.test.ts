/**
 * The documentation keeps to the code and stays readable from outside the team: the settings table in
 * docs/operating.md is what scripts/docs-settings.ts writes from config/index.ts, and no doc, comment or test names
 * an internal work item (a reader outside the team cannot look one up: say what a thing is and why instead;
 * "decisions §N" names a section of the published product decisions and is fine).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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

const ROOT = path.join(__dirname, '..', '..');
/** Not ours, built, or generated from something that is checked itself. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'data', 'coverage', '.git']);
const SKIPPED_FILES = new Set(['clients/typescript/src/schema.d.ts']);
const SCANNED = /\.(md|ts|sh|js|mjs|cjs)$/;

function sourceFiles(dir = ROOT): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : sourceFiles(full);
    const relative = path.relative(ROOT, full);
    return entry.isFile() && SCANNED.test(entry.name) && !SKIPPED_FILES.has(relative) ? [relative] : [];
  });
}

/**
 * A work item: the word issue with a number, or a number after a hash sign. Not a hash sign inside a word, an HTML
 * entity (an ampersand before it), a quoted colour, a link's anchor or a URL's fragment.
 */
const WORK_ITEM = [/\b[Ii]ssues? #?\d+/, /(?<![&\w'"`/#])(?<!\]\()#\d{1,3}\b/];

export function workItemMentions(files: string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    fs.readFileSync(path.join(ROOT, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const pattern of WORK_ITEM) {
          const match = pattern.exec(line);
          if (match) found.push(`${file}:${i + 1}: "${match[0]}" in: ${line.trim().slice(0, 120)}`);
        }
      });
  }
  return found;
}

describe('no internal work-item numbers', () => {
  test('no doc, comment, script or test names one (say what the thing is and why)', () => {
    const files = sourceFiles();
    expect(files.length).toBeGreaterThan(300);
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/api.md', 'config/index.ts', 'scripts/test.sh']));
    expect(workItemMentions(files)).toEqual([]);
  });

  test('the rule finds a work item and leaves entities, colours, anchors and the decisions alone', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-test-'));
    try {
      const sample = path.join(tmp, 'sample.md');
      const lines = [
        'As asked in iss' + 'ue 27, part 2.',
        'Fixed by ' + '#12 last week (see ' + '#3).',
        "A quote &#39; and a colour '#000', a [link](#12-steps) and decisions §13.",
        'An upstream report: https://github.com/o/r/issues/304.',
      ];
      fs.writeFileSync(sample, lines.join('\n'));
      const relative = path.relative(ROOT, sample);
      expect(workItemMentions([relative]).map((m) => m.split(':').slice(0, 2).join(':'))).toEqual([`${relative}:1`, `${relative}:2`]);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
