/**
 * Two judgements of the video's own check (lib/quality/check.ts) on what real pages showed: a page's own text a few
 * pixels from its edge is not cut text, and two sections built on one template (a heading and a sentence each, alike
 * in pixels) are not the same screen when their few words differ — in Korean too, whose words are short.
 */
import { cutOcrLine, cutWord, sameScreen, type SceneObservation, type SceneReading } from '../../lib/quality/check';
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
    lineCut: null,
    areaHeight: 600,
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

test("without the capture's boxes, a line OCR reads half-height at the bottom edge is cut; a lone wordmark there is not", () => {
  const at = (text: string, left: number, top: number, height = 40): OcrWord => ({ text, left, top, width: 150, height, confidence: 90 });
  const page = [at('Compile', 20, 100), at('your', 200, 100), at('project', 380, 100), at('in', 20, 160), at('seconds', 200, 160)];
  const cut = [at('Every', 20, 580, 20), at('branch', 200, 580, 20), at('gets', 380, 580, 20)];
  expect(cutOcrLine(reading([...page, ...cut]))).toEqual({ side: 'bottom', text: 'Every branch gets' });
  expect(cutOcrLine(reading([...page, at('Every', 20, 0, 22), at('branch', 200, 0, 22)]))).toEqual({ side: 'top', text: 'Every branch' });
  // Whole lines at the edge, one word, or a sliver of a line: not cut.
  expect(cutOcrLine(reading([...page, at('Every', 20, 560, 40), at('branch', 200, 560, 40)]))).toBeNull();
  expect(cutOcrLine(reading([...page, at('ENT', 20, 570, 30)]))).toBeNull();
  expect(cutOcrLine(reading([...page, at('Ev', 20, 596, 4), at('br', 200, 596, 4)]))).toBeNull();
  // Too few other words to know the page's line height.
  expect(cutOcrLine(reading([page[0], ...cut]))).toBeNull();
});
