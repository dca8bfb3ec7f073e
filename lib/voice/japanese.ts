/** Japanese text to a kana reading. espeak-ng reads kanji as the English words "Chinese letter", so
 * Japanese narration goes through kuroshiro (kuromoji dictionary) first. The analyzer is loaded
 * once, lazily, and shared: its first use costs about a second. */

interface Kuroshiro {
  init(analyzer: unknown): Promise<void>;
  convert(text: string, opts: { to: 'hiragana' }): Promise<string>;
}

const KANJI = /\p{Script=Han}/u;
let ready: Promise<Kuroshiro> | undefined;

function converter(): Promise<Kuroshiro> {
  ready ??= (async () => {
    // Loaded on the first Japanese text only; both packages are CommonJS without typings.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy load of an untyped CommonJS package
    const KuroshiroClass = (require('kuroshiro') as { default: new () => Kuroshiro }).default;
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy load of an untyped CommonJS package
    const Analyzer = require('kuroshiro-analyzer-kuromoji') as new () => unknown;
    const k = new KuroshiroClass();
    await k.init(new Analyzer());
    return k;
  })().catch((err) => {
    ready = undefined;
    throw err;
  });
  return ready;
}

/** Hiragana reading of `text`. Text without kanji is returned as is (no dictionary load). */
export async function toKana(text: string): Promise<string> {
  if (!KANJI.test(text)) return text;
  return (await converter()).convert(text, { to: 'hiragana' });
}
