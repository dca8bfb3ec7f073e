/**
 * processing → scripting → voiceover on the fixture site, with real Chromium, espeak-ng, ffmpeg,
 * PostgreSQL and Redis, up to the renderer's door (status `rendering`, a stored storyboard per video).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { SUPPORTED_LANGUAGES } from '../../config/catalog';
import { parseWebVtt } from '../../lib/voice/captions';
import type { Storyboard } from '../../lib/campaign/storyboard';
import { startHarness, type Harness } from '../support/harness';
import { startOpenAIImitation } from '../support/openai-imitation';
import { waitFor } from '../support/wait';

// Generous: these tests are about the pipeline, not the limiter (whose Redis deadline a loaded CI machine can miss).
const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };

function waitForStatus(h: Harness, key: string, id: string, done: (status: string) => boolean, timeoutMs = 150_000) {
  return waitFor(
    () => h.request('GET', `/api/v1/campaigns/${id}`, { key }),
    (res) => done(res.body.status),
    timeoutMs,
    300,
  );
}

function probeSeconds(file: string): number {
  return Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file]).toString().trim());
}

const atRendererDoor = (status: string) => status === 'rendering' || status === 'failed';

describe('scripts and voice from the fixture site', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness({ config: { rateLimits: limits, videoTargetSeconds: 20, captureMaxShots: 4 } });
    ({ key } = await h.newCustomer('business'));
  });
  afterAll(async () => h?.stop());

  test('each language takes its text from the right source; storyboards match the measured audio; captions cover it', async () => {
    const created = await h.request('POST', '/api/v1/campaigns', {
      key,
      body: { url: h.pageUrl, languages: ['en', 'ja', 'ko', 'fr'], platforms: ['tiktok', 'youtube'] },
    });
    expect(created.status).toBe(201);
    const id = created.body.campaign_id;
    const res = await waitForStatus(h, key, id, atRendererDoor);
    expect(res.body.error).toBeUndefined();
    expect(res.body.status).toBe('rendering');
    const sources = Object.fromEntries(
      res.body.videos.map((v: { language: string; script_source: string }) => [v.language, v.script_source]),
    );
    expect(sources).toEqual({ en: 'localized_page', ja: 'localized_page', ko: 'localized_page', fr: 'source_text' });
    // fr has no page of its own and no translator is configured: both its videos are made, and say so.
    const frWarning = {
      code: 'narration_not_in_language',
      message:
        "No fr version of this page was found and no translation provider is configured, so the scenes are narrated in the page's language (en); only the opening and closing lines are in fr. Add a fr page linked with hreflang, or configure TRANSLATION_BASE_URL, then create the campaign again.",
    };
    for (const video of res.body.videos as Array<{ language: string; warnings: unknown[] }>)
      expect(video.warnings).toEqual(video.language === 'fr' ? [frWarning] : []);
    const listed = await h.request('GET', '/api/v1/campaigns?limit=1', { key });
    expect(listed.body.campaigns[0].campaign_id).toBe(id);
    expect(listed.body.campaigns[0].videos.map((v: { warnings: unknown[] }) => v.warnings)).toEqual(
      res.body.videos.map((v: { warnings: unknown[] }) => v.warnings),
    );

    const scripts = Object.fromEntries(
      (await h.sql('SELECT language, script FROM campaign_scripts WHERE campaign_id = $1', [id])).map((r) => [r.language, r.script]),
    );
    const spoken = (lang: string) =>
      [scripts[lang].title, ...scripts[lang].screens, scripts[lang].closing].flatMap((s: any) => s.narration);
    // ja and ko speak their own pages' words; fr frames the English page text with French phrases, each in its own voice.
    const [jaPage] = await h.sql('SELECT text FROM page_captures WHERE campaign_id = $1 AND variant = $2', [id, 'ja']);
    expect(
      spoken('ja')
        .map((n: any) => n.text)
        .join(' '),
    ).toContain(jaPage.text.description.slice(0, 12));
    expect(scripts.ja.screens[0].onScreenText).toBe('チームが本当に読むダッシュボード');
    expect(spoken('ja').every((n: any) => n.language === 'ja')).toBe(true);
    expect(
      spoken('ko')
        .map((n: any) => n.text)
        .join(' '),
    ).toMatch(/[\uac00-\ud7af]/);
    expect(scripts.fr.title.narration[0]).toMatchObject({ language: 'fr' });
    expect(scripts.fr.closing.narration[0]).toMatchObject({ language: 'fr' });
    // The hero says the page's own prose under its headline, not its meta description ("…turns your product…").
    expect(scripts.fr.screens[0].narration[0]).toMatchObject({
      language: 'en',
      text: expect.stringMatching(/^Acme Analytics connects your product/),
    });
    // The hero's voice says the page's promise, not just the headline already on screen.
    for (const lang of ['en', 'ja', 'ko', 'fr'])
      expect(scripts[lang].screens[0].narration[0].text).not.toBe(scripts[lang].screens[0].onScreenText);

    const rows = await h.sql(
      'SELECT s.document, v.language, v.platform FROM storyboards s JOIN videos v ON v.id = s.video_id WHERE s.campaign_id = $1',
      [id],
    );
    expect(rows).toHaveLength(8);
    const files = (k: string) => path.join(h.config.dataDir, 'files', k);
    for (const { document } of rows as Array<{ document: Storyboard }>) {
      expect(document.frame).toEqual(document.platform === 'youtube' ? { width: 1920, height: 1080 } : { width: 1080, height: 1920 });
      expect(document.scenes[0].kind).toBe('title');
      expect(document.scenes.at(-1)!.kind).toBe('closing');
      let start = 0;
      for (const scene of document.scenes) {
        expect(scene.startSeconds).toBeCloseTo(start, 2);
        // Durations come from the audio itself.
        expect(Math.abs(probeSeconds(files(scene.audioKey)) - scene.durationSeconds)).toBeLessThan(0.02);
        if (scene.kind === 'screen') expect(fs.existsSync(files(scene.screenshotKey!))).toBe(true);
        start += scene.durationSeconds;
      }
      expect(document.totalSeconds).toBeCloseTo(start, 2);
      expect(document.totalSeconds).toBeGreaterThanOrEqual(10);
      expect(document.totalSeconds).toBeLessThanOrEqual(45);
      expect(Math.abs(probeSeconds(files(document.narrationKey)) - document.totalSeconds)).toBeLessThan(0.1);
      if (document.platform === 'tiktok')
        expect(document.scenes.filter((s) => s.kind === 'screen').every((s) => /mobile/.test(s.screenshotKey!))).toBe(true);
      const cues = parseWebVtt(fs.readFileSync(files(document.captionsKey), 'utf8'));
      expect(cues[0].start).toBeCloseTo(0, 2);
      expect(cues.at(-1)!.end).toBeCloseTo(document.totalSeconds, 1);
      for (let i = 1; i < cues.length; i += 1) expect(cues[i].start).toBeCloseTo(cues[i - 1].end, 2);
    }
    // Each language with its own page shows that page's screens (phone captures on 9:16, desktop on 16:9);
    // a language without one (fr) and the source's own language (en) show the source page.
    for (const { document } of rows as Array<{ document: Storyboard }>) {
      const page = ['ja', 'ko'].includes(document.language) ? document.language : 'source';
      const viewport = document.platform === 'tiktok' ? 'mobile' : 'desktop';
      const screens = document.scenes.filter((s) => s.kind === 'screen').map((s) => s.screenshotKey);
      expect({ language: document.language, platform: document.platform, screens }).toEqual({
        language: document.language,
        platform: document.platform,
        screens: screens.map(() => expect.stringContaining(`/capture/${page}-${viewport}-`)),
      });
    }
    const ja = (rows as Array<{ document: Storyboard; language: string }>).find((r) => r.language === 'ja')!.document;
    expect(ja.font).toBe('Noto Sans CJK JP');
    expect(ja.brand.primary).toBe('#3a5bd9');
  }, 200_000);
});

/**
 * Every voice, on the shortest script (one screen, the shortest target): of the 20 languages only en, ja and ko have a
 * page of their own on the fixture site; the other 17 narrate its screens in English (source_text) between opening and
 * closing lines of their own, so each further screen is the same English said again 17 times by the same voice.
 */
