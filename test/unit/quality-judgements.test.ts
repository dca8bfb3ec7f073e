/**
 * Two judgements of the video's own check (lib/quality/check.ts) on what real pages showed: a page's own text a few
 * pixels from its edge is not cut text, and two sections built on one template (a heading and a sentence each, alike
 * in pixels) are not the same screen when their few words differ — in Korean too, whose words are short.
 */
import { cutLine, cutOcrLine, cutWord, sameScreen, type SceneObservation, type SceneReading } from '../../lib/quality/check';
import type { OcrWord } from '../../lib/quality/ocr';
import type { PageView } from '../../lib/quality/page-view';

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

test('a border or rule that OCR reads as long-vowel marks at a side is not cut text', () => {
  expect(cutWord(reading([word('ーー', 0), word('Nested', 300), word('Routes', 500)]))).toBeNull();
  expect(cutWord(reading([word('ルーター', 0), word('Nested', 300)]))).toEqual({ side: 'left', text: 'ルーター' });
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

test('a scroll is judged where it rests, not in motion; a line taller than the crop and a lone display line are not cut', () => {
  const line = (y: number, text: string, height = 40, lines?: number) => ({ box: { x: 20, y, width: 600, height }, text, lines });
  const focus = Array.from({ length: 20 }, (_, i) => line(10 + i * 50, `line ${i}`));
  const view = (over: Partial<PageView>): PageView => ({
    sceneId: 's',
    kind: 'screen',
    seconds: 3,
    area: { x: 0, y: 0, width: 640, height: 500 },
    shown: { x: 0, y: 0, width: 640, height: 500 },
    focus,
    moving: false,
    rests: [],
    lineRows: 48,
    ...over,
  });
  // At rest: row 530 runs through the middle of the line at 510–550; row 500 lies in the gap above it.
  expect(cutLine(view({ shown: { x: 0, y: 0, width: 640, height: 530 } }))).toEqual({ side: 'bottom', text: 'line 10' });
  expect(cutLine(view({}))).toBeNull();
  // In motion, the lines passing the edges are not judged; the resting windows are.
  const passing = { x: 0, y: 123, width: 640, height: 500 };
  expect(
    cutLine(
      view({
        moving: true,
        shown: passing,
        rests: [
          { ...passing, y: 0 },
          { ...passing, y: 300 },
        ],
      }),
    ),
  ).toBeNull();
  expect(
    cutLine(
      view({
        moving: true,
        shown: passing,
        rests: [
          { ...passing, y: 0 },
          { ...passing, y: 330 },
        ],
      }),
    ),
  ).toEqual({
    side: 'top',
    text: 'line 6',
  });
  // A wordmark's line (one, as the capture counted it) taller than the crop, and display type over half of it, are exempt.
  expect(cutLine(view({ focus: [line(300, 'ACME', 700, 1)] }))).toBeNull();
  expect(cutLine(view({ focus: [line(300, 'ACME', 300, 1)] }))).toBeNull();
  // A paragraph of many lines across the edge is not display type: its line there is cut.
  const long = [line(300, 'many words in a long paragraph', 300, 6)];
  expect(cutLine(view({ focus: long, shown: { x: 0, y: 0, width: 640, height: 530 } }))?.side).toBe('bottom');
});
