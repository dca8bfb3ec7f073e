/**
 * Two judgements of the video's own check (lib/quality/check.ts) on what real pages showed: a page's own text a few
 * pixels from its edge is not cut text, and two sections built on one template (a heading and a sentence each, alike
 * in pixels) are not the same screen when their few words differ — in Korean too, whose words are short.
 */
import { cutWord, sameScreen, type SceneObservation, type SceneReading } from '../../lib/quality/check';
import type { OcrWord } from '../../lib/quality/ocr';

const word = (text: string, left: number): OcrWord => ({ text, left, top: 100, width: 180, height: 40, confidence: 92 });

function reading(words: OcrWord[], recordedWords: string[] = []): SceneReading {
  return {
    view: { focus: [] } as unknown as SceneReading['view'],
    observation: {} as SceneObservation,
    ocrWords: words,
    areaWidth: 900,
    recordedWords,
    wordsFromOcr: true,
    ocrReadsScripts: true,
    boxCrossesSide: false,
    flat: false,
  };
}

test("without the capture's words, a heading at the page's own margin is not cut; one the side cuts through is", () => {
  expect(cutWord(reading([word('Reconcile', 5), word('minutes', 400)]))).toBeNull();
  expect(cutWord(reading([word('Reconcile', 300), word('installatio', 900 - 180)]))).toEqual({ side: 'right', text: 'installatio' });
});

test('two template sections with a heading and a sentence each, alike in pixels, are different screens by their words', () => {
  const fingerprint = Buffer.alloc(32 * 32, 200).toString('base64');
  const screen = (pageWords: string[]): SceneObservation => ({
    scene_id: 's',
    kind: 'screen',
    stats: { mean: 240, stdev: 20, edgeDensity: 0.02 },
    pageWords,
    ocrUsed: false,
    fingerprint,
  });
  const korean = [screen(['몇', '분', '만에', '대사', '완료']), screen(['월말', '마감을', '제때', '끝내세요'])];
  expect(sameScreen(korean[0], korean[1])).toBe(false);
  const english = [screen(['reconcile', 'minutes', 'bank', 'feeds']), screen(['close', 'month', 'time', 'every'])];
  expect(sameScreen(english[0], english[1])).toBe(false);
  // The same few words and the same picture: the same screen.
  expect(sameScreen(english[0], screen(['reconcile', 'minutes', 'bank', 'feeds']))).toBe(true);
});