describe('every supported language, spoken', () => {
  let h: Harness;
  let key: string;
  let orgId: string;
  beforeAll(async () => {
    h = await startHarness({ config: { rateLimits: limits, videoTargetSeconds: 10, captureMaxShots: 1 } });
    ({ key, orgId } = await h.newCustomer('business'));
  });
  afterAll(async () => h?.stop());

  test('every supported language gets non-empty audio whose measured length matches the storyboard', async () => {
    await h.call('accounts.setPlan', { org_id: orgId, plan: 'enterprise', campaigns: 1000, rate: 1000 });
    const groups = [SUPPORTED_LANGUAGES.slice(0, 8), SUPPORTED_LANGUAGES.slice(8, 16), SUPPORTED_LANGUAGES.slice(16)];
    const ids: string[] = [];
    for (const languages of groups) {
      const created = await h.request('POST', '/api/v1/campaigns', { key, body: { url: h.pageUrl, languages } });
      if (created.status !== 201) console.log('create refused', created.status, JSON.stringify(created.body));
      expect(created.status).toBe(201);
      ids.push(created.body.campaign_id);
    }
    const seen = new Set<string>();
    for (const id of ids) {
      const res = await waitForStatus(h, key, id, atRendererDoor, 240_000);
      expect(res.body.error).toBeUndefined();
      expect(res.body.status).toBe('rendering');
      for (const { document } of await h.sql<{ document: Storyboard }>('SELECT document FROM storyboards WHERE campaign_id = $1', [id])) {
        seen.add(document.language);
        for (const scene of document.scenes) {
          const file = path.join(h.config.dataDir, 'files', scene.audioKey);
          expect(fs.statSync(file).size).toBeGreaterThan(10_000);
          expect(Math.abs(probeSeconds(file) - scene.durationSeconds)).toBeLessThan(0.02);
        }
        // The voice track is speech, not silence: ffmpeg's volumedetect mean level.
        const detect = spawnSync(
          'ffmpeg',
          ['-hide_banner', '-i', path.join(h.config.dataDir, 'files', document.narrationKey), '-af', 'volumedetect', '-f', 'null', '-'],
          { encoding: 'utf8' },
        );
        const mean = Number(/mean_volume: (-?[\d.]+) dB/.exec(detect.stderr)?.[1]);
        expect(mean).toBeGreaterThan(-35);
      }
    }
    expect([...seen].sort()).toEqual([...SUPPORTED_LANGUAGES].sort());
  }, 600_000);
});

