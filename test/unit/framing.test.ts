/**
 * The crop around a shot's content (lib/render/framing.ts) and the layers it is laid out between
 * (lib/render/overlay-layout.ts): the content's full width stays in frame through the zoom, the whole page
 * picture stays between the headline band and the caption box, the page's type is legible where it can be.
 */
import {
  contentWithin,
  cutsContent,
  endRegionAt,
  frameShot,
  KEN_BURNS_ZOOM,
  lowestBlankRow,
  MAX_UPSCALE,
  MIN_TEXT_SHARE,
  PAGE_PAD_CSS,
  renderedTextPx,
  safeZoneFor,
  SIDE_MARGIN,
  typeScale,
  WHOLE_MIN_SHARE,
  type Framing,
  type ShotContent,
} from '../../lib/render/framing';
import {
  captionBoxHeight,
  captionLayout,
  estimateEms,
  headlineLayout,
  MAX_CAPTION_LINES,
  pageZone,
  screenLayout,
  uiInsetsFor,
  type OverlayFrame,
} from '../../lib/render/overlay-layout';
import { buildRenderPlan } from '../../lib/render/plan';
import type { Storyboard } from '../../lib/campaign/storyboard';
import { PLATFORM_NAMES, PLATFORMS, type PlatformName } from '../../config/catalog';

const TIKTOK = { width: 1080, height: 1920 };
const YOUTUBE = { width: 1920, height: 1080 };
const SQUARE = { width: 1080, height: 1080 };
const VERTICAL: PlatformName[] = ['tiktok', 'instagram_reels', 'youtube_shorts'];

/** A shot's picture in the frame at zoom z (1 … 1 + KEN_BURNS_ZOOM, about the frame's centre), frame pixels. */
function inFrameAt(
  framing: Framing,
  box: { x: number; y: number; width: number; height: number },
  frame: { width: number; height: number },
  z: number,
) {
  const { region, scale, at } = framing;
  const toFrame = (x: number, y: number) => ({
    x: frame.width / 2 + (at.x + (x - region.x) * scale - frame.width / 2) * z,
    y: frame.height / 2 + (at.y + (y - region.y) * scale - frame.height / 2) * z,
  });
  const topLeft = toFrame(box.x, box.y);
  const bottomRight = toFrame(box.x + box.width, box.y + box.height);
  return { left: topLeft.x, right: bottomRight.x, top: topLeft.y, bottom: bottomRight.y };
}
const zooms = Array.from({ length: 11 }, (_, i) => 1 + (KEN_BURNS_ZOOM * i) / 10);
/** Where the content lands in the frame at the zoom's closest point. */
const contentInFrameAtZoom = (shot: ShotContent, frame: { width: number; height: number }, framing = frameShot(shot, frame)) =>
  inFrameAt(framing, contentWithin(shot), frame, 1 + KEN_BURNS_ZOOM);

const desktopSection: ShotContent = { width: 1440, height: 900, pixelRatio: 1, content: { x: 120, y: 210, width: 1200, height: 480 } };
const phoneSection: ShotContent = { width: 780, height: 1688, pixelRatio: 2, content: { x: 40, y: 300, width: 700, height: 1100 } };
const tallDesktop: ShotContent = { width: 1440, height: 3000, pixelRatio: 1, content: { x: 220, y: 40, width: 1000, height: 2900 } };
const fromTop: ShotContent = { width: 1440, height: 900, pixelRatio: 1, content: { x: 170, y: 0, width: 1100, height: 900 } };
const shortPhone: ShotContent = { width: 780, height: 1688, pixelRatio: 2, content: { x: 40, y: 700, width: 700, height: 300 } };
const SHOTS: Array<[string, ShotContent]> = [
  ['a desktop section', desktopSection],
  ['a phone section', phoneSection],
  ['a tall desktop page', tallDesktop],
  ['a section shot from its very top', fromTop],
  ['a short phone section', shortPhone],
  ['a documentation page with its type measured', { ...tallDesktop, textPx: 14 }],
];

