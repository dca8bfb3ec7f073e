/**
 * A self-contained storyboard for the render benchmarks, made offline with ffmpeg and espeak-ng only:
 * 3 screenshots (1440×900 test patterns), per-scene narration, the joined 48 kHz mono voice track, WebVTT
 * captions, and a 5-scene Storyboard (title, 3 screens, closing) whose keys are paths relative to `dir`.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { buildCues, toWebVtt } from '../../lib/voice/captions';
import { fontFor, type Storyboard, type StoryboardScene } from '../../lib/campaign/storyboard';
import { concatAudio, measureDuration } from '../../lib/voice/audio';
import { run } from '../../lib/voice/exec';
import { filterValue, resolveFont, type StoryboardFiles } from './ffmpeg-baseline';

export type BenchLanguage = 'en' | 'ja';

export interface BenchFixture {
  storyboard: Storyboard;
  files: StoryboardFiles;
}

interface SceneScript {
  kind: StoryboardScene['kind'];
  onScreenText: string;
  /** Narration and captions. */
  text: string;
  /** What espeak-ng reads: espeak-ng's Japanese voice reads kana, not kanji (the product converts with kuroshiro). */
  spoken?: string;
}

interface LanguageScript {
  brandName: string;
  ctaLabel: string;
  scenes: SceneScript[];
}

const SCRIPTS: Record<BenchLanguage, LanguageScript> = {
  en: {
    brandName: 'Acme Analytics',
    ctaLabel: 'Start your free trial',
    scenes: [
      {
        kind: 'title',
        onScreenText: 'Live dashboards in minutes',
        text: 'Meet Acme Analytics: live dashboards from your product data in minutes.',
      },
      {
        kind: 'screen',
        onScreenText: 'Connect your data',
        text: 'Connect product, billing and CRM data with a few clicks. No engineers needed.',
      },
      {
        kind: 'screen',
        onScreenText: 'Share insights',
        text: 'Share insights where your team already works, in chat, email or the browser.',
      },
      {
        kind: 'screen',
        onScreenText: 'Secure by default',
        text: 'Single sign-on, audit logs and encryption keep your data safe by default.',
      },
      { kind: 'closing', onScreenText: 'Start free', text: 'Start your free trial today at acme dot example.' },
    ],
  },
  ja: {
    brandName: 'アクメ・アナリティクス',
    ctaLabel: '無料で始める',
    scenes: [
      {
        kind: 'title',
        onScreenText: '数分でライブダッシュボード',
        text: 'アクメ・アナリティクスなら、製品データから数分でライブのダッシュボードを作れます。',
        spoken: 'あくめ あなりてぃくすなら、せいひんでーたから すうふんで らいぶの だっしゅぼーどを つくれます。',
      },
      {
        kind: 'screen',
        onScreenText: 'データをつなぐ',
        text: '製品、請求、顧客管理のデータを数クリックでつなげます。エンジニアは不要です。',
        spoken: 'せいひん、せいきゅう、こきゃくかんりの でーたを すうくりっくで つなげます。えんじにあは ふようです。',
      },
      {
        kind: 'screen',
        onScreenText: 'インサイトを共有',
        text: 'チームが普段使うチャットやメールで、そのまま分析を共有できます。',
        spoken: 'ちーむが ふだん つかう ちゃっとや めーるで、そのまま ぶんせきを きょうゆうできます。',
      },
      {
        kind: 'screen',
        onScreenText: '標準で安全',
        text: 'シングルサインオン、監査ログ、暗号化で、データを標準で守ります。',
        spoken: 'しんぐるさいんおん、かんさろぐ、あんごうかで、でーたを ひょうじゅんで まもります。',
      },
      {
        kind: 'closing',
        onScreenText: '無料で始める',
        text: '今すぐ無料トライアルを始めましょう。',
        spoken: 'いますぐ むりょう とらいあるを はじめましょう。',
      },
    ],
  },
};

const BRAND = {
  domain: 'acme.example',
  primary: '#4f46e5',
  background: '#ffffff',
  text: '#111827',
  palette: ['#4f46e5', '#22d3ee', '#f59e0b'],
};
const SCREENSHOT_SIZE = '1440x900';
const SCREENSHOT_CONTENT = { width: 1440, height: 900, pixelRatio: 1, content: { x: 120, y: 90, width: 1200, height: 640 } };
/**
 * The third screen is a phone capture of a tall section: taller than the page's zone in both frames, so
 * it scrolls (lib/render/camera.ts); at 1280×720 the first screen's 640 px section scrolls too.
 */
