/**
 * The plainest multi-language page (test/fixtures/real-web/tally: en, ja and ko linked by hreflang, three sections
 * of one heading and one sentence, fully translated) on every frame shape, at draft quality: each ja and ko video
 * shows its own page's sections, in page order, and says only its own page's words. Customers saw the phone (9:16)
 * videos of such a page show the English sections' headlines and narration over the translated page's hero; this
 * file keeps that from coming back. Each screen scene is judged by OCR of its page area at its midpoint, and the
 * video's narration and captions file by their text.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Storyboard } from '../../lib/campaign/storyboard';
import { frameAt } from '../../lib/render/contact-sheet';
import { safeZoneFor } from '../../lib/render/framing';
import { SCROLL_LEAD } from '../../lib/render/camera';
import { realWebPage, type RealWebPage } from '../fixtures/real-web/truth';
import { startHarness, type Harness } from '../support/harness';
import { headingRecall, readWords, scriptCounts, type OcrWord } from '../support/ocr';
import { runCampaign } from '../support/campaign-run';

const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };
/**
 * The videos made: the translated pages' only. The English page is the campaign's page (captured and planned from
 * whatever languages are asked for); its own videos are not what this file judges, so rendering them proves nothing.
 */
const VIDEO_LANGUAGES = ['ja', 'ko'] as const;
const PLATFORMS = ['tiktok', 'youtube', 'linkedin'] as const;
/** Below this a word is more likely a smudge of the blurred backdrop than text. */
const MIN_CONFIDENCE = 60;
/** A heading is on screen when OCR read this share of its character pairs (visual-checks.ts); another's scores near 0. */
const MIN_HEADING_RECALL = 0.4;

/** Each section's sentence, hero first, on each page (test/fixtures/real-web/tally/…/index.html). */
const SENTENCES: Record<'en' | (typeof VIDEO_LANGUAGES)[number], string[]> = {
  en: [
    'Tally reconciles your accounts while you run your business.',
    'Bank feeds match invoices automatically.',
    'Reports are ready the moment the last payment clears.',
  ],
  ja: [
    'あなたが事業に集中している間に、Tally が口座の照合を済ませます。',
    '銀行の入出金データが請求書と自動で照合されます。',
    '最後の入金が確認された瞬間に、レポートが仕上がります。',
  ],
  ko: [
    '사업에 집중하는 동안 Tally가 계좌 대사를 끝내 둡니다.',
    '은행 거래 내역이 청구서와 자동으로 맞춰집니다.',
    '마지막 입금이 확인되는 순간 보고서가 준비됩니다.',
  ],
};

interface SceneFrame {
  scene: number;
  headline: string;
  screenshotKey: string;
  /** The words OCR read in the page area, at rest (before the camera moves) and at the scene's midpoint. */
  restWords: OcrWord[];
  middleWords: OcrWord[];
  png: string;
}

interface VideoUnderTest {
  language: string;
  platform: string;
  page: RealWebPage;
  board: Storyboard;
  captions: string;
  frames: SceneFrame[];
}

const folded = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');

/** The words a WebVTT file shows, cue after cue: no header, cue times, or the word timestamps inside cues. */
function captionText(vtt: string): string {
  return vtt
    .split('\n')
    .filter((line) => line.trim() && !line.startsWith('WEBVTT') && !line.includes('-->') && !/^\d+$/.test(line.trim()))
    .map((line) => line.replace(/<[^>]*>/g, ''))
    .join(' ');
}

