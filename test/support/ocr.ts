/**
 * What the visual tests ask of the words tesseract reads on a frame (lib/quality/ocr.ts reads them): what language
 * the page area is in and whether a heading is on screen.
 */
import { fold, type OcrWord } from '../../lib/quality/ocr';

export { fold, readWords, wordsAtSideEdges, OCR_LANGUAGES, type OcrWord } from '../../lib/quality/ocr';

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
