/**
 * Hook variants (decisions §15) on real PostgreSQL and Redis. Paused pipeline: `variants` is refused by name over the
 * plan's cap (a Growth key asking 3, in a create and in a batch item) and over the schema's bound, nothing created;
 * a campaign with variants makes one video per language × platform × variant, shows each video's `variant` and the
 * `variants` asked, and counts once against the quota. Whole pipeline (Chromium, the voices, editly at draft quality):
 * a Growth campaign with `variants: 2` in en and ja has two videos per language labelled a and b, whose title scenes
 * say different things drawn from the page, the shared scenes spoken once per language (the same audio in both
 * variants); the picture after each opening is the same frames in both variants (rendered once, each opening joined to
 * it), each video as long as its own narration, in the frames a whole render makes, decoded without an error, its
 * captions its own; each video's document is readable, shows its variant, and one is editable.
 */
import { spawnSync } from 'node:child_process';
import { buildRenderPlan, ENCODING } from '../../lib/render/plan';
import { parseSrtStrict } from '../support/srt';
import { untilSettled } from '../support/campaign-run';
import { CHECK_NOT_THE_SUBJECT, startHarness, type Harness } from '../support/harness';
import { waitFor } from '../support/wait';
import type { SpeechProvider } from '../../lib/voice/speech';
import { speechRuns } from '../../services/voice.service';
import type { Storyboard } from '../../lib/campaign/storyboard';

const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };

async function usedThisMonth(h: Harness, key: string): Promise<number> {
  return (await h.request('GET', '/api/v1/reports/usage', { key })).body.used;
}