describe('videos of the plainest multi-language page: each language shows and says its own sections', () => {
  let h: Harness;
  const videos: VideoUnderTest[] = [];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'visual-localized-'));

  beforeAll(async () => {
    h = await startHarness({ render: 'worker', config: { rateLimits: limits, renderQuality: 'draft', videoTargetSeconds: 25 } });
    const { key } = await h.newCustomer('business');
    const { id, campaign } = await runCampaign(
      h,
      key,
      { url: h.site.url(realWebPage('tally').path), languages: [...VIDEO_LANGUAGES], platforms: [...PLATFORMS] },
      600_000,
    );
    expect(campaign.error).toBeUndefined();
    expect(campaign.status).toBe('review');
    const rows = await h.sql<{ id: string; language: string; platform: string; file_key: string; document: Storyboard }>(
      'SELECT v.id, v.language, v.platform, v.file_key, s.document FROM videos v JOIN storyboards s ON s.video_id = v.id WHERE v.campaign_id = $1',
      [id],
    );
    expect(rows).toHaveLength(VIDEO_LANGUAGES.length * PLATFORMS.length);
    const file = (key: string) => path.join(h.config.dataDir, 'files', key);
    if (process.env.VISUAL_KEEP_FRAMES) {
      // Kept beside the frames: what the capture read and shot, the plan, the scripts and the storyboards.
      const dump = async (name: string, query: string) =>
        fs.writeFileSync(path.join(tmp, name), JSON.stringify(await h.sql(query, [id]), null, 2));
      await dump('captures.json', 'SELECT variant, text, screenshots FROM page_captures WHERE campaign_id = $1');
      await dump('plan.json', 'SELECT plan FROM campaign_plans WHERE campaign_id = $1');
      await dump('scripts.json', 'SELECT language, script FROM campaign_scripts WHERE campaign_id = $1');
      await dump('quality.json', 'SELECT language, platform, quality FROM videos WHERE campaign_id = $1');
      fs.writeFileSync(path.join(tmp, 'storyboards.json'), JSON.stringify(rows, null, 2));
      for (const row of rows) fs.copyFileSync(file(row.file_key), path.join(tmp, `${row.language}-${row.platform}.mp4`));
    }
    for (const row of rows) {
      const board = row.document;
      const video: VideoUnderTest = {
        language: row.language,
        platform: row.platform,
        page: realWebPage('tally', row.language),
        board,
        captions: captionText(fs.readFileSync(file(board.captionsKey), 'utf8')),
        frames: [],
      };
      for (const scene of board.scenes.filter((s) => s.kind === 'screen')) {
        // The page's area in this scene: between its band (as many lines as its headline takes) and the captions.
        const safe = safeZoneFor(board.frame, {
          platform: board.platform,
          captions: board.captions,
          headline: scene.onScreenText,
          language: board.language,
        });
        const read = async (moment: string, seconds: number, scales: number[]) => {
          const png = await frameAt(
            file(row.file_key),
            seconds,
            path.join(tmp, `${row.language}-${row.platform}-${scene.index}-${moment}.png`),
          );
          // A draft is rendered smaller than its platform's frame: the page's rows scale with the frame read.
          const scale = fs.readFileSync(png).readUInt32BE(20) / board.frame.height;
          const rows = { top: (safe.top - 0.01) * board.frame.height * scale, bottom: (safe.bottom + 0.01) * board.frame.height * scale };
          return { png, words: await readWords(png, row.language, { minConfidence: MIN_CONFIDENCE, scales, rows }) };
        };
        // The page at rest before its camera moves, its heading at the top (visual-checks.ts), read at three times its
        // size too (a draft is half size: a desktop section's heading on 16:9 is some 10 px of CJK type); and the
        // scene's midpoint, where the camera has gone towards the sentence said.
        // Two tesseracts at a time: one per core.
        const [rest, middle] = await Promise.all([
          read('rest', scene.startSeconds + scene.durationSeconds * SCROLL_LEAD * 0.8, [1, 3]),
          read('middle', scene.startSeconds + scene.durationSeconds / 2, [2]),
        ]);
        video.frames.push({
          scene: scene.index,
          headline: scene.onScreenText,
          screenshotKey: scene.screenshotKey!,
          png: rest.png,
          restWords: rest.words,
          middleWords: middle.words,
        });
      }
      videos.push(video);
    }
  }, 900_000);

  afterAll(async () => {
    await h?.stop();
    // VISUAL_KEEP_FRAMES=1 keeps the frames read, to look at them after a failure.
    if (!process.env.VISUAL_KEEP_FRAMES) fs.rmSync(tmp, { recursive: true, force: true });
  });

  const label = (v: VideoUnderTest, scene?: number) => `${v.language}/${v.platform}${scene === undefined ? '' : ` scene ${scene}`}`;

  test('a ja and a ko video on every platform, each with the hero and both sections', () => {
    expect(videos.map((v) => label(v)).sort()).toEqual(['ja', 'ko'].flatMap((l) => PLATFORMS.map((p) => `${l}/${p}`)).sort());
    for (const v of videos) expect({ video: label(v), screens: v.frames.length }).toEqual({ video: label(v), screens: 3 });
  });

  test('every screen scene’s headline is its own page’s: the hero’s h1, then its sections’ headings in page order', () => {
    for (const v of videos) {
      const headlines = v.frames.map((f) => f.headline);
      expect({ video: label(v), headlines }).toEqual({ video: label(v), headlines: [v.page.headline, ...v.page.productHeadings] });
    }
  });

  test('every screen scene shows that language’s own page, with the scene’s own heading in the page area', () => {
    for (const v of videos) {
      for (const f of v.frames) {
        const counts = scriptCounts(f.restWords, v.language);
        const middle = scriptCounts(f.middleWords, v.language);
        const recall = headingRecall(f.restWords, f.headline, v.language);
        expect({
          frame: label(v, f.scene),
          fromOwnPage: new RegExp(`/capture/${v.language}-`).test(f.screenshotKey),
          // At rest, the page's own script; at the midpoint, never more Latin than it (the English page's text).
          ownScript: counts.own >= 5 && counts.own >= counts.latin && middle.own >= middle.latin,
          headingOnScreen: recall >= MIN_HEADING_RECALL,
        }).toEqual({ frame: label(v, f.scene), fromOwnPage: true, ownScript: true, headingOnScreen: true });
      }
    }
  });

  test('no English section is shown, said or captioned in a ja or ko video', () => {
    const english = [...realWebPage('tally').productHeadings, ...SENTENCES.en];
    for (const v of videos) {
      const said = v.board.scenes.flatMap((s) => [s.onScreenText, ...s.narration.map((n) => n.text)]).join(' ');
      const read = folded(v.frames.flatMap((f) => [...f.restWords, ...f.middleWords].map((w) => w.text)).join(''));
      // Words the own page has too (the product's name) say nothing of which page is shown.
      const ownText = folded(SENTENCES[v.language as 'ja' | 'ko'].join(' '));
      for (const text of english) {
        expect({ video: label(v), text, said: said.includes(text), captioned: v.captions.includes(text) }).toEqual({
          video: label(v),
          text,
          said: false,
          captioned: false,
        });
        const words = text
          .split(/\s+/)
          .map(folded)
          .filter((w) => w.length >= 4 && !ownText.includes(w));
        expect({ video: label(v), text, readOnScreen: words.filter((w) => read.includes(w)) }).toEqual({
          video: label(v),
          text,
          readOnScreen: [],
        });
      }
      // Every narration segment is said in the video's language (by its voice, in its script).
      for (const scene of v.board.scenes)
        for (const segment of scene.narration)
          expect({ video: label(v), segment: segment.text, voice: segment.language }).toMatchObject({ voice: v.language });
    }
  });

  test('each section scene says its own page’s sentence, and the captions carry it', () => {
    for (const v of videos) {
      const captions = folded(v.captions);
      const own = SENTENCES[v.language as 'ja' | 'ko'];
      for (const [n, scene] of v.board.scenes.filter((s) => s.kind === 'screen').entries()) {
        const narration = scene.narration.map((s) => s.text).join(' ');
        expect({
          scene: label(v, scene.index),
          narration,
          saysOwnSentence: folded(narration).includes(folded(own[n])),
          captioned: captions.includes(folded(own[n])),
        }).toEqual({ scene: label(v, scene.index), narration, saysOwnSentence: true, captioned: true });
      }
    }
  });
});
