/**
 * The documentation keeps to the code and stays readable from outside the team: the settings table in
 * docs/operating.md is what scripts/docs-settings.ts writes from config/index.ts, and no doc, comment or test names
 * an internal work item (a reader outside the team cannot look one up: say what a thing is and why instead;
 * "decisions §N" names a section of the published product decisions and is fine), and every relative link and
 * #anchor in README.md and docs/*.md resolves.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { API_DOC, endpointsTable, readEndpoints, withEndpointsTable } from '../../scripts/docs-endpoints';
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

describe('the endpoint table', () => {
  test('docs/api.md holds the table written from the OpenAPI document (run npm run -s docs:endpoints after changing an operation)', () => {
    const doc = fs.readFileSync(API_DOC, 'utf8');
    expect(doc).toBe(withEndpointsTable(doc, endpointsTable()));
  });

  test('every operation under /api/v1 is a row with its scope and summary', () => {
    const endpoints = readEndpoints();
    expect(endpoints.map((e) => `${e.method} ${e.path}`)).toEqual(
      expect.arrayContaining([
        'POST /api/v1/campaigns',
        'GET /api/v1/campaigns/{id}',
        'PUT /api/v1/campaigns/{id}/videos/{video_id}/document',
      ]),
    );
    const table = endpointsTable(endpoints);
    for (const e of endpoints) {
      expect(e.summary.length).toBeGreaterThan(5);
      expect(table).toContain(
        `| \`${e.method} ${e.path}\` | ${e.scope ? `\`${e.scope}\`` : 'any key'} | ${e.summary.replace(/\|/g, '\\|')} |`,
      );
    }
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

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2, … */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutCode(markdown, false)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count ? `${base}-${count}` : base);
  }
  return anchors;
}

/** The lines outside fenced code blocks; inline code blanked unless kept (a link shown as code is not a link). */
function withoutCode(markdown: string, blankInline = true): string[] {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : blankInline ? line.replace(/`[^`]*`/g, '``') : line;
  });
}

/** Every relative link and image of a Markdown file that does not resolve: a missing file, or a missing #anchor in one of ours. */
export function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  withoutCode(text).forEach((line, i) => {
    for (const [, target] of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      const [linkPath, anchor] = target.split('#', 2);
      const resolved = linkPath ? path.join(path.dirname(path.join(ROOT, file)), decodeURI(linkPath)) : path.join(ROOT, file);
      if (!fs.existsSync(resolved)) broken.push(`${file}:${i + 1}: ${target} (no such file)`);
      else if (anchor && resolved.endsWith('.md') && !anchorsOf(fs.readFileSync(resolved, 'utf8')).has(anchor))
        broken.push(`${file}:${i + 1}: ${target} (no heading #${anchor} in ${path.relative(ROOT, resolved)})`);
    }
  });
  return broken;
}

describe('links', () => {
  const docs = [
    'README.md',
    ...fs
      .readdirSync(path.join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];

  test('every relative link and #anchor in README.md and docs/*.md resolves', () => {
    expect(docs).toEqual(expect.arrayContaining(['docs/api.md', 'docs/operating.md', 'docs/architecture.md']));
    expect(docs.flatMap(brokenLinks)).toEqual([]);
  });

  test("anchors are GitHub's: punctuation dropped, repeats numbered, code blocks ignored", () => {
    expect([...anchorsOf("# The video's own check\n## Settings\n```\n# not a heading\n```\n## Settings\n### `GET /x` (§13)")]).toEqual([
      'the-videos-own-check',
      'settings',
      'settings-1',
      'get-x-13',
    ]);
  });
});

/** What the TypeScript examples take as given: the reader's base URL, key and secret, a request in a handler. */
const EXAMPLE_PRELUDE = `
declare const BASE: string;
declare const KEY: string;
declare const WEBHOOK_SECRET: string;
declare const req: import('node:http').IncomingMessage;
declare const rawBody: Buffer;
declare const id: string;
declare const campaignId: string;
declare const videoId: string;
declare const client: ReturnType<typeof import('@campaign-video/client').createCampaignClient>;
`;

/** Each ```ts block of a Markdown file as a module: its imports on top, the rest in an async function. */
export function typescriptExamples(file: string): Array<{ where: string; source: string }> {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(/^(\s*)```ts\n([\s\S]*?)^\1```$/gm)].map((m) => {
    const lines = m[2].split('\n').map((l) => l.slice(m[1].length));
    const imports = lines.filter((l) => l.startsWith('import '));
    const body = lines.filter((l) => !l.startsWith('import '));
    return {
      where: `${file}:${text.slice(0, m.index).split('\n').length}`,
      source: `${imports.join('\n')}\n${EXAMPLE_PRELUDE}\nexport async function example(): Promise<void> {\n${body.join('\n')}\n}\n`,
    };
  });
}

describe('examples', () => {
  test('the TypeScript examples of README.md and docs/api.md type-check against the typed client', () => {
    const examples = ['README.md', 'docs/api.md'].flatMap(typescriptExamples);
    expect(examples.length).toBeGreaterThanOrEqual(5);
    const files = new Map(examples.map((e, i) => [path.join(ROOT, `docs-example-${i}.ts`), e]));
    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2023,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      esModuleInterop: true,
      skipLibCheck: true,
      noEmit: true,
      types: ['node'],
      paths: { '@campaign-video/client': [path.join(ROOT, 'clients/typescript/src/index.ts')] },
    };
    const host = ts.createCompilerHost(options);
    const real = ts.createCompilerHost(options);
    host.fileExists = (name) => files.has(name) || real.fileExists(name);
    host.readFile = (name) => files.get(name)?.source ?? real.readFile(name);
    host.getSourceFile = (name, language, ...rest) =>
      files.has(name) ? ts.createSourceFile(name, files.get(name)!.source, language) : real.getSourceFile(name, language, ...rest);
    const program = ts.createProgram([...files.keys()], options, host);
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file && files.has(d.file.fileName))
      .map((d) => {
        const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
        return `${files.get(d.file!.fileName)!.where} (line ${line + 1} of the example as compiled): ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
      });
    expect(problems).toEqual([]);
  }, 60_000);
});
