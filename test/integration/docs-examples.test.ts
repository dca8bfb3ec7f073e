/**
 * The documentation's examples run as written: every ```sh runnable block of README.md, then of docs/api.md, in one
 * bash session against a real product (the harness: PostgreSQL, Redis, Chromium, the voices, editly at draft
 * quality), with the admin tool on the harness's database and the fixture site as the page (`BASE`, `PAGE`). A block
 * that shows answers in `# {…}` comments must print them, in order, as its last lines ("…" in a comment stands for
 * any text), and every command must succeed (bash -euo pipefail).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startHarness, TEST_DATABASE_URL, type Harness } from '../support/harness';

const ROOT = path.join(__dirname, '..', '..');
const DOCS = ['README.md', 'docs/api.md'];

interface Example {
  where: string;
  code: string;
  /** The answers shown in `# {…}` comments, in order: the last lines the block prints. */
  answers: unknown[];
}

export function runnableExamples(file: string): Example[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(/^```sh runnable\n([\s\S]*?)^```$/gm)].map((m) => {
    const line = text.slice(0, m.index).split('\n').length;
    const answers = m[1]
      .split('\n')
      .filter((l) => /^# [[{]/.test(l))
      .map((l) => JSON.parse(l.slice(2)) as unknown);
    return { where: `${file}:${line}`, code: m[1], answers };
  });
}

/** Does `actual` say what the documentation shows? Strings with "…" match any text in its place. */
function matches(shown: unknown, actual: unknown): boolean {
  if (typeof shown === 'string' && shown.includes('…') && typeof actual === 'string') {
    const pattern = shown
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    return new RegExp(`^${pattern}$`, 's').test(actual);
  }
  if (Array.isArray(shown)) return Array.isArray(actual) && shown.length === actual.length && shown.every((s, i) => matches(s, actual[i]));
  if (shown && typeof shown === 'object') {
    if (!actual || typeof actual !== 'object' || Array.isArray(actual)) return false;
    const a = actual as Record<string, unknown>;
    const s = shown as Record<string, unknown>;
    return Object.keys(s).length === Object.keys(a).length && Object.keys(s).every((k) => k in a && matches(s[k], a[k]));
  }
  return shown === actual;
}

function runBash(
  script: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd: ROOT, env, timeout: timeoutMs });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ render: 'worker' });
});

afterAll(async () => {
  await h?.stop();
});

test('the matcher takes "…" for any text and nothing else', () => {
  expect(matches({ id: '…', status: 'collecting' }, { id: 'abc', status: 'collecting' })).toBe(true);
  expect(matches({ id: '…', status: 'collecting' }, { id: 'abc', status: 'failed' })).toBe(false);
  expect(matches({ status: 'review' }, { status: 'review', extra: 1 })).toBe(false);
  expect(matches([1, 2], [1, 2, 3])).toBe(false);
});

test('the README tour and the API guide run as written, and answer what they show', async () => {
  const examples = DOCS.flatMap(runnableExamples);
  expect(examples.filter((e) => e.where.startsWith('README.md')).length).toBeGreaterThanOrEqual(6);
  expect(examples.filter((e) => e.where.startsWith('docs/api.md')).length).toBeGreaterThanOrEqual(3);
  const script = examples.map((e, i) => `echo "@@begin ${i}"\n${e.code}\necho "@@end ${i}"`).join('\n');
  const env = {
    ...process.env,
    BASE: h.baseUrl,
    PAGE: h.pageUrl,
    // The admin tool works on the harness's own database schema.
    DATABASE_URL: TEST_DATABASE_URL,
    DATABASE_SCHEMA: h.config.databaseSchema,
    LOG_LEVEL: 'warn',
  };
  const run = await runBash(script, env, 200_000);
  const outputs = examples.map((_, i) => {
    const block = new RegExp(`@@begin ${i}\\n([\\s\\S]*?)@@end ${i}\\n`).exec(run.stdout);
    return block ? block[1] : undefined;
  });
  const failed = outputs.findIndex((o) => o === undefined);
  if (failed >= 0 || run.code !== 0)
    throw new Error(`${examples[failed >= 0 ? failed : 0].where}: the example failed (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  examples.forEach((example, i) => {
    const printed = outputs[i]!.trim().split('\n').slice(-example.answers.length);
    example.answers.forEach((shown, j) => {
      const line = printed[j] ?? '';
      let answered: unknown = line;
      try {
        answered = JSON.parse(line);
      } catch {
        /* not JSON: compared as the text it is, and fails */
      }
      if (!matches(shown, answered))
        throw new Error(`${example.where}: the documentation shows ${JSON.stringify(shown)}, the product answered ${line}`);
    });
  });
}, 240_000);
