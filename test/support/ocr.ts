/**
 * Reading video frames as a customer's eye would, with Debian's tesseract (eng, jpn, kor): the words on a
 * frame with their boxes, so tests can ask what language the page area is in, whether a heading is on screen,
 * and whether any word touches the frame's edge.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface OcrWord {
  text: string;
  confidence: number;
  left: number;
  top: number;
  width: number;
  height: number;
}

/** tesseract's language packs by our language codes. */
export const OCR_LANGUAGES: Record<string, string> = { en: 'eng', ja: 'jpn', ko: 'kor', ar: 'ara' };

/**
 * The words tesseract reads on `image`, with confidence ≥ `minConfidence`, in the image's pixels. With `rows`,
 * only that band of rows is read. It is read at each of `scales` and the words of every reading are kept:
 * tesseract misreads CJK type of 30–40 px that it reads well at twice the size, and misreads a 70 px headline
 * that it reads well as it is.
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
  const lang = language === 'en' ? 'eng' : `${OCR_LANGUAGES[language]}+eng`;
  const top = opts.rows ? Math.max(0, Math.floor(opts.rows.top)) : 0;
  let input = image;
  if (opts.rows || scale !== 1) {
    input = `${image.replace(/\.png$/, '')}-ocr-${scale}.png`;
    const crop = opts.rows ? `crop=iw:${Math.ceil(opts.rows.bottom) - top}:0:${top},` : '';
    await run('ffmpeg', ['-v', 'error', '-y', '-i', image, '-vf', `${crop}scale=iw*${scale}:ih*${scale}:flags=lanczos`, input]);
  }
  const { stdout } = await run('tesseract', [input, 'stdout', '-l', lang, '--psm', '11', 'tsv'], { maxBuffer: 16 * 1024 * 1024 });
  const words: OcrWord[] = [];
  for (const line of stdout.split('\n').slice(1)) {
    const cols = line.split('\t');
    if (cols.length < 12 || cols[0] !== '5') continue;
    const text = cols[11].trim();
    const word = {
      text,
      confidence: Number(cols[10]),
      left: Number(cols[6]) / scale,
      top: Number(cols[7]) / scale + top,
      width: Number(cols[8]) / scale,
      height: Number(cols[9]) / scale,
    };
    if (!text || word.confidence < (opts.minConfidence ?? 0)) continue;
    words.push(word);
  }
  return words;
}

const CJK = /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}\p{Script=Hangul}]/gu;
const JAPANESE = /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]/gu;
const KOREAN = /\p{Script=Hangul}/gu;
const LATIN = /\p{Script=Latin}/gu;
const ARABIC = /\p{Script=Arabic}/gu;

/** Letters of the language's own script and Latin letters among `words`. */
export function scriptCounts(words: OcrWord[], language: string): { own: number; latin: number } {
  const text = words.map((w) => w.text).join('');
  const own = language === 'ja' ? JAPANESE : language === 'ko' ? KOREAN : language === 'ar' ? ARABIC : language === 'en' ? LATIN : CJK;
  return { own: text.match(own)?.length ?? 0, latin: text.match(LATIN)?.length ?? 0 };
}

/** Text folded for comparison: lower case, letters and digits only. */
export function fold(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

/**
 * Whether `heading` is on screen: for spaced scripts, the share of its words (≥ 3 letters) that OCR read; for
 * CJK, the share of its character pairs found in what OCR read (OCR splits CJK text into arbitrary words).
 */
export function headingRecall(words: OcrWord[], heading: string, language: string): number {
  const read = fold(words.map((w) => w.text).join(language === 'en' ? ' ' : ''));
  if (language === 'en') {
    const wanted = heading
      .split(/\s+/)
      .map(fold)
      .filter((w) => w.length >= 3);
    return wanted.length ? wanted.filter((w) => read.includes(w)).length / wanted.length : 0;
  }
  const chars = [...fold(heading)];
  const pairs = chars.slice(1).map((c, i) => chars[i] + c);
  return pairs.length ? pairs.filter((p) => read.includes(p)).length / pairs.length : 0;
}

/** Words whose box touches the left or right edge of a frame `width` wide (within `tolerance` pixels). */
export function wordsAtSideEdges(words: OcrWord[], width: number, tolerance = 2): OcrWord[] {
  return words.filter((w) => w.left <= tolerance || w.left + w.width >= width - tolerance);
}