describe('frameShot: the content’s lines whole', () => {
  it.each([
    ['desktop on 16:9', desktopSection, YOUTUBE],
    ['desktop on 9:16', desktopSection, TIKTOK],
    ['desktop on 1:1', desktopSection, SQUARE],
    ['phone on 9:16', phoneSection, TIKTOK],
    ['phone on 1:1', phoneSection, SQUARE],
    ['phone on 16:9', phoneSection, YOUTUBE],
  ])('%s keeps the content’s whole width inside the frame, with a margin, at the closest zoom', (_name, shot, frame) => {
    const { left, right } = contentInFrameAtZoom(shot, frame);
    expect(left).toBeGreaterThanOrEqual(frame.width * SIDE_MARGIN * 0.99);
    expect(right).toBeLessThanOrEqual(frame.width * (1 - SIDE_MARGIN * 0.99));
  });

  it('crops inside the image, around the content and a little of the page', () => {
    for (const [, shot] of SHOTS) {
      for (const frame of [TIKTOK, YOUTUBE, SQUARE]) {
        const { region } = frameShot(shot, frame);
        const content = contentWithin(shot);
        expect(region.x).toBeGreaterThanOrEqual(0);
        expect(region.y).toBeGreaterThanOrEqual(0);
        expect(region.x + region.width).toBeLessThanOrEqual(shot.width);
        expect(region.y + region.height).toBeLessThanOrEqual(shot.height);
        // Never cut across the content's lines: its whole width is in the region, and its top.
        expect(region.x).toBeLessThanOrEqual(content.x);
        expect(region.x + region.width).toBeGreaterThanOrEqual(content.x + content.width);
        expect(region.y).toBeLessThanOrEqual(content.y);
      }
    }
  });

  it('shows the backdrop at the sides rather than cut a phone page whose content runs near its edges', () => {
    const { region, scale, at } = frameShot(phoneSection, TIKTOK);
    expect(region.x).toBeLessThanOrEqual(phoneSection.content.x);
    expect(region.x + region.width).toBeGreaterThanOrEqual(phoneSection.content.x + phoneSection.content.width);
    expect(at.x).toBeGreaterThan(0);
    expect(at.x + region.width * scale).toBeLessThan(TIKTOK.width);
  });

  it('zooms in on a narrow column rather than showing the whole screenshot small', () => {
    const column: ShotContent = { width: 1440, height: 900, pixelRatio: 1, content: { x: 420, y: 200, width: 600, height: 300 } };
    const { region, scale } = frameShot(column, YOUTUBE);
    expect(region.width).toBeLessThan(1440);
    expect(scale).toBeGreaterThan(YOUTUBE.width / 1440);
    // ... but never past the upscale limit.
    expect(scale).toBeLessThanOrEqual(MAX_UPSCALE);
  });

  it('starts a tall section at its top, just under the headline band, and fills the zone down to the captions', () => {
    const framing = frameShot(tallDesktop, TIKTOK);
    const safe = safeZoneFor(TIKTOK);
    const closest = inFrameAt(framing, framing.region, TIKTOK, 1 + KEN_BURNS_ZOOM);
    expect(framing.region.y).toBeLessThanOrEqual(tallDesktop.content.y);
    expect(closest.top / TIKTOK.height).toBeCloseTo(safe.top, 3);
    expect(closest.bottom / TIKTOK.height).toBeCloseTo(safe.bottom, 3);
    expect(cutsContent(tallDesktop, framing)).toBe(true);
  });

  it('puts a short section’s middle in the middle of the part of the frame the layers leave clear', () => {
    const framing = frameShot(shortPhone, TIKTOK);
    const { top, bottom } = contentInFrameAtZoom(shortPhone, TIKTOK, framing);
    const safe = safeZoneFor(TIKTOK);
    const middle = (top + bottom) / 2 / TIKTOK.height;
    expect(middle).toBeGreaterThan(safe.top);
    expect(middle).toBeLessThan(safe.bottom);
    expect(Math.abs(middle - (safe.top + safe.bottom) / 2)).toBeLessThan(0.03);
    expect(cutsContent(shortPhone, framing)).toBe(false);
  });

  it('falls back to the whole image for a missing or empty content box', () => {
    const empty: ShotContent = { width: 1440, height: 900, pixelRatio: 1, content: { x: 2000, y: 0, width: 10, height: 10 } };
    expect(contentWithin(empty)).toEqual({ x: 0, y: 0, width: 1440, height: 900 });
  });
});