describe('the translation provider (a local imitation of an OpenAI-compatible API)', () => {
  let h: Harness;
  let key: string;
  let imitation: Awaited<ReturnType<typeof startOpenAIImitation>>;
  beforeAll(async () => {
    imitation = await startOpenAIImitation();
    h = await startHarness({
      config: {
        rateLimits: limits,
        videoTargetSeconds: 15,
        captureMaxShots: 3,
        translation: { baseUrl: imitation.baseUrl, apiKey: 'sk-test-translation', model: 'gpt-test', timeoutMs: 400 },
      },
    });
    ({ key } = await h.newCustomer('business'));
  });
  afterAll(async () => {
    await h?.stop();
    await imitation?.close();
  });

  test('a language without a localized page is translated, and says so', async () => {
    imitation.setMode('translate');
    const created = await h.request('POST', '/api/v1/campaigns', { key, body: { url: h.pageUrl, languages: ['ja', 'de'] } });
    const res = await waitForStatus(h, key, created.body.campaign_id, atRendererDoor);
    expect(res.body.status).toBe('rendering');
    const sources = Object.fromEntries(
      res.body.videos.map((v: { language: string; script_source: string }) => [v.language, v.script_source]),
    );
    expect(sources).toEqual({ ja: 'localized_page', de: 'translated' });
    // Translated is narrated in the video's language: no warning.
    expect(res.body.videos.map((v: { warnings: unknown[] }) => v.warnings)).toEqual([[], []]);
    const [row] = await h.sql('SELECT script FROM campaign_scripts WHERE campaign_id = $1 AND language = $2', [
      created.body.campaign_id,
      'de',
    ]);
    expect(row.script.screens[0].narration[0].language).toBe('de');
    const request = imitation.requests.at(-1)!;
    expect(request.headers.authorization).toBe('Bearer sk-test-translation');
    expect(request.body.model).toBe('gpt-test');
  }, 200_000);

  test.each(['error500', 'timeout', 'malformed'] as const)(
    'provider failure (%s): the stage retries, then the campaign fails with a clear error',
    async (mode) => {
      imitation.setMode(mode);
      const before = imitation.requests.length;
      const created = await h.request('POST', '/api/v1/campaigns', { key, body: { url: h.pageUrl, languages: ['de'] } });
      const res = await waitForStatus(h, key, created.body.campaign_id, atRendererDoor);
      expect(res.body.status).toBe('failed');
      expect(res.body.error.code).toBe('translation_failed');
      expect(res.body.error.message).toMatch(/Translation to de failed/);
      expect(res.body.error.message).not.toMatch(/sk-test-translation/);
      expect(imitation.requests.length - before).toBeGreaterThan(1);
    },
    200_000,
  );
});