const TALL_SIZE = '780x1688';
const TALL_CONTENT = { width: 780, height: 1688, pixelRatio: 2, content: { x: 40, y: 120, width: 700, height: 1520 } };
/** Where each screen's narrated paragraph is: marked on it (the focus's text is the scene's narration). */
const FOCUS_BOXES = [
  { x: 160, y: 520, width: 1100, height: 120 },
  { x: 160, y: 300, width: 1100, height: 160 },
  { x: 60, y: 1100, width: 660, height: 200 },
];
/** Silence after each scene's speech, as the voiceover stage adds. */
const PAUSE_SECONDS = 0.4;
const FFMPEG = ['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'error', '-y'];
const TIMEOUT_MS = 60_000;

/** Builds the fixture's files under `dir` (created if missing) and returns the storyboard that names them. */
export async function makeBenchStoryboard(
  dir: string,
  opts: { language: BenchLanguage; width: number; height: number },
): Promise<BenchFixture> {
  const script = SCRIPTS[opts.language];
  const files: StoryboardFiles = { resolve: (key) => path.join(dir, key) };
  await fs.mkdir(path.join(dir, 'screens'), { recursive: true });
  await fs.mkdir(path.join(dir, 'audio'), { recursive: true });

  let screenNumber = 0;
  let startSeconds = 0;
  const scenes: StoryboardScene[] = [];
  for (const [index, scene] of script.scenes.entries()) {
    const audioKey = `audio/scene-${index}.wav`;
    await speak(scene.spoken ?? scene.text, opts.language, files.resolve(audioKey));
    const durationSeconds = await measureDuration(files.resolve(audioKey));
    let screenshotKey: string | null = null;
    if (scene.kind === 'screen') {
      screenNumber += 1;
      screenshotKey = `screens/screen-${screenNumber}.png`;
      await makeScreenshot(screenNumber, files.resolve(screenshotKey));
    }
    scenes.push({
      index,
      kind: scene.kind,
      screenshotKey,
      // As the capture records it for a page whose content sits in a 1200 px column: the renderer crops around it.
      screenshotContent: screenshotKey
        ? {
            ...(screenNumber === 3 ? TALL_CONTENT : SCREENSHOT_CONTENT),
            focus: [
              { box: { ...FOCUS_BOXES[0], y: 100, height: 60 }, text: scene.onScreenText },
              { box: FOCUS_BOXES[(screenNumber - 1) % FOCUS_BOXES.length], text: scene.text },
            ],
          }
        : null,
      onScreenText: scene.onScreenText,
      narration: [{ text: scene.text, language: opts.language }],
      audioKey,
      startSeconds,
      durationSeconds,
    });
    startSeconds += durationSeconds;
  }

  const narrationKey = 'narration.wav';
  await concatAudio(
    scenes.map((s) => files.resolve(s.audioKey)),
    files.resolve(narrationKey),
  );
  const totalSeconds = startSeconds;
  const joinedSeconds = await measureDuration(files.resolve(narrationKey));
  if (Math.abs(joinedSeconds - totalSeconds) > 0.01)
    throw new Error(`joined narration is ${joinedSeconds} s, scenes add up to ${totalSeconds} s`);

  const captionsKey = 'captions.vtt';
  const cues = buildCues(
    scenes.map((s) => ({ text: s.narration[0].text, startSeconds: s.startSeconds, durationSeconds: s.durationSeconds })),
    opts.language,
  );
  await fs.writeFile(files.resolve(captionsKey), toWebVtt(cues));

  const storyboard: Storyboard = {
    version: 1,
    campaignId: 'bench-render',
    videoId: `bench-${opts.language}-${opts.width}x${opts.height}`,
    language: opts.language,
    platform: opts.height > opts.width ? 'tiktok' : 'youtube',
    frame: { width: opts.width, height: opts.height },
    direction: 'ltr',
    font: fontFor(opts.language),
    brand: { name: script.brandName, ...BRAND, logoUrl: null },
    scriptSource: 'localized_page',
    scenes,
    narrationKey,
    captionsKey,
    totalSeconds,
    closing: { ctaLabel: script.ctaLabel, domain: BRAND.domain },
  };
  return { storyboard, files };
}

/** espeak-ng to a temporary WAV, then 48 kHz mono 16-bit with the pause appended (the format concatAudio joins). */
async function speak(text: string, language: BenchLanguage, outFile: string): Promise<void> {
  const raw = `${outFile}.espeak.wav`;
  await run('espeak-ng', ['-v', language, '-w', raw, text], { timeoutMs: TIMEOUT_MS });
  await run(
    'ffmpeg',
    [
      ...FFMPEG,
      '-i',
      raw,
      '-af',
      `aresample=48000,apad=pad_dur=${PAUSE_SECONDS}`,
      '-ar',
      '48000',
      '-ac',
      '1',
      '-c:a',
      'pcm_s16le',
      outFile,
    ],
    { timeoutMs: TIMEOUT_MS },
  );
  await fs.rm(raw);
}

/** A recognisably different 1440×900 picture per screen, labelled "Screen N". */
async function makeScreenshot(screenNumber: number, outFile: string): Promise<void> {
  const sources = [`testsrc2=s=${SCREENSHOT_SIZE}:r=1`, `smptehdbars=s=${SCREENSHOT_SIZE}:r=1`, `testsrc2=s=${TALL_SIZE}:r=1`];
  const font = await resolveFont('Noto Sans', true);
  const label =
    `drawtext=fontfile=${filterValue(font.file)}:text=${filterValue(`Screen ${screenNumber}`)}:fontsize=120:fontcolor=white` +
    ':borderw=6:bordercolor=black:x=(w-text_w)/2:y=(h-text_h)/2';
  await run(
    'ffmpeg',
    [...FFMPEG, '-f', 'lavfi', '-i', sources[(screenNumber - 1) % sources.length], '-vf', label, '-frames:v', '1', outFile],
    { timeoutMs: TIMEOUT_MS },
  );
}