describe('no page under our layers, through the whole zoom', () => {
  const CAPTION_MODES = ['burned', 'words', 'file_only'] as const;
  const HEADLINES = [
    'Connect your data',
    'Every data source you use, connected to your dashboards in minutes, with no engineers and no waiting',
  ];
  const cases = PLATFORM_NAMES.flatMap((platform) =>
    CAPTION_MODES.flatMap((captions) => HEADLINES.map((headline) => ({ platform, captions, headline }))),
  );

  it.each(cases)(
    '$platform, captions $captions, headline “$headline”: every shot’s picture stays between the band and the caption box',
    ({ platform, captions, headline }) => {
      const frame = PLATFORMS[platform];
      const overlay: OverlayFrame = { ...frame, insets: uiInsetsFor(frame, platform) };
      const band = headlineLayout(overlay, headline, 'en')!;
      const captionRow = captionLayout(overlay);
      // The tallest caption box the renderer can draw: two lines, at the full type size.
      const captionTop = captionRow.bottom - captionBoxHeight(captionRow, MAX_CAPTION_LINES);
      const safe = safeZoneFor(frame, { platform, captions, headline });
      for (const [, shot] of SHOTS) {
        const framing = frameShot(shot, frame, KEN_BURNS_ZOOM, safe);
        for (const z of zooms) {
          const picture = inFrameAt(framing, framing.region, frame, z);
          expect(picture.top).toBeGreaterThan(band.box.y + band.box.height);
          if (captions === 'file_only') expect(picture.bottom).toBeLessThanOrEqual(frame.height * (1 - overlay.insets.bottom) + 1e-6);
          else expect(picture.bottom).toBeLessThan(captionTop);
          expect(picture.top).toBeGreaterThanOrEqual(safe.top * frame.height - 1e-6);
          expect(picture.bottom).toBeLessThanOrEqual(safe.bottom * frame.height + 1e-6);
        }
      }
    },
  );

  it('a headline of more lines makes a taller band, and the page starts lower', () => {
    const overlay: OverlayFrame = { ...TIKTOK, insets: uiInsetsFor(TIKTOK, 'tiktok') };
    const [short, long] = HEADLINES.map((h) => headlineLayout(overlay, h, 'en')!);
    expect(short.lines).toHaveLength(1);
    expect(long.lines.length).toBeGreaterThan(1);
    expect(long.box.height).toBeGreaterThan(short.box.height);
    const zones = HEADLINES.map((headline) => safeZoneFor(TIKTOK, { platform: 'tiktok', headline }));
    expect(zones[1].top).toBeGreaterThan(zones[0].top);
    // Without a headline there is no band: the page may start right under the app's top bar.
    expect(safeZoneFor(TIKTOK, { platform: 'tiktok', headline: null }).top).toBeCloseTo(0.08, 3);
  });

  it('without burned captions (file_only) the page may use the caption box’s room', () => {
    for (const platform of PLATFORM_NAMES) {
      const frame = PLATFORMS[platform];
      const burned = safeZoneFor(frame, { platform, captions: 'burned' });
      const filesOnly = safeZoneFor(frame, { platform, captions: 'file_only' });
      expect(filesOnly.bottom).toBeGreaterThan(burned.bottom + 0.05);
      expect(filesOnly.top).toBe(burned.top);
      const tall = [frameShot(tallDesktop, frame, KEN_BURNS_ZOOM, burned), frameShot(tallDesktop, frame, KEN_BURNS_ZOOM, filesOnly)];
      expect(tall[1].region.height).toBeGreaterThan(tall[0].region.height);
    }
  });

  it.each(VERTICAL)('on %s the band and the captions keep out of the app’s own buttons and text', (platform) => {
    const frame = PLATFORMS[platform];
    const overlay: OverlayFrame = { ...frame, insets: uiInsetsFor(frame, platform) };
    expect(overlay.insets).toEqual({ top: 0.08, bottom: 0.2, left: 0.04, right: 0.12 });
    for (const headline of HEADLINES) {
      const { box } = headlineLayout(overlay, headline, 'en')!;
      expect(box.y).toBeGreaterThanOrEqual(0.08 * frame.height);
      expect(box.x).toBeGreaterThanOrEqual(0.04 * frame.width - 1e-6);
      expect(box.x + box.width).toBeLessThanOrEqual(0.88 * frame.width + 1e-6);
    }
    const captions = captionLayout(overlay);
    // The widest box: its text at the widest, padded.
    const halfWidest = captions.textWidth / 2 + captions.pad;
    expect(captions.bottom).toBeLessThanOrEqual(0.8 * frame.height);
    expect(captions.centerX + halfWidest).toBeLessThanOrEqual(0.88 * frame.width + 1e-6);
    expect(captions.centerX - halfWidest).toBeGreaterThanOrEqual(0.04 * frame.width - 1e-6);
  });

  it('on 16:9 and 1:1 the layers stay where they were drawn before (no app UI reserved)', () => {
    for (const platform of ['youtube', 'linkedin'] as const) {
      const frame = PLATFORMS[platform];
      const overlay: OverlayFrame = { ...frame, insets: uiInsetsFor(frame, platform) };
      const min = Math.min(frame.width, frame.height);
      expect(headlineLayout(overlay, 'Connect your data', 'en')!.box).toMatchObject({
        x: frame.width * 0.04,
        y: frame.height * 0.05 - min * 0.025,
      });
      expect(captionLayout(overlay).bottom).toBeCloseTo(frame.height * 0.9 + min * 0.02, 6);
    }
  });

  it('the page zone lies between the band and the caption box with a gap of backdrop', () => {
    const overlay: OverlayFrame = { ...YOUTUBE, insets: uiInsetsFor(YOUTUBE, 'youtube') };
    const headline = headlineLayout(overlay, 'Connect your data', 'en');
    const zone = pageZone(overlay, { headline, captions: true });
    const captions = captionLayout(overlay);
    expect(zone.top).toBeGreaterThan(headline!.box.y + headline!.box.height);
    expect(zone.bottom).toBeLessThan(captions.bottom - captionBoxHeight(captions, 2));
  });

  it('breaks a headline no narrower than its type: a line estimated to fit is not wider than the box', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { createCanvas } = require('canvas') as typeof import('canvas');
    const context = createCanvas(10, 10).getContext('2d');
    const samples: Array<[string, string]> = [
      ['Noto Sans', 'Connect your data sources in minutes'],
      ['Noto Sans', 'SINGLE SIGN-ON, AUDIT LOGS AND ENCRYPTION'],
      ['Noto Sans', 'Подключите данные за несколько минут'],
      ['Noto Sans CJK KR', '몇 분 만에 데이터 소스를 연결하세요'],
      ['Noto Sans CJK JP', 'あらゆるデータソースを数分で接続'],
    ];
    for (const [font, text] of samples) {
      context.font = `bold 100px "${font}"`;
      expect({ text, estimate: estimateEms(text) >= (context.measureText(text).width / 100) * 0.97 }).toEqual({ text, estimate: true });
    }
  });
});

