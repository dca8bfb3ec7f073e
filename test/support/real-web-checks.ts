/**
 * The real-web checks on pages that imitate the real web (test/fixtures/real-web, truth in its truth.ts): a real
 * campaign per page, and every video judged as its customer would judge it. Rendered at draft quality (half each side,
 * the same layout in shares of the frame: lib/render/plan.ts frameFor), its frames read by OCR at twice their size,
 * about the full frame's pixels: what is judged here is which screens, words and script a video shows, not full-quality
 * pixels; those are judged on every language and frame shape by visual-site.test.ts.
 * - every screen scene shows and narrates a product section of the page, never furniture; the title card carries the
 *   product's name and the closing card the page's own call to action (never a control's or a neighbour's label);
 * - the opening line is the language's phrase with the whole name in it, and every scene's narration is whole
 *   sentences of the page (never cut inside a word or phrase, never the heading alone when the section has prose);
 * - no two scenes of a video show the same screen (their screenshots, fingerprints and the words OCR reads);
 * - no word of the page touches the frame's sides (OCR, Latin and the language's own script);
 * - a language with its own page shows its own page, in its script; a language without one says so (warnings).
 * One test file per site (test/integration/visual-real-web-*.test.ts), so that Jest's workers run them side by side.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LanguageCode } from '../../config/catalog';
import { difference, fingerprint } from '../../lib/capture/images';
import { safeZoneFor } from '../../lib/render/framing';
import { frameFor } from '../../lib/render/plan';
import { contactSheet, frameAt } from '../../lib/render/contact-sheet';
import { phrase } from '../../lib/script/phrases';
import type { Storyboard } from '../../lib/campaign/storyboard';
import { endsWithSentenceTerminator } from '../../lib/text';
import { realWebPage, type RealWebPage, type RealWebSite } from '../fixtures/real-web/truth';
import { startHarness, type Harness } from './harness';
import { fold, readWords, scriptCounts, wordsAtSideEdges, type OcrWord } from './ocr';
import { runCampaign } from './campaign-run';

const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };
/** Draft, but full for REAL_WEB_SHEETS (the contact sheets of docs/video.md show full-quality frames). */
const QUALITY = process.env.REAL_WEB_SHEETS ? 'full' : 'draft';
/** Below this a word is more likely a smudge of the blurred backdrop than text. */
const MIN_CONFIDENCE = 60;

export interface RealWebCampaign {
  site: RealWebSite;
  languages: string[];
  platforms: string[];
}

interface VideoUnderTest {
  id: string;
  language: string;
  platform: string;
  scriptSource: string;
  warnings: Array<{ code: string }>;
  board: Storyboard;
  /** The truth of the page the video's words come from: its language's own page, else the source page. */
  page: RealWebPage;
  /** Whether the language has its own page. */
  own: boolean;
  /** Every sentence-bearing text the capture read of that page, spaces folded. */
  pageText: string;
  frames: Array<{ scene: number; png: string; pageWords: OcrWord[] }>;
  /** The rendered frame's width (OCR's words are in its pixels). */
  shownWidth: number;
}

interface CaptureRow {
  variant: string;
  text: { main_text: string; hero_paragraphs?: string[]; sections?: Array<{ paragraphs: string[] }> };
}

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** What OCR read, as comparable tokens: words of 3 letters and more, and pairs of characters in CJK text (OCR splits it anywhere). */
function readTokens(words: OcrWord[]): Set<string> {
  const tokens = new Set<string>();
  for (const word of words) {
    const folded = fold(word.text);
    if (UNSPACED.test(folded)) for (let i = 0; i + 1 < folded.length; i += 1) tokens.add(folded.slice(i, i + 2));
    else if (folded.length >= 3) tokens.add(folded);
  }
  return tokens;
}

