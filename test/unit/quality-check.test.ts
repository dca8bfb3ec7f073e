/**
 * The video's own check (lib/quality/check.ts) on frames drawn on purpose, one defect at a time, composed as the
 * renderer composes a 1080×1920 frame (test/support/quality-pages.ts): a dark page with a thin strip of picture, a
 * page whose text boxes are recorded but whose picture is flat, two near-identical screens, text running off the
 * right side (Latin and Japanese, with and without the capture's text boxes), an Arabic and a Cyrillic page, a
 * Japanese video with English scene text, a sentence said twice, "Powered by …", a narration cut mid-phrase — and
 * clean frames that must not be flagged. Real canvas, ffmpeg and tesseract.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LanguageCode } from '../../config/catalog';
import type { Storyboard, StoryboardScene } from '../../lib/campaign/storyboard';
import { checkFrames, checkVideo, type VideoCheck } from '../../lib/quality/check';
import type { QualityFlagCode } from '../../lib/quality/report';
import { storyboardOf } from '../support/storyboard';
import { composeFrames, drawPage, sceneOf, videoOfFrames, type PageSpec } from '../support/quality-pages';

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quality-check-'));
});
afterAll(() => {
  if (!process.env.QUALITY_KEEP_FRAMES) fs.rmSync(tmp, { recursive: true, force: true });
  else console.log(`frames kept in ${tmp}`);
});

const EN_A: PageSpec = {
  heading: 'Fast builds',
  lines: [
    'Compile your whole project in seconds,',
    'with caches shared by the team.',
    'Every branch gets its own preview.',
    'Reviews happen where the code is.',
  ],
};
const EN_B: PageSpec = {
  heading: 'Safe deploys',
  lines: [
    'Roll out to a tenth of your users first,',
    'watch the errors, then go wide.',
    'One click takes it all back.',
    'Audit logs keep every step.',
  ],
  accent: '#16a34a',
};
const EN_OVERFLOW: PageSpec = {
  heading: 'Pricing that scales',
  lines: ['Start free for small teams and open source projects today', 'Pay per seat once you grow past ten people in total.'],
};
const JA_A: PageSpec = {
  heading: '高速なビルド',
  lines: ['プロジェクト全体を数秒でビルドします。', 'キャッシュはチームで共有されます。', 'ブランチごとにプレビューがあります。'],
  font: 'Noto Sans CJK JP',
};
const JA_OVERFLOW: PageSpec = {
  heading: '料金プラン',
  lines: ['小規模なチームとオープンソースのプロジェクトは無料で始められます', '十人を超えたら席ごとのお支払いになります。'],
  font: 'Noto Sans CJK JP',
};
const AR_A: PageSpec = {
  heading: 'نشر آمن',
  lines: ['انشر التحديث لعُشر المستخدمين أولاً،', 'راقب الأخطاء ثم انشره للجميع.', 'نقرة واحدة تعيد كل شيء.'],
  font: 'Noto Sans Arabic',
  direction: 'rtl',
};
const RU_A: PageSpec = {
  heading: 'Быстрая сборка',
  lines: ['Соберите весь проект за секунды,', 'с кэшем, общим для всей команды.', 'У каждой ветки свой предпросмотр.'],
};

interface ScreenSpec {
  page: PageSpec;
  narration: string;
  headline: string;
  /** Reuse the screenshot of an earlier screen (its index among the screens). */
  sameAs?: number;
}

