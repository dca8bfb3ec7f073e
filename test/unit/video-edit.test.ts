/**
 * What an edit of a video document may change (decisions §12, lib/campaign/video-edit.ts): the PUT's schema is the
 * document's own with its read-only members optional (requestSchemaOf); readEdit refuses, naming the field, what a
 * schema cannot say; keepsAudio decides which scenes are spoken again (words or voice changed, or word timings missing).
 */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { StoryboardScene } from '../../lib/campaign/storyboard';
import { buildVideoDocument, type VideoDocument } from '../../lib/campaign/video-document';
import { durationRefusal, keepsAudio, readEdit, type VideoEditInput } from '../../lib/campaign/video-edit';
import { EditVideoDocumentParams, requestSchemaOf, UniversalVideoJsonSchema } from '../../lib/http/api-schemas';
import { storageKeys } from '../../lib/storage/keys';
import { storyboardOf } from '../support/storyboard';

const CAMPAIGN = '11111111-2222-4333-8444-555555555555';
const VIDEO = '66666666-7777-4888-8999-aaaaaaaaaaaa';
const key = (viewport: 'desktop' | 'mobile', index: number) => storageKeys.screenshot(CAMPAIGN, 'source', viewport, index);

function scene(index: number, kind: StoryboardScene['kind'], text: string, screen: string | null = null): StoryboardScene {
  return {
    index,
    id: `scene_${index}`,
    kind,
    screenshotKey: screen,
    onScreenText: `Headline ${index}`,
    narration: [{ text, language: 'en' }],
    audioKey: `a${index}.wav`,
    startSeconds: index * 4,
    durationSeconds: 4,
  };
}

const current: VideoDocument = buildVideoDocument({
  storyboard: storyboardOf(
    [
      scene(0, 'title', 'Meet Acme.'),
      scene(1, 'screen', 'Dashboards your team reads.', key('desktop', 0)),
      scene(2, 'screen', 'Pricing that scales.', key('desktop', 1)),
      scene(3, 'closing', 'Try it today.'),
    ],
    { campaignId: CAMPAIGN, videoId: VIDEO },
  ),
  captures: [
    {
      variant: 'source',
      language: 'en',
      screenshots: [0, 1].map((index) => ({ key: key('desktop', index), viewport: 'desktop' as const, index, width: 2560, height: 1440 })),
    },
  ],
  options: null,
  defaultQuality: 'draft',
  screenUrl: (id) => `https://cdn.test/${id}.png`,
});

const edit = (change: Partial<VideoEditInput> = {}): VideoEditInput => ({ ...current, ...change });
const withScenes = (scenes: VideoEditInput['scenes']) => edit({ scenes });

test('the PUT takes the document as read, and as a client may trim it: read-only members optional, at every depth', () => {
  const ajv = new Ajv({ strict: false });
  addFormats(ajv);
  const validate = ajv.compile(EditVideoDocumentParams);
  expect(validate({ ...current, id: CAMPAIGN })).toBe(true);
  const { campaign_id: _c, video_id: _v, language: _l, platform: _p, frame: _f, assets: _a, ...editable } = current;
  const trimmed = {
    ...editable,
    id: CAMPAIGN,
    video_id: VIDEO,
    voice: { id: current.voice.id },
    brand: { primary_color: '#ff0000' },
    scenes: current.scenes.map(({ start_seconds: _s, duration_seconds: _d, ...rest }) => rest),
  };
  expect(validate(trimmed)).toBe(true);
  // Not read-only, so still required: a scene's narration, the revision.
  const { revision: _r, ...noRevision } = trimmed;
  expect(validate(noRevision)).toBe(false);
  expect(validate({ ...trimmed, scenes: [{ ...trimmed.scenes[1], narration: undefined }] })).toBe(false);
  // The published schema itself is untouched: the document as served keeps every member required.
  expect(UniversalVideoJsonSchema.required).toContain('assets');
  expect(requestSchemaOf(UniversalVideoJsonSchema).required).not.toContain('assets');
});