export function describeRealWebChecks(campaigns: RealWebCampaign[]): void {
  describe(`videos of ${campaigns.map((c) => c.site).join(', ')}, pages that imitate the real web`, () => {
    let h: Harness;
    const videos: VideoUnderTest[] = [];
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'real-web-'));

    beforeAll(async () => {
      h = await startHarness({ render: 'worker', config: { rateLimits: limits, renderQuality: QUALITY, videoTargetSeconds: 25 } });
      const { key } = await h.newCustomer('business');
      await Promise.all(
        campaigns.map(async (campaign) => {
          const source = realWebPage(campaign.site);
          const { id: campaignId, campaign: done } = await runCampaign(
            h,
            key,
            { url: h.site.url(source.path), languages: campaign.languages, platforms: campaign.platforms },
            900_000,
          );
          expect(done.error).toBeUndefined();
          expect(done.status).toBe('review');
          const views = done.videos as Array<{ id: string; warnings?: Array<{ code: string }> }>;
          const captures = await h.sql<CaptureRow>('SELECT variant, text FROM page_captures WHERE campaign_id = $1', [campaignId]);
          const rows = await h.sql<{
            id: string;
            language: string;
            platform: string;
            file_key: string;
            script_source: string;
            document: Storyboard;
          }>(
            'SELECT v.id, v.language, v.platform, v.file_key, v.script_source, s.document FROM videos v JOIN storyboards s ON s.video_id = v.id WHERE v.campaign_id = $1',
            [campaignId],
          );
          expect(rows).toHaveLength(campaign.languages.length * campaign.platforms.length);
          for (const row of rows) {
            const own = row.language === source.lang || captures.some((c) => c.variant === row.language);
            const capture =
              captures.find((c) => c.variant === (row.language === source.lang ? 'source' : row.language)) ??
              captures.find((c) => c.variant === 'source')!;
            const pageText = squash(
              [
                capture.text.main_text,
                ...(capture.text.hero_paragraphs ?? []),
                ...(capture.text.sections ?? []).flatMap((s) => s.paragraphs),
              ].join('\n'),
            );
            // The storyboard's frame is the platform's; the video's is frameFor's (half each side at draft).
            const shown = frameFor(row.document.frame, QUALITY);
            const video: VideoUnderTest = {
              id: row.id,
              language: row.language,
              platform: row.platform,
              scriptSource: row.script_source,
              warnings: views.find((v) => v.id === row.id)?.warnings ?? [],
              board: row.document,
              page: own ? realWebPage(campaign.site, row.language) : source,
              own,
              pageText,
              frames: [],
              shownWidth: shown.width,
            };
            const file = path.join(h.config.dataDir, 'files', row.file_key);
            // REAL_WEB_SHEETS=<dir> keeps a contact sheet of every video (docs/video.md's come from such a run).
            if (process.env.REAL_WEB_SHEETS) {
              fs.mkdirSync(process.env.REAL_WEB_SHEETS, { recursive: true });
              await contactSheet(
                file,
                row.document,
                path.join(process.env.REAL_WEB_SHEETS, `${video.page.site}-${row.language}-${row.platform}.jpg`),
                480,
              );
            }
            for (const scene of row.document.scenes.filter((s) => s.kind === 'screen')) {
              // The page's area in this scene: between its band (as many lines as its headline takes) and the captions.
              const safe = safeZoneFor(row.document.frame, {
                platform: row.document.platform,
                captions: row.document.captions,
                headline: scene.onScreenText,
                language: row.document.language,
              });
              const png = await frameAt(
                file,
                scene.startSeconds + scene.durationSeconds / 2,
                path.join(tmp, `${row.id}-${scene.index}.png`),
              );
              video.frames.push({
                scene: scene.index,
                png,
                pageWords: await readWords(png, row.language, {
                  minConfidence: MIN_CONFIDENCE,
                  // One scale, about the full frame's size: the suite's time; the fixture sites' suites read at two (visual-checks.ts).
                  scales: QUALITY === 'full' ? [1] : [2],
                  rows: { top: (safe.top - 0.01) * shown.height, bottom: (safe.bottom + 0.01) * shown.height },
                }),
              });
            }
            videos.push(video);
          }
        }),
      );
    }, 1_500_000);

    afterAll(async () => {
      await h?.stop();
      if (!process.env.VISUAL_KEEP_FRAMES) fs.rmSync(tmp, { recursive: true, force: true });
    });

    const label = (v: VideoUnderTest) => `${v.page.id}/${v.language}/${v.platform}`;
    const screens = (v: VideoUnderTest) => v.board.scenes.filter((s) => s.kind === 'screen');

    test('every screen scene shows a product section (the hero first), never furniture', () => {
      for (const v of videos) {
        const [hero, ...sections] = screens(v);
        expect(sections.length).toBeGreaterThanOrEqual(1);
        expect({ video: label(v), hero: hero.onScreenText }).toEqual({ video: label(v), hero: v.page.headline });
        for (const scene of sections) {
          expect({ video: label(v), heading: scene.onScreenText, product: v.page.productHeadings.includes(scene.onScreenText) }).toEqual({
            video: label(v),
            heading: scene.onScreenText,
            product: true,
          });
        }
        const said = v.board.scenes.flatMap((s) => [s.onScreenText, ...s.narration.map((n) => n.text)]).join(' ');
        for (const furniture of v.page.furnitureHeadings)
          expect({ video: label(v), furniture, said: said.includes(furniture) }).toMatchObject({ said: false });
        if (v.page.notice) expect(said).not.toContain(v.page.notice);
      }
    });

    test('the title card names the product and the closing card is the page’s own call to action, never a control', () => {
      for (const v of videos) {
        const title = v.board.scenes.find((s) => s.kind === 'title')!;
        const closing = v.board.scenes.find((s) => s.kind === 'closing')!;
        expect({ video: label(v), title: title.onScreenText }).toEqual({ video: label(v), title: v.page.name });
        const cta = v.own ? v.page.cta : phrase(v.language as LanguageCode, 'ctaLabel', {});
        expect({ video: label(v), closing: closing.onScreenText }).toEqual({ video: label(v), closing: cta || closing.onScreenText });
        for (const label_ of v.page.forbiddenLabels) {
          expect([title.onScreenText, closing.onScreenText, v.board.closing.ctaLabel]).not.toContain(label_);
        }
      }
    });

    test('the opening line is the language’s phrase with the whole name; every narration is whole sentences of the page', () => {
      for (const v of videos) {
        const title = v.board.scenes.find((s) => s.kind === 'title')!;
        expect(title.narration[0].text).toBe(phrase(v.language as LanguageCode, 'intro', { name: v.page.name }));
        for (const scene of screens(v)) {
          for (const segment of scene.narration) {
            const whole = {
              video: label(v),
              scene: scene.index,
              text: segment.text,
              endsAsSentence: endsWithSentenceTerminator(segment.text),
              fromThePage: v.pageText.includes(squash(segment.text)),
              notTheHeading: fold(segment.text) !== fold(scene.onScreenText),
            };
            expect(whole).toMatchObject({ endsAsSentence: true, fromThePage: true, notTheHeading: true });
          }
        }
      }
    });

    test('no two screen scenes of a video show the same screen (screenshot, fingerprint, words read)', async () => {
      const same: Array<{ video: string; scenes: number[]; why: string }> = [];
      for (const v of videos) {
        const keys = screens(v).map((s) => s.screenshotKey);
        expect(new Set(keys).size).toBe(keys.length);
        const prints = await Promise.all(v.frames.map((f) => fingerprint(fs.readFileSync(f.png))));
        const tokens = v.frames.map((f) => readTokens(f.pageWords));
        for (let i = 1; i < v.frames.length; i += 1) {
          for (let j = 0; j < i; j += 1) {
            const scenes = [v.frames[j].scene, v.frames[i].scene];
            if (difference(prints[i], prints[j]) <= 3) same.push({ video: label(v), scenes, why: 'fingerprint' });
            const [a, b] = [tokens[i], tokens[j]];
            const shared = [...a].filter((w) => b.has(w)).length;
            const jaccard = shared / Math.max(1, new Set([...a, ...b]).size);
            // Judged only when both read enough: a frame of large type reads few words.
            if (Math.min(a.size, b.size) >= 8 && jaccard >= 0.5) same.push({ video: label(v), scenes, why: `words ${jaccard.toFixed(2)}` });
          }
        }
      }
      expect(same).toEqual([]);
    });

    test('no word of the page touches the frame’s left or right edge', () => {
      for (const v of videos) {
        for (const f of v.frames) {
          const touching = wordsAtSideEdges(f.pageWords, v.shownWidth).map((w) => w.text);
          expect({ video: label(v), scene: f.scene, touching }).toEqual({ video: label(v), scene: f.scene, touching: [] });
        }
      }
    });

    test('a language with its own page shows it, in its script; one without says so on GET', () => {
      for (const v of videos) {
        if (v.own) {
          expect({ video: label(v), source: v.scriptSource, warnings: v.warnings }).toEqual({
            video: label(v),
            source: 'localized_page',
            warnings: [],
          });
          if (v.language !== 'en' && !v.page.untranslatedSections?.length) {
            const counts = v.frames.map((f) => scriptCounts(f.pageWords, v.language));
            for (const c of counts) expect({ video: label(v), ...c, enough: c.own >= 20 }).toMatchObject({ enough: true });
          }
        } else {
          expect(v.scriptSource).toBe('source_text');
          expect(v.warnings.map((w) => w.code)).toEqual(['narration_not_in_language']);
        }
      }
    });
  });
}