/** A video of a title, the screens and a closing card, its frames drawn, checked. */
async function check(
  name: string,
  screens: ScreenSpec[],
  opts: {
    language?: LanguageCode;
    pageLanguage?: string | null;
    extra?: Partial<Storyboard>;
    title?: string;
    closing?: string;
    video?: boolean;
  } = {},
): Promise<VideoCheck> {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir, { recursive: true });
  const language = opts.language ?? 'en';
  const pages: Record<string, string> = {};
  const keys: string[] = [];
  const scenes: StoryboardScene[] = [sceneOf(0, 'title', opts.title ?? 'Meet Acme.', 'Acme', null, 3, language)];
  for (const [i, screen] of screens.entries()) {
    const key = screen.sameAs !== undefined ? keys[screen.sameAs] : `page-${i}.png`;
    keys.push(key);
    const file = path.join(dir, key);
    const content = screen.sameAs !== undefined ? scenes[screen.sameAs + 1].screenshotContent! : drawPage(file, screen.page);
    pages[key] = file;
    scenes.push(sceneOf(i + 1, 'screen', screen.narration, screen.headline, { key, content }, 3, language));
  }
  scenes.push(sceneOf(screens.length + 1, 'closing', opts.closing ?? 'Try it today at acme.test.', 'Start today', null, 3, language));
  const storyboard = storyboardOf(scenes, { language, direction: language === 'ar' ? 'rtl' : 'ltr', ...opts.extra });
  const frames = await composeFrames(storyboard, pages, dir);
  if (opts.video) {
    const video = videoOfFrames(storyboard, frames, path.join(dir, 'video.mp4'));
    return checkVideo({ videoPath: video, storyboard, workDir: path.join(dir, 'work'), pageLanguage: opts.pageLanguage });
  }
  return checkFrames({ frames, storyboard, workDir: dir, pageLanguage: opts.pageLanguage });
}

const codes = (result: VideoCheck) => result.flags.map((f) => [f.scene_id, f.code] as [string, QualityFlagCode]);

const A = { page: EN_A, narration: 'Compile your whole project in seconds, with caches shared by the team.', headline: 'Fast builds' };
const B = { page: EN_B, narration: 'Roll out to a tenth of your users first, watch the errors, then go wide.', headline: 'Safe deploys' };

test('clean Latin screens and our cards are not flagged, and the capture’s text boxes spare the OCR', async () => {
  const result = await check('clean-en', [A, B]);
  expect(result.flags).toEqual([]);
  expect(result.scenes.map((s) => s.kind)).toEqual(['title', 'screen', 'screen', 'closing']);
  expect(result.scenes.filter((s) => s.ocrUsed)).toEqual([]);
  expect(result.scenes[1].pageWords).toEqual(expect.arrayContaining(['compile', 'caches', 'preview']));
  expect(result.scenes[1].stats.edgeDensity).toBeGreaterThan(0.01);
}, 60_000);

test('a dark page with a thin strip of picture is blank; so is a flat picture whose text boxes say there was text', async () => {
  const strip = {
    page: { lines: [], emptyStrip: true, focus: false },
    narration: 'Our gallery shows every template.',
    headline: 'Gallery',
  };
  const flat = {
    page: { ...EN_B, ink: '#ffffff', accent: '#ffffff' },
    narration: 'Roll out to a tenth of your users first.',
    headline: 'Safe deploys',
  };
  const result = await check('blank', [A, strip, flat]);
  expect(codes(result)).toEqual([
    ['scene_2', 'blank_scene'],
    ['scene_3', 'blank_scene'],
  ]);
  expect(result.flags[0].message).toBe('Scene 3 shows an almost empty screen (a picture that did not load?)');
  expect(result.scenes[2].ocrUsed && result.scenes[3].ocrUsed).toBe(true);
}, 60_000);

test('a wall of logos, or a menu of pale rows, with almost no words is a picture, not a blank screen', async () => {
  const wall = {
    page: { lines: [], logoWall: true },
    narration: 'Teams at forty companies build with it every day.',
    headline: 'Trusted by teams',
  };
  const list = {
    page: { lines: [], listRows: true },
    narration: 'Every component has its own page.',
    headline: 'Components',
  };
  const result = await check('logo-wall', [A, wall, list]);
  expect(codes(result).filter(([, code]) => code === 'blank_scene')).toEqual([]);
  for (const position of [2, 3]) {
    expect(result.scenes[position].stats.busyShare).toBeGreaterThan(0.5);
    expect(result.scenes[position].pageWords.length).toBeLessThan(3);
  }
}, 60_000);