describe('legible type', () => {
  const minPx = (frame: { width: number; height: number }) => MIN_TEXT_SHARE * Math.min(frame.width, frame.height);
  const byWidth = (shot: ShotContent, frame: { width: number; height: number }) =>
    Math.min((frame.width * (1 - 2 * SIDE_MARGIN)) / (1 + KEN_BURNS_ZOOM) / contentWithin(shot).width, MAX_UPSCALE);

  it('without a measured type size, frames as large as the content’s width allows', () => {
    const framing = frameShot(tallDesktop, YOUTUBE);
    expect(framing.scale).toBeCloseTo(byWidth(tallDesktop, YOUTUBE), 9);
    expect(renderedTextPx(tallDesktop, framing)).toBeNull();
  });

  it('shows a section whole, a little smaller, when its type stays legible so', () => {
    // A desktop section a little taller than the 16:9 zone at the width's scale.
    const section: ShotContent = { ...desktopSection, content: { ...desktopSection.content, height: 540 }, textPx: 20 };
    const measured = frameShot(section, YOUTUBE);
    const unmeasured = frameShot({ ...section, textPx: undefined }, YOUTUBE);
    expect(cutsContent(section, unmeasured)).toBe(true);
    expect(cutsContent(section, measured)).toBe(false);
    expect(measured.scale).toBeLessThan(unmeasured.scale);
    expect(measured.scale).toBeGreaterThanOrEqual(WHOLE_MIN_SHARE * unmeasured.scale);
    expect(renderedTextPx(section, measured)!).toBeGreaterThanOrEqual(minPx(YOUTUBE));
  });

  it.each([
    ['whose type would be too small whole (a documentation page on 16:9)', { ...tallDesktop, textPx: 14 }, YOUTUBE],
    [
      'that would shrink to a narrow card whole (a phone page on 9:16)',
      { ...phoneSection, content: { ...phoneSection.content, height: 1388 }, textPx: 16 },
      TIKTOK,
    ],
  ] as Array<[string, ShotContent, { width: number; height: number }]>)(
    'a section %s: a shorter region from the content’s top, lines whole, the largest type, at least the minimum',
    (_name, shot, frame) => {
      const framing = frameShot(shot, frame);
      const content = contentWithin(shot);
      expect(framing.scale).toBeCloseTo(byWidth(shot, frame), 9);
      expect(renderedTextPx(shot, framing)!).toBeGreaterThanOrEqual(minPx(frame));
      // The full width of the content (never cut through a line), its top kept, the height cut.
      expect(framing.region.x).toBeLessThanOrEqual(content.x);
      expect(framing.region.x + framing.region.width).toBeGreaterThanOrEqual(content.x + content.width);
      expect(framing.region.y).toBeLessThanOrEqual(content.y);
      expect(framing.region.y).toBeGreaterThanOrEqual(content.y - PAGE_PAD_CSS * shot.pixelRatio);
      expect(cutsContent(shot, framing)).toBe(true);
    },
  );

  it('never enlarges past MAX_UPSCALE, nor past the content’s width, to reach the minimum', () => {
    const tiny: ShotContent = {
      width: 1440,
      height: 2000,
      pixelRatio: 1,
      content: { x: 520, y: 100, width: 400, height: 1800 },
      textPx: 6,
    };
    expect(frameShot(tiny, YOUTUBE).scale).toBe(MAX_UPSCALE);
    const wide: ShotContent = { ...tallDesktop, content: { ...tallDesktop.content, x: 20, width: 1400 }, textPx: 10 };
    const wideFraming = frameShot(wide, YOUTUBE);
    const { left, right } = contentInFrameAtZoom(wide, YOUTUBE, wideFraming);
    expect(renderedTextPx(wide, wideFraming)!).toBeLessThan(minPx(YOUTUBE));
    expect(left).toBeGreaterThanOrEqual(YOUTUBE.width * SIDE_MARGIN * 0.99);
    expect(right).toBeLessThanOrEqual(YOUTUBE.width * (1 - SIDE_MARGIN * 0.99));
  });
});