test('readEdit keeps what may change: narration, headlines, order, screens, voice, captions, quality, colour', () => {
  const [title, first, second, closing] = current.scenes;
  const result = readEdit(
    current,
    edit({
      captions: 'words',
      quality: 'full',
      brand: { primary_color: '#FF0000', logo_url: null },
      scenes: [
        title,
        { ...second, narration: '  Pricing\n that   scales. ', headline: ' Plans ' },
        { ...first, screen: 'source-desktop-1' },
        { id: 'mine-1', kind: 'screen', narration: 'A new scene.', headline: '', screen: 'source-desktop-0' },
        closing,
      ],
    }),
  );
  expect(result).toEqual({
    voice_id: current.voice.id,
    captions: 'words',
    quality: 'full',
    primary_color: '#ff0000',
    scenes: [
      { id: 'scene_0', kind: 'title', narration: 'Meet Acme.', headline: 'Headline 0', screen: null },
      { id: 'scene_2', kind: 'screen', narration: 'Pricing that scales.', headline: 'Plans', screen: 'source-desktop-1' },
      { id: 'scene_1', kind: 'screen', narration: 'Dashboards your team reads.', headline: 'Headline 1', screen: 'source-desktop-1' },
      { id: 'mine-1', kind: 'screen', narration: 'A new scene.', headline: '', screen: 'source-desktop-0' },
      { id: 'scene_3', kind: 'closing', narration: 'Try it today.', headline: 'Headline 3', screen: null },
    ],
  });
  // The title and the closing may go; a video of screens alone is a video.
  expect(readEdit(current, withScenes([current.scenes[1]])).scenes.map((s) => s.id)).toEqual(['scene_1']);
});

test('readEdit refuses, naming the field, what the schema cannot say', () => {
  const [title, first, second, closing] = current.scenes;
  const refusals: Array<[VideoEditInput, RegExp]> = [
    [
      withScenes([title, { ...first, screen: 'source-desktop-7' }, closing]),
      /^scenes\[1\]\.screen: "source-desktop-7" is not one of this campaign's screenshots/,
    ],
    [withScenes([title, { ...first, narration: ' \n ' }, closing]), /^scenes\[1\]\.narration: a screen scene says something/],
    [withScenes([first, title, closing]), /^scenes\[1\]\.kind: the title scene can only be the first/],
    [withScenes([title, closing, first]), /^scenes\[1\]\.kind: the closing scene can only be the last/],
    [withScenes([title, first, { ...second, id: 'scene_1' }, closing]), /^scenes\[2\]\.id: "scene_1" is given twice/],
    [withScenes([title, { ...first, kind: 'closing', screen: undefined }]), /^scenes\[1\]\.kind: scene "scene_1" is a screen scene/],
    [edit({ language: 'ja' }), /^language: is read-only/],
    [edit({ video_id: CAMPAIGN }), /^video_id: is read-only/],
    [edit({ brand: { primary_color: null, logo_url: 'https://acme.test/logo.png' } }), /^brand\.logo_url: is read-only/],
    [edit({ voice: { id: 'ja-openjtalk-mei' } }), /^voice\.id: "ja-openjtalk-mei" is a ja voice; this video is in en/],
    [edit({ voice: { id: 'nobody' } }), /^voice\.id: "nobody" is not a voice/],
  ];
  for (const [input, message] of refusals) {
    let thrown: { code?: number; type?: string; message?: string } | undefined;
    try {
      readEdit(current, input);
    } catch (err) {
      thrown = err as typeof thrown;
    }
    expect({ code: thrown?.code, type: thrown?.type }).toEqual({ code: 400, type: 'invalid_input' });
    expect(thrown?.message).toMatch(message);
  }
});

test('keepsAudio: the same words in the same voice keep their audio; words captions need the words kept too', () => {
  const base = {
    narration: [
      { text: ' Pricing that ', language: 'en' as const },
      { text: 'scales.', language: 'en' as const },
    ],
  };
  const voices = { base: 'en-rhvoice-clb', edited: 'en-rhvoice-clb' };
  expect(keepsAudio(base, { narration: 'Pricing that scales.' }, voices, 'burned')).toBe(true);
  expect(keepsAudio(base, { narration: 'Pricing that scales!' }, voices, 'burned')).toBe(false);
  expect(keepsAudio(base, { narration: 'Pricing that scales.' }, { ...voices, edited: 'en-flite-slt' }, 'burned')).toBe(false);
  expect(keepsAudio(undefined, { narration: 'Pricing that scales.' }, voices, 'burned')).toBe(false);
  expect(keepsAudio(base, { narration: 'Pricing that scales.' }, voices, 'words')).toBe(false);
  const timed = { ...base, words: [{ text: 'Pricing', start: 0, end: 0.4 }] };
  expect(keepsAudio(timed, { narration: 'Pricing that scales.' }, voices, 'words')).toBe(true);
});

test("an edited video longer than its platform takes is refused with its length and the platform's limit", () => {
  expect(durationRefusal('youtube_shorts', 180)).toBeNull();
  expect(durationRefusal('youtube_shorts', 212.4)).toBe(
    'The edited video would last 212 s, and youtube_shorts takes at most 180 s: shorten the narration and edit again.',
  );
  expect(durationRefusal('tiktok', 212.4)).toBeNull();
});