test('the same screen twice is flagged on the later scene: by its picture, and by its words under another look', async () => {
  // The same screenshot (too few words for the words' rule), then the same words drawn on another background.
  const short = {
    page: { heading: 'Teams', lines: ['Invite people.', 'Share boards.'] },
    narration: 'Invite your whole team.',
    headline: 'Teams',
  };
  const pixels = await check('duplicate-pixels', [short, A, { ...short, narration: 'Share boards with everyone.', sameAs: 0 }]);
  expect(codes(pixels)).toEqual([['scene_3', 'duplicate_screen']]);
  expect(pixels.flags[0].message).toBe('Scene 4 shows the same screen as scene 2');
  const words = await check('duplicate-words', [
    A,
    B,
    { page: { ...EN_A, background: '#fde68a', accent: '#7c3aed' }, narration: 'Every branch gets its own preview.', headline: 'Previews' },
  ]);
  expect(codes(words)).toEqual([['scene_3', 'duplicate_screen']]);
  // Two sections of one template (an accent bar, a heading, lines of text) look alike at 32×32: their words tell them apart.
  const INSIGHTS = {
    heading: 'Insights',
    lines: [
      'Every metric, live, for the whole team.',
      'Alerts reach you where you work.',
      'Dashboards build themselves.',
      'Exports go out every morning.',
    ],
    accent: '#7c3aed',
  };
  const template = await check('same-template', [
    A,
    B,
    { page: INSIGHTS, narration: 'Every metric, live, for the whole team.', headline: 'Insights' },
  ]);
  expect(template.flags).toEqual([]);
}, 60_000);

test('text running off the right side is cut: Latin and Japanese, with the capture’s text boxes and without', async () => {
  const en = await check('cut-en', [A, { page: EN_OVERFLOW, narration: 'Start free for small teams.', headline: 'Pricing' }]);
  expect(codes(en)).toEqual([['scene_2', 'cut_text']]);
  expect(en.flags[0].message).toMatch(/^Scene 3 shows page text cut off at the right side of the picture \(“.+”\)$/);
  const bare = await check('cut-en-bare', [
    A,
    { page: { ...EN_OVERFLOW, focus: false }, narration: 'Start free for small teams.', headline: 'Pricing' },
  ]);
  expect(codes(bare)).toEqual([['scene_2', 'cut_text']]);
  const ja = await check(
    'cut-ja',
    [
      { page: JA_A, narration: 'プロジェクト全体を数秒でビルドします。', headline: '高速なビルド' },
      { page: JA_OVERFLOW, narration: '小規模なチームは無料で始められます。', headline: '料金プラン' },
    ],
    { language: 'ja', title: 'Acmeをご紹介します。', closing: '今すぐacme.testでお試しください。' },
  );
  expect(codes(ja)).toEqual([['scene_2', 'cut_text']]);
}, 120_000);

/** A section shot down to the middle of its 8th line (`mid`) or the gap under it: one paragraph's box, as a <p> is recorded. */
function paragraphPage(page: PageSpec, lines: string[], cut: 'mid' | 'gap'): PageSpec {
  // Its lines start 96.8 px below the content's top, every 51.2 px, 41.6 px tall; the crop ends 24 px (the page's pad) under the content.
  const bottom = 96.8 + 24 + (cut === 'mid' ? 7 * 51.2 + 20 : 7 * 51.2 + 46);
  return { ...page, lines, paragraph: true, contentHeight: bottom - 24 - 24 };
}
const EN_PLAIN: PageSpec = { heading: 'Plan and test', lines: [] };
const EN_LINES = [
  'Plans are written down before work starts,',
  'estimates come from the last sprints.',
  'Boards show who is on what today.',
  'Reviews happen where the work is.',
  'Tests run on every push you make,',
  'and failures point at the line.',
  'Releases are tagged for you too.',
  'Rollbacks take a single click.',
  'Logs are kept for ninety days.',
  'Support answers within the hour.',
];
const JA_LINES = [
  '作業の前に計画を書き留めます。',
  '見積もりは過去のスプリントから出します。',
  '誰が何をしているかが一目でわかります。',
  'レビューはコードのそばで行います。',
  'テストはプッシュのたびに走ります。',
  '失敗した行がすぐにわかります。',
  'リリースには自動でタグが付きます。',
  'ロールバックはワンクリックです。',
  'ログは九十日間保存されます。',
  'サポートは一時間以内に答えます。',
];

