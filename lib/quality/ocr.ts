/**
 * Reading a video's frames as a customer's eye would, with Debian's tesseract: the words of a picture with their
 * boxes, so the video's own check (lib/quality/check.ts) and the visual tests can ask what a frame shows, in what
 * script, and whether a word touches a side of the page's area. One process per reading, on one thread
 * (OMP_THREAD_LIMIT=1: tesseract's threads only contend with the render on a small node).
 */
import { execFile, type ExecFileOptions } from 'node:child_process';
import { promisify } from 'node:util';
import { lowerIfBulk } from '../campaign/cpu-class';

const execFileAsync = promisify(execFile);

/** execFile as a promise, the program lowered right after spawn when the job is bulk (lib/campaign/cpu-class.ts). */
function runFile(file: string, args: string[], options: ExecFileOptions): Promise<{ stdout: string; stderr: string }> {
  const running = execFileAsync(file, args, { ...options, encoding: 'utf8' });
  lowerIfBulk(running.child.pid);
  return running;
}

export interface OcrWord {
  text: string;
  confidence: number;
  left: number;
  top: number;
  width: number;
  height: number;
}

/**
 * tesseract's language packs by our language codes (Debian's tesseract-ocr-eng, -jpn, -kor, -chi-sim, -ara, -rus,
 * -ukr). Languages without one are read with the English pack (Latin letters, accents mostly read).
 */
export const OCR_LANGUAGES: Record<string, string> = {
  en: 'eng',
  ja: 'jpn',
  ko: 'kor',
  zh: 'chi_sim',
  ar: 'ara',
  ru: 'rus',
  uk: 'ukr',
};

/** Below this, a word is more likely a smudge of the blurred backdrop or a stray glyph than text. */
export const OCR_MIN_CONFIDENCE = 60;
/** Pictures narrower than this are read at twice their size: tesseract misreads type under about 20 px (draft frames). */
export const OCR_UPSCALE_BELOW_WIDTH = 800;

let installed: Promise<Set<string>> | null = null;

/** The language packs this machine's tesseract has (asked once). */
export function installedOcrLanguages(): Promise<Set<string>> {
  installed ??= runFile('tesseract', ['--list-langs'], { timeout: 10_000 })
    .then(
      ({ stdout }) =>
        new Set(
          stdout
            .split('\n')
            .slice(1)
            .map((line) => line.trim())
            .filter(Boolean),
        ),
    )
    .catch(() => new Set<string>());
  return installed;
}

/** tesseract's `-l` for a page in `language`: its own pack (where installed) with English, else English alone. */
export async function ocrLanguageArg(language: string): Promise<string> {
  const packs = await installedOcrLanguages();
  const own = OCR_LANGUAGES[language];
  return own && own !== 'eng' && packs.has(own) ? `${own}+eng` : 'eng';
}

/** Several languages at once (a video's and its page's), each installed pack once, English last. */
export async function ocrLanguagesArg(languages: Array<string | null | undefined>): Promise<string> {
  const packs = await installedOcrLanguages();
  const own = [...new Set(languages.flatMap((l) => (l && OCR_LANGUAGES[l] && OCR_LANGUAGES[l] !== 'eng' ? [OCR_LANGUAGES[l]] : [])))];
  return [...own.filter((p) => packs.has(p)), 'eng'].join('+');
}

/** tesseract's TSV output as words (level 5 rows), their boxes divided by `scale` and moved down by `top`. */
export function parseTsv(tsv: string, scale = 1, offset: { left?: number; top?: number } = {}, minConfidence = 0): OcrWord[] {
  const words: OcrWord[] = [];
  for (const line of tsv.split('\n').slice(1)) {
    const cols = line.split('\t');
    if (cols.length < 12 || cols[0] !== '5') continue;
    const text = cols[11].trim();
    const confidence = Number(cols[10]);
    if (!text || confidence < minConfidence) continue;
    words.push({
      text,
      confidence,
      left: Number(cols[6]) / scale + (offset.left ?? 0),
      top: Number(cols[7]) / scale + (offset.top ?? 0),
      width: Number(cols[8]) / scale,
      height: Number(cols[9]) / scale,
    });
  }
  return words;
}

/** The words tesseract reads in a PNG file as it is, on one thread (sparse text: a frame is not a page of prose). */
export async function tesseractWords(png: string, languages: string, opts: { psm?: number; timeoutMs?: number } = {}): Promise<string> {
  const { stdout } = await runFile('tesseract', [png, 'stdout', '-l', languages, '--psm', String(opts.psm ?? 11), 'tsv'], {
    maxBuffer: 16 * 1024 * 1024,
    timeout: opts.timeoutMs ?? 60_000,
    env: { ...process.env, OMP_THREAD_LIMIT: '1' },
  });
  return stdout;
}

/**
 * The words tesseract reads on `image` (a PNG), with confidence ≥ `minConfidence`, in the image's pixels. With
 * `rows`, only that band of rows is read. It is read at each of `scales` and the words of every reading are kept:
 * tesseract misreads CJK type of 30–40 px that it reads well at twice the size, and misreads a 70 px headline that
 * it reads well as it is.
 */
export async function readWords(
  image: string,
  language: string,
  opts: { minConfidence?: number; rows?: { top: number; bottom: number }; scales?: number[] } = {},
): Promise<OcrWord[]> {
  const words: OcrWord[] = [];
  for (const scale of opts.scales ?? [1]) words.push(...(await readWordsAt(image, language, scale, opts)));
  return words;
}

async function readWordsAt(
  image: string,
  language: string,
  scale: number,
  opts: { minConfidence?: number; rows?: { top: number; bottom: number } },
): Promise<OcrWord[]> {
  const top = opts.rows ? Math.max(0, Math.floor(opts.rows.top)) : 0;
  let input = image;
  if (opts.rows || scale !== 1) {
    input = `${image.replace(/\.png$/, '')}-ocr-${scale}.png`;
    const crop = opts.rows ? `crop=iw:${Math.ceil(opts.rows.bottom) - top}:0:${top},` : '';
    await runFile('ffmpeg', ['-v', 'error', '-y', '-i', image, '-vf', `${crop}scale=iw*${scale}:ih*${scale}:flags=lanczos`, input], {
      timeout: 60_000,
    });
  }
  return parseTsv(await tesseractWords(input, await ocrLanguageArg(language)), scale, { top }, opts.minConfidence ?? 0);
}

/** Text folded for comparison: lower case, letters and digits only. */
export function fold(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

/** Words whose box touches the left or right edge of a picture `width` wide (within `tolerance` pixels). */
export function wordsAtSideEdges(words: OcrWord[], width: number, tolerance = 2): OcrWord[] {
  return words.filter((w) => w.left <= tolerance || w.left + w.width >= width - tolerance);
}