describe('variants at create, pipeline paused', () => {
  let h: Harness;
  let growth: { orgId: string; key: string };
  let business: { orgId: string; key: string };

  beforeAll(async () => {
    h = await startHarness({ config: { pipelinePaused: true, rateLimits: limits } });
    growth = await h.newCustomer('growth');
    business = await h.newCustomer('business');
  }, 120_000);
  afterAll(async () => {
    await h?.stop();
  });

  test("a Growth key asking 3 is refused by name, in a create and in a batch's item and defaults; 4 is over every plan; nothing is created", async () => {
    const create = await h.request('POST', '/api/v1/campaigns', { key: growth.key, body: { url: h.pageUrl, variants: 3 } });
    expect(create.status).toBe(400);
    expect(create.body.error).toEqual({
      code: 'invalid_input',
      message: 'variants: the growth plan allows at most 2 variants per campaign (got 3)',
    });
    const item = await h.request('POST', '/api/v1/batches', {
      key: growth.key,
      body: { items: [{ url: h.pageUrl }, { url: h.pageUrl, variants: 3 }] },
    });
    expect(item.status).toBe(400);
    expect(item.body.error.message).toBe('items[1].variants: the growth plan allows at most 2 variants per campaign (got 3)');
    const defaults = await h.request('POST', '/api/v1/batches', {
      key: growth.key,
      body: { items: [{ url: h.pageUrl }], defaults: { variants: 3 } },
    });
    expect(defaults.status).toBe(400);
    expect(defaults.body.error.message).toMatch(/^items\[0\]\.variants: the growth plan allows at most 2/);
    const tooMany = await h.request('POST', '/api/v1/campaigns', { key: business.key, body: { url: h.pageUrl, variants: 4 } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.message).toMatch(/^variants must be <= 3/);
    const [{ count }] = await h.sql<{ count: string }>('SELECT count(*) AS count FROM campaigns WHERE org_id IN ($1, $2)', [
      growth.orgId,
      business.orgId,
    ]);
    expect(Number(count)).toBe(0);
  });

  test('a Business campaign with variants 3 has one video per language × platform × variant, each labelled; the quota counts one', async () => {
    const before = await usedThisMonth(h, business.key);
    const created = await h.request('POST', '/api/v1/campaigns', {
      key: business.key,
      body: { url: h.pageUrl, languages: ['en', 'ja'], platforms: ['tiktok', 'youtube'], variants: 3 },
    });
    expect(created.status).toBe(201);
    expect(await usedThisMonth(h, business.key)).toBe(before + 1);
    const read = await h.request('GET', `/api/v1/campaigns/${created.body.campaign_id}`, { key: business.key });
    expect(read.body.variants).toBe(3);
    const outputs = read.body.videos.map(
      (v: { language: string; platform: string; variant: string }) => `${v.language}/${v.platform}/${v.variant}`,
    );
    expect(outputs).toEqual([
      'en/tiktok/a',
      'en/tiktok/b',
      'en/tiktok/c',
      'en/youtube/a',
      'en/youtube/b',
      'en/youtube/c',
      'ja/tiktok/a',
      'ja/tiktok/b',
      'ja/tiktok/c',
      'ja/youtube/a',
      'ja/youtube/b',
      'ja/youtube/c',
    ]);
    // Without variants: one video per language × platform, variant a, and no `variants` echoed.
    const plain = await h.request('POST', '/api/v1/campaigns', { key: business.key, body: { url: h.pageUrl, languages: ['en'] } });
    const plainRead = await h.request('GET', `/api/v1/campaigns/${plain.body.campaign_id}`, { key: business.key });
    expect(plainRead.body.variants).toBeUndefined();
    expect(plainRead.body.videos.map((v: { variant: string }) => v.variant)).toEqual(['a']);
    // A batch item's variants (a Growth key's 2 is within its plan).
    const batch = await h.request('POST', '/api/v1/batches', {
      key: growth.key,
      body: { items: [{ url: h.pageUrl, variants: 2 }, { url: h.pageUrl }], defaults: { languages: ['en'] } },
    });
    expect(batch.status).toBe(201);
    const [first, second] = batch.body.campaigns.map((c: { campaign_id: string }) => c.campaign_id);
    const variantsOf = async (id: string) =>
      (await h.request('GET', `/api/v1/campaigns/${id}`, { key: growth.key })).body.videos.map((v: { variant: string }) => v.variant);
    expect(await variantsOf(first)).toEqual(['a', 'b']);
    expect(await variantsOf(second)).toEqual(['a']);
  });
});

/** The text of a fixture page, tags and scripts gone, lower-cased. */
async function pageText(url: string): Promise<string> {
  const html = await (await fetch(url)).text();
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .toLocaleLowerCase();
}

/** The content words of a narration: word-like segments, Latin ones of four letters or more, CJK ones with a kanji or katakana. */
function contentWords(text: string, language: string): string[] {
  const segments = Array.from(new Intl.Segmenter(language, { granularity: 'word' }).segment(text.toLocaleLowerCase()));
  return segments
    .filter((s) => s.isWordLike)
    .map((s) => s.segment)
    .filter((word) => (/\p{Script=Latin}/u.test(word) ? word.length >= 4 : /[\p{Script=Han}\p{Script=Katakana}]/u.test(word)));
}

/** Every frame of a video, grey, at a quarter of its sides: decoded without a single error (the join included). */
function grayFrames(bytes: Buffer, width: number, height: number): Buffer[] {
  const decoded = spawnSync(
    'ffmpeg',
    ['-v', 'error', '-i', 'pipe:0', '-vf', `scale=${width / 4}:${height / 4}:flags=area,format=gray`, '-f', 'rawvideo', '-'],
    { input: bytes, maxBuffer: 256 * 1024 * 1024 },
  );
  expect(decoded.stderr.toString()).toBe('');
  const size = (width / 4) * (height / 4);
  expect(decoded.stdout.length % size).toBe(0);
  return Array.from({ length: decoded.stdout.length / size }, (_, i) => decoded.stdout.subarray(i * size, (i + 1) * size));
}

const meanAbsDiff = (a: Buffer, b: Buffer): number => {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += Math.abs(a[i] - b[i]);
  return sum / a.length;
};

/**
 * The frames a whole render of the storyboard makes, as editly counts them: each clip's duration in frames, less the
 * fade into the next (at most half of either clip); and the title clip's frames (the opening: its fade included).
 */
function editlyFrames(board: Storyboard): { total: number; opening: number } {
  const plan = buildRenderPlan(board, [], (key) => key, { quality: 'draft', videoOnlyPath: '' });
  const { fps } = plan.encoding;
  const frames = plan.clips.map((clip) => Math.round(clip.duration * fps));
  const fades = frames
    .slice(0, -1)
    .map((n, i) => Math.floor(Math.min(Math.min(n, frames[i + 1]) / 2, Math.round(plan.transitionSeconds * fps))));
  return { total: frames.reduce((a, b) => a + b, 0) - fades.reduce((a, b) => a + b, 0), opening: frames[0] };
}

describe('the whole pipeline', () => {
  let h: Harness;
  let customer: { orgId: string; key: string };
  /** Every speech engine run of the voice stage, counted as it happens (the real provider, wrapped). */
  const engineRuns: Array<{ text: string; language: string }> = [];

  beforeAll(async () => {
    h = await startHarness({
      render: 'worker',
      config: { ...CHECK_NOT_THE_SUBJECT, rateLimits: limits, videoTargetSeconds: 10, captureMaxShots: 2 },
    });
    customer = await h.newCustomer('growth');
    const speech = (h.worker.getLocalService('voice') as unknown as { speech: SpeechProvider }).speech;
    const synthesize = speech.synthesize.bind(speech);
    speech.synthesize = (req) => {
      engineRuns.push({ text: req.text, language: req.language });
      return synthesize(req);
    };
  }, 120_000);
  afterAll(async () => {
    await h?.stop();
  });

  test('variants 2 in en and ja: a and b per language open differently, from the page; shared scenes spoken once; each document readable, one editable', async () => {
    const before = await usedThisMonth(h, customer.key);
    const created = await h.request('POST', '/api/v1/campaigns', {
      key: customer.key,
      body: { url: h.pageUrl, languages: ['en', 'ja'], platforms: ['tiktok'], quality: 'draft', variants: 2 },
    });
    expect(created.status).toBe(201);
    const id: string = created.body.campaign_id;
    const campaign = await untilSettled(h, id, customer.key, 600_000);
    expect(campaign.status).toBe('review');
    expect(await usedThisMonth(h, customer.key)).toBe(before + 1);
    expect(campaign.videos.map((v) => `${v.language}/${v.platform}/${String(v.variant)}/${v.status}`)).toEqual([
      'en/tiktok/a/ready',
      'en/tiktok/b/ready',
      'ja/tiktok/a/ready',
      'ja/tiktok/b/ready',
    ]);
    // Each variant has an opening of its own: no video says it repeats a's (opening_not_distinct).
    expect(campaign.videos.map((v) => v.warnings)).toEqual([[], [], [], []]);
    const recorded = await h.sql<{ variant: string; opening_repeated: boolean }>(
      'SELECT variant, opening_repeated FROM videos WHERE campaign_id = $1 ORDER BY language, variant',
      [id],
    );
    expect(recorded.map((r) => [r.variant, r.opening_repeated])).toEqual([
      ['a', false],
      ['b', false],
      ['a', false],
      ['b', false],
    ]);

    const boards = new Map(
      (await h.call<Array<{ video_id: string; document: Storyboard }>>('voice.storyboards', { campaign_id: id })).map((row) => [
        row.video_id,
        row.document,
      ]),
    );
    const pages: Record<string, string> = { en: await pageText(h.site.url('/')), ja: await pageText(h.site.url('/ja/')) };
    for (const language of ['en', 'ja']) {
      const [a, b] = campaign.videos.filter((v) => v.language === language).map((v) => boards.get(v.id)!);
      expect([a.variant ?? 'a', b.variant]).toEqual(['a', 'b']);
      const said = (board: Storyboard) => board.scenes[0].narration.map((n) => n.text).join(' ');
      // The openings say different things; variant b's is drawn from the page, in its own words.
      expect(a.scenes[0].kind).toBe('title');
      expect(said(a)).not.toBe(said(b));
      expect(a.scenes[0].audioKey).not.toBe(b.scenes[0].audioKey);
      const words = contentWords(said(b), language);
      expect(words.length).toBeGreaterThan(0);
      for (const word of words)
        expect({ language, word, onPage: pages[language].includes(word) }).toEqual({ language, word, onPage: true });
      // The rest is the same video: the shared scenes' audio is the same files, spoken once.
      expect(b.scenes.slice(1).map((s) => [s.audioKey, s.durationSeconds])).toEqual(
        a.scenes.slice(1).map((s) => [s.audioKey, s.durationSeconds]),
      );
      expect(a.narrationKey).not.toBe(b.narrationKey);
      // Each shared scene's words were spoken once for the language, not once per variant: every run of its own
      // language's voice (a Latin name inside Japanese is the English voice's, and recurs) went to the engine once.
      for (const scene of a.scenes.slice(1)) {
        for (const segment of scene.narration) {
          for (const run of speechRuns(segment.text, segment.language).filter((r) => r.language === segment.language)) {
            const spoken = engineRuns.filter((r) => r.language === run.language && r.text === run.text).length;
            expect({ run: run.text, spoken }).toEqual({ run: run.text, spoken: 1 });
          }
        }
      }
    }

    // The videos: each variant's picture after its opening is the same frames (rendered once, each opening joined to it),
    // each as long as its own narration, in the frames a whole render makes; its captions its own narration's.
    const fetchBytes = async (link: string): Promise<Buffer> => {
      const url = link.replace(h.config.publicBaseUrl, h.baseUrl);
      // Once more on a connection the server closed as it was reused (keep-alive), as a download client would.
      const res = await fetch(url).catch(() => fetch(url));
      expect(res.status).toBe(200);
      return Buffer.from(await res.arrayBuffer());
    };
    const { fps } = ENCODING.draft;
    for (const language of ['en', 'ja']) {
      const [a, b] = campaign.videos.filter((v) => v.language === language);
      const [boardA, boardB] = [boards.get(a.id)!, boards.get(b.id)!];
      const { width, height } = { width: boardA.frame.width / 2, height: boardA.frame.height / 2 };
      const [framesA, framesB] = await Promise.all([a, b].map(async (v) => grayFrames(await fetchBytes(v.file_url), width, height)));
      const [countA, countB] = [editlyFrames(boardA), editlyFrames(boardB)];
      expect({ language, a: framesA.length, b: framesB.length }).toEqual({ language, a: countA.total, b: countB.total });
      for (const [video, board] of [
        [a, boardA],
        [b, boardB],
      ] as const) {
        expect(Math.abs(Number(video.duration_seconds) - board.totalSeconds)).toBeLessThanOrEqual(1.5 / fps);
        expect(
          Math.abs(
            board.totalSeconds - boardA.scenes.slice(1).reduce((sum, s) => sum + s.durationSeconds, 0) - board.scenes[0].durationSeconds,
          ),
        ).toBeLessThan(0.01);
      }
      const afterA = framesA.slice(countA.opening);
      const afterB = framesB.slice(countB.opening);
      expect(afterB.length).toBe(afterA.length);
      const differing = afterA.map((frame, i) => meanAbsDiff(frame, afterB[i])).filter((d) => d > 0).length;
      expect({ language, differing }).toEqual({ language, differing: 0 });
      // The openings themselves differ (their headlines), mid-title.
      expect(meanAbsDiff(framesA[Math.floor(countA.opening / 2)], framesB[Math.floor(countB.opening / 2)])).toBeGreaterThan(1);
      // Captions: each video's SubRip ends with its own narration, its shared cues those of a moved by the difference in
      // the openings' lengths; the opening's cues are its own.
      const [srtA, srtB] = await Promise.all(
        [a, b].map(async (v) => parseSrtStrict((await fetchBytes(String(v.captions_srt_url))).toString('utf8'))),
      );
      const [openA, openB] = [boardA.scenes[1].startSeconds, boardB.scenes[1].startSeconds];
      expect(srtA.at(-1)!.end).toBeLessThanOrEqual(boardA.totalSeconds + 0.001);
      expect(srtB.at(-1)!.end).toBeLessThanOrEqual(boardB.totalSeconds + 0.001);
      expect(srtB.at(-1)!.end - srtA.at(-1)!.end).toBeCloseTo(openB - openA, 2);
      const shared = (cues: typeof srtA, from: number) =>
        cues.filter((c) => c.start >= from - 0.001).map((c) => [c.text, c.start - from, c.end - from]);
      const [sharedA, sharedB] = [shared(srtA, openA), shared(srtB, openB)];
      expect(sharedB.map(([text]) => text)).toEqual(sharedA.map(([text]) => text));
      sharedB.forEach(([, start, end], i) => {
        expect(Math.abs(Number(start) - Number(sharedA[i][1]))).toBeLessThanOrEqual(0.002);
        expect(Math.abs(Number(end) - Number(sharedA[i][2]))).toBeLessThanOrEqual(0.002);
      });
      expect(srtA.filter((c) => c.start < openA).map((c) => c.text)).not.toEqual(srtB.filter((c) => c.start < openB).map((c) => c.text));
    }

    // Each video's document is readable, with its variant; one is edited (its headline) and renders at revision 2.
    const documentPath = (video: string) => `/api/v1/campaigns/${id}/videos/${video}/document`;
    const documents = await Promise.all(campaign.videos.map((v) => h.request('GET', documentPath(v.id), { key: customer.key })));
    for (const read of documents) expect(read.status).toBe(200);
    expect(documents.map((read) => read.body.document.variant)).toEqual(['a', 'b', 'a', 'b']);
    expect(documents[0].body.document.scenes[0].narration).not.toBe(documents[1].body.document.scenes[0].narration);
    const edited = campaign.videos[1];
    const document = documents[1].body.document;
    const put = await h.request('PUT', documentPath(edited.id), {
      key: customer.key,
      body: { ...document, scenes: document.scenes.map((s: { id: string }, n: number) => (n === 0 ? { ...s, headline: 'VARIANT B' } : s)) },
    });
    expect(put.status).toBe(202);
    const done = await waitFor(
      () => h.request('GET', `/api/v1/campaigns/${id}`, { key: customer.key }),
      (res) => res.body.videos.find((v: { id: string }) => v.id === edited.id).file_revision === 2,
      300_000,
      500,
    );
    expect(done.body.videos.map((v: { variant: string; revision: number }) => `${v.variant}${v.revision}`)).toEqual([
      'a1',
      'b2',
      'a1',
      'b1',
    ]);
    // An edit is no new campaign.
    expect(await usedThisMonth(h, customer.key)).toBe(before + 1);
  }, 900_000);
});