test('a line of the page cut by the picture’s bottom edge is cut text, Latin and Japanese; a crop in the gap between lines is not', async () => {
  const en = await check('cut-bottom-en', [
    A,
    { page: paragraphPage(EN_PLAIN, EN_LINES, 'mid'), narration: 'Tests run on every push you make.', headline: 'Tests' },
  ]);
  expect(codes(en)).toEqual([['scene_2', 'cut_text']]);
  // The words of the line at the edge, estimated from the paragraph's box.
  expect(en.flags[0].message).toMatch(/^Scene 3 shows page text cut off at the bottom edge of the picture \(“.*Rollbacks take.*”\)$/);
  expect(en.scenes[2].ocrUsed).toBe(false);
  const gap = await check('gap-bottom-en', [
    A,
    { page: paragraphPage(EN_PLAIN, EN_LINES, 'gap'), narration: 'Tests run on every push you make.', headline: 'Tests' },
  ]);
  expect(gap.flags).toEqual([]);
  const ja = await check(
    'cut-bottom-ja',
    [
      { page: JA_A, narration: 'プロジェクト全体を数秒でビルドします。', headline: '高速なビルド' },
      {
        page: paragraphPage({ ...JA_A, heading: 'テスト' }, JA_LINES, 'mid'),
        narration: 'テストはプッシュのたびに走ります。',
        headline: 'テスト',
      },
    ],
    { language: 'ja', title: 'Acmeをご紹介します。', closing: '今すぐacme.testでお試しください。' },
  );
  expect(codes(ja)).toEqual([['scene_2', 'cut_text']]);
  expect(ja.flags[0].message).toMatch(/bottom edge of the picture \(“.*ロールバック.*”\)$/);
}, 120_000);

test('Japanese text that fits, an Arabic page and a Cyrillic page in their own videos are not flagged', async () => {
  const ja = await check(
    'clean-ja',
    [
      { page: JA_A, narration: 'プロジェクト全体を数秒でビルドします。', headline: '高速なビルド' },
      {
        page: { ...JA_A, focus: false, heading: 'チーム', lines: ['チームでキャッシュを共有します。', '変更はすぐに確認できます。'] },
        narration: 'チームでキャッシュを共有します。',
        headline: 'チーム',
      },
    ],
    { language: 'ja', title: 'Acmeをご紹介します。', closing: '今すぐacme.testでお試しください。' },
  );
  expect(ja.flags).toEqual([]);
  // The second screen is the source page (English) under a translated narration: the page's own language is allowed.
  const ar = await check(
    'clean-ar',
    [
      { page: AR_A, narration: 'انشر التحديث لعُشر المستخدمين أولاً.', headline: 'نشر آمن' },
      { ...A, narration: 'ابنِ مشروعك كله في ثوانٍ مع ذاكرة مشتركة للفريق.', headline: 'بناء سريع' },
    ],
    {
      language: 'ar',
      pageLanguage: 'en',
      extra: { scriptSource: 'translated' },
      title: 'تعرّف على Acme.',
      closing: 'جرّبه اليوم على acme.test.',
    },
  );
  expect(ar.flags).toEqual([]);
  const ru = await check(
    'clean-ru',
    [
      { page: RU_A, narration: 'Соберите весь проект за секунды.', headline: 'Быстрая сборка' },
      { ...A, narration: 'Каждая ветка получает свой предпросмотр.', headline: 'Предпросмотр' },
    ],
    {
      language: 'ru',
      pageLanguage: 'en',
      extra: { scriptSource: 'translated' },
      title: 'Знакомьтесь: Acme.',
      closing: 'Попробуйте сегодня на acme.test.',
    },
  );
  expect(ru.flags).toEqual([]);
}, 120_000);