describe('a desktop capture on 9:16 (no phone layout)', () => {
  const desktops: ShotContent[] = [
    desktopSection,
    tallDesktop,
    fromTop,
    { ...tallDesktop, textPx: 16 },
    { width: 1440, height: 900, pixelRatio: 1, content: { x: 0, y: 0, width: 1440, height: 900 } },
  ];
  it.each(VERTICAL)('on %s fits the content box’s full width, lines whole, and sits between the layers', (platform) => {
    const frame = PLATFORMS[platform];
    const safe = safeZoneFor(frame, { platform });
    for (const shot of desktops) {
      const framing = frameShot(shot, frame, KEN_BURNS_ZOOM, safe);
      const content = contentWithin(shot);
      expect(framing.region.x).toBeLessThanOrEqual(content.x);
      expect(framing.region.x + framing.region.width).toBeGreaterThanOrEqual(content.x + content.width);
      for (const z of zooms) {
        const box = inFrameAt(framing, content, frame, z);
        expect(box.left).toBeGreaterThanOrEqual(frame.width * SIDE_MARGIN * 0.99);
        expect(box.right).toBeLessThanOrEqual(frame.width * (1 - SIDE_MARGIN * 0.99));
        const picture = inFrameAt(framing, framing.region, frame, z);
        expect(picture.top).toBeGreaterThanOrEqual(safe.top * frame.height - 1e-6);
        expect(picture.bottom).toBeLessThanOrEqual(safe.bottom * frame.height + 1e-6);
      }
      // The smaller type is accepted: the scale is the width's, even when the type is measured and too small.
      expect(framing.scale).toBeCloseTo((frame.width * (1 - 2 * SIDE_MARGIN)) / (1 + KEN_BURNS_ZOOM) / content.width, 9);
    }
  });
});

describe('a cut between two lines', () => {
  it('finds the lowest row without ink', () => {
    const width = 4;
    const rows = new Uint8Array([
      ...[255, 255, 255, 255], // blank
      ...[255, 20, 30, 255], // a line
      ...[250, 252, 255, 249], // blank (within the tolerance)
      ...[255, 10, 255, 255], // the next line, cut
      ...[255, 12, 255, 255],
    ]);
    expect(lowestBlankRow(rows, width)).toBe(2);
    expect(lowestBlankRow(rows.subarray(12), width)).toBeNull();
  });

  it('ends the region there, its top in place', () => {
    const framing = frameShot(tallDesktop, TIKTOK);
    const bottom = framing.region.y + framing.region.height - 30;
    const cut = endRegionAt(framing, bottom);
    expect(cut.region).toEqual({ ...framing.region, height: framing.region.height - 30 });
    expect(cut.at).toEqual(framing.at);
    expect(endRegionAt(framing, framing.region.y + framing.region.height + 10)).toBe(framing);
  });
});

describe('the render plan', () => {
  it('carries the platform’s app UI and the caption mode to the renderer and its framing', () => {
    const storyboard = (platform: PlatformName, captions?: 'burned' | 'file_only'): Storyboard => ({
      version: 1,
      campaignId: 'c',
      videoId: 'v',
      language: 'en',
      platform,
      frame: { ...PLATFORMS[platform] },
      direction: 'ltr',
      font: 'Noto Sans',
      brand: { name: 'Acme', domain: 'acme.test', primary: '#1f2937', background: '#ffffff', text: '#111827', palette: [], logoUrl: null },
      scriptSource: 'localized_page',
      scenes: [
        {
          index: 0,
          kind: 'screen',
          screenshotKey: 's.png',
          onScreenText: 'Connect your data',
          narration: [],
          audioKey: 'a.wav',
          startSeconds: 0,
          durationSeconds: 3,
        },
      ],
      narrationKey: 'n.wav',
      captionsKey: 'c.vtt',
      totalSeconds: 3,
      closing: { ctaLabel: 'Start', domain: 'acme.test' },
      ...(captions ? { captions } : {}),
    });
    const plan = (platform: PlatformName, captions?: 'burned' | 'file_only') =>
      buildRenderPlan(storyboard(platform, captions), [], (k) => k, { quality: 'draft', videoOnlyPath: 'p.mp4' });
    expect(plan('tiktok')).toMatchObject({ uiInsets: { top: 0.08, bottom: 0.2, right: 0.12 }, captions: 'burned' });
    expect(plan('youtube', 'file_only')).toMatchObject({ uiInsets: { top: 0, bottom: 0, left: 0, right: 0 }, captions: 'file_only' });
    // The zone the renderer frames a clip's page in is safeZoneFor's for the same scene, at the draft's size.
    const draft = plan('tiktok');
    const { zone } = screenLayout(draft, draft.clips[0]);
    const safe = safeZoneFor(draft, { platform: 'tiktok', headline: 'Connect your data' });
    expect(zone.top / draft.height).toBeCloseTo(safe.top, 9);
    expect(zone.bottom / draft.height).toBeCloseTo(safe.bottom, 9);
    const filesOnly = plan('tiktok', 'file_only');
    expect(screenLayout(filesOnly, filesOnly.clips[0]).captions).toBeNull();
  });
});

describe('typeScale', () => {
  it('prefers the phone capture on a square frame: its type comes out larger', () => {
    expect(typeScale(phoneSection, SQUARE)).toBeGreaterThan(typeScale(desktopSection, SQUARE));
  });
});