test('wrong language: a Cyrillic page in an Arabic video of an Arabic page, English scene text in a Japanese video', async () => {
  const ar = await check(
    'language-ar',
    [
      { page: AR_A, narration: 'انشر التحديث لعُشر المستخدمين أولاً.', headline: 'نشر آمن' },
      { page: RU_A, narration: 'راقب الأخطاء ثم انشره للجميع.', headline: 'نشر' },
    ],
    {
      language: 'ar',
      pageLanguage: 'ar',
      title: 'تعرّف على Acme.',
      closing: 'جرّبه اليوم على acme.test.',
    },
  );
  expect(codes(ar)).toEqual([['scene_2', 'wrong_language']]);
  expect(ar.flags[0].message).toBe('Scene 3 shows page text that is not in Arabic (it reads as Russian)');
  const ja = await check(
    'language-ja',
    [
      { page: JA_A, narration: 'プロジェクト全体を数秒でビルドします。', headline: '高速なビルド' },
      { page: EN_B, narration: 'Roll out to a tenth of your users first, then go wide.', headline: 'Safe deploys for every team' },
    ],
    { language: 'ja', pageLanguage: 'ja', title: 'Acmeをご紹介します。', closing: '今すぐacme.testでお試しください。' },
  );
  expect(ja.flags.map((f) => f.message)).toEqual([
    "Scene 3's narration and headline “Safe deploys for every team” are not in Japanese (it reads as English)",
  ]);
  // A source-text video says the page's words on purpose: its narration is not flagged.
  const source = await check('language-source', [A, B], { language: 'ja', pageLanguage: 'en', extra: { scriptSource: 'source_text' } });
  expect(source.flags).toEqual([]);
}, 120_000);

test('a sentence said twice, “Powered by …” and a narration cut mid-phrase are flagged on their scenes', async () => {
  const result = await check('words', [
    A,
    { ...B, narration: 'Roll out to a tenth of your users first. Compile your whole project in seconds, with caches shared by the team.' },
    { page: EN_OVERFLOW, narration: 'Powered by Shopify.', headline: 'Pricing' },
    {
      page: { ...EN_B, accent: '#dc2626', heading: 'Audit', lines: ['Audit logs keep every step,', 'for every person on the team.'] },
      narration: 'Audit logs keep every step for the',
      headline: 'Audit',
    },
  ]);
  const words = codes(result).filter(([, code]) => code !== 'cut_text');
  expect(words).toEqual([
    ['scene_2', 'repeated_narration'],
    ['scene_3', 'boilerplate'],
    ['scene_4', 'cut_narration'],
  ]);
  expect(result.flags.find((f) => f.code === 'repeated_narration')!.message).toMatch(
    /^Scene 3 says “Compile your whole project in seconds, .+” again \(scene 2 said it\)$/,
  );
}, 60_000);

test('through a video file: each scene’s midpoint frame is taken and judged', async () => {
  const strip = {
    page: { lines: [], emptyStrip: true, focus: false },
    narration: 'Our gallery shows every template.',
    headline: 'Gallery',
  };
  const result = await check('video', [A, B, strip, { ...B, narration: 'One click takes it all back.', sameAs: 1 }], { video: true });
  expect(codes(result)).toEqual([
    ['scene_3', 'blank_scene'],
    ['scene_4', 'duplicate_screen'],
  ]);
}, 120_000);
