/**
 * The dashboard's words (lib/dashboard/words.ts) and its New campaign form (lib/dashboard/create-form.ts): every
 * state, step, platform and option has words that are not its internal name; the form has a field for every property
 * of the API's create schema, and what it posts becomes the body the API takes, only the chosen languages' voices.
 */
import { CAPTION_MODES, PLATFORM_NAMES, RENDER_QUALITIES, SUPPORTED_LANGUAGES } from '../../config/catalog';
import { voiceIdsFor } from '../../config/voices';
import { CAMPAIGN_STATES, GENERATING_STATES, STAGE_ACTIONS, nextState } from '../../lib/campaign/states';
import { createFormView, fieldKind, optionsSummary, readCreateForm, FIELD_WORDS } from '../../lib/dashboard/create-form';
import { renderView } from '../../lib/dashboard/render';
import { CreateCampaignBody } from '../../lib/http/api-schemas';
import {
  captionsLabel,
  defaultVoiceOf,
  languageName,
  platformLabel,
  qualityLabel,
  scriptSourceSentence,
  stateLabel,
  stepLabel,
  voiceLabel,
} from '../../lib/dashboard/words';

test('states, steps, platforms, languages and script sources in a customer’s words', () => {
  for (const state of CAMPAIGN_STATES) expect(stateLabel(state)).not.toBe(state);
  for (const platform of PLATFORM_NAMES) expect(platformLabel(platform)).not.toBe(platform);
  for (const mode of CAPTION_MODES) expect(captionsLabel(mode)).not.toBe(mode);
  for (const quality of RENDER_QUALITIES) expect(qualityLabel(quality)).not.toBe(quality);
  for (const code of SUPPORTED_LANGUAGES) expect(languageName(code)).not.toBe(code);
  expect(platformLabel('instagram_reels')).toBe('Instagram Reels');
  expect(platformLabel('youtube_shorts')).toBe('YouTube Shorts');
  expect(languageName('ja')).toBe('Japanese');
  expect(scriptSourceSentence('localized_page', 'ja')).toBe("From the page's Japanese version");
  expect(scriptSourceSentence('translated', 'ko')).toBe('Translated into Korean');

  const steps = GENERATING_STATES.map((from) =>
    stepLabel({ from_status: from, to_status: nextState(from)!, detail: `${STAGE_ACTIONS[from]} done` }),
  );
  expect(steps).toEqual(['Page captured', 'Page read and scenes chosen', 'Scripts written', 'Voices recorded', 'Videos rendered']);
  expect(stepLabel({ from_status: null, to_status: 'collecting', detail: 'created' })).toBe('Campaign created');
  expect(stepLabel({ from_status: 'voiceover', to_status: 'failed', detail: 'canceled by the customer' })).toBe('Canceled');
  expect(stepLabel({ from_status: 'rendering', to_status: 'failed', detail: 'The renderer gave up.' })).toBe(
    'Failed while rendering videos',
  );
  expect(stepLabel({ from_status: 'review', to_status: 'published', detail: 'published by the customer' })).toBe('Published');
  expect(voiceLabel('ko-espeak')).toBe('Basic Korean voice (eSpeak NG), male; the default');
});

test('the form has a field for every property of the create schema, each in words', () => {
  const names = createFormView(undefined).flatMap((section) => section.fields.map((field) => field.name));
  expect(names.sort()).toEqual(Object.keys(CreateCampaignBody.properties).sort());
  for (const section of createFormView(undefined)) {
    for (const field of section.fields) {
      for (const choice of field.choices ?? []) if (field.name !== 'languages') expect(choice.label).not.toBe(choice.value);
    }
  }
  // A shape it cannot show is an error, not a missing field.
  expect(() => fieldKind('future', { type: 'integer' })).toThrow(/no field for "future"/);
  expect(FIELD_WORDS.voice.section).toBe('videos');
});

test('first shown: the schema’s defaults; a voice picker per language with its samples', () => {
  const fields = createFormView(undefined).flatMap((section) => section.fields);
  const languages = fields.find((field) => field.name === 'languages')!;
  expect(languages.choices!.filter((c) => c.checked).map((c) => c.value)).toEqual(['en', 'ja', 'ko']);
  const voice = fields.find((field) => field.name === 'voice')!;
  const ja = voice.languages!.find((l) => l.code === 'ja')!;
  expect(ja.chosen).toBe(true);
  // The default first (its sample the default voice's), then every other voice of the language.
  expect(ja.voices.map((v) => v.id)).toEqual(['', ...voiceIdsFor('ja').filter((id) => id !== defaultVoiceOf('ja'))]);
  expect(ja.voices[0].sample).toBe(`/dashboard/voices/${defaultVoiceOf('ja')}/sample`);
  expect(ja.voices[0].label).toMatch(/^Default: /);
  expect(voice.languages!.find((l) => l.code === 'de')!.chosen).toBe(false);
});

test('what the form posts becomes the API’s body: every option, only the chosen languages’ voices', () => {
  const { body, error } = readCreateForm({
    url: ' https://acme.example/ ',
    title: 'Acme',
    languages: ['en', 'ja'],
    platforms: 'tiktok',
    'voice.en': 'en-espeak-female',
    'voice.ja': '',
    'voice.de': 'de-espeak',
    captions: 'file_only',
    quality: 'draft',
    'brand.primary_color': '#FF5500',
    'brand.logo_url': 'https://acme.example/logo.png',
    'music.url': 'https://acme.example/theme.mp3',
    'music.volume': '0.3',
    webhook_url: '',
    'metadata.key': ['crm', 'team', ''],
    'metadata.value': ['opp_42', '', ''],
  });
  expect(error).toBeUndefined();
  expect(body).toEqual({
    url: 'https://acme.example/',
    title: 'Acme',
    languages: ['en', 'ja'],
    platforms: ['tiktok'],
    voice: { en: 'en-espeak-female' },
    captions: 'file_only',
    quality: 'draft',
    brand: { primary_color: '#FF5500', logo_url: 'https://acme.example/logo.png' },
    music: { url: 'https://acme.example/theme.mp3', volume: 0.3 },
    metadata: { crm: 'opp_42', team: '' },
  });
  // A volume without its track means nothing: dropped with it. No option chosen: nothing sent.
  expect(readCreateForm({ url: 'acme.example', languages: 'en', platforms: 'tiktok', 'music.volume': '0.5', captions: '' }).body).toEqual({
    url: 'acme.example',
    languages: ['en'],
    platforms: ['tiktok'],
  });
  expect(
    readCreateForm({ url: 'a.example', languages: 'en', platforms: 'tiktok', 'metadata.key': '', 'metadata.value': 'x' }).error,
  ).toMatch(/Metadata: the value "x" has no key/);
  expect(
    readCreateForm({ url: 'a.example', languages: 'en', platforms: 'tiktok', 'music.url': 'u', 'music.volume': 'loud' }).error,
  ).toMatch(/music.volume must be a number/);
  expect(readCreateForm({ url: '', languages: 'en', platforms: 'tiktok' }).error).toMatch(/Page URL is required/);
  // Hook variants: picked among 1–3 (the schema's bounds), 1 (the default) sends nothing, 2 is sent as a number.
  const variants = createFormView(undefined)
    .flatMap((section) => section.fields)
    .find((field) => field.name === 'variants')!;
  expect(variants.kind).toBe('count');
  expect(variants.choices!.map((c) => [c.value, c.label, c.checked])).toEqual([
    ['1', 'One opening', true],
    ['2', '2 variants (A, B)', false],
    ['3', '3 variants (A, B, C)', false],
  ]);
  expect(readCreateForm({ url: 'a.example', languages: 'en', platforms: 'tiktok', variants: '1' }).body).not.toHaveProperty('variants');
  expect(readCreateForm({ url: 'a.example', languages: 'en', platforms: 'tiktok', variants: '2' }).body).toMatchObject({ variants: 2 });
  expect(readCreateForm({ url: 'a.example', languages: 'en', platforms: 'tiktok', variants: '2.5' }).error).toBe(
    'Hook variants must be a whole number.',
  );
  expect(readCreateForm({ url: 'a.example', platforms: 'tiktok' }).error).toMatch(/at least one of the languages/);
});

test('the form as posted is shown again with every value kept, escaped', () => {
  const html = renderView('new-campaign', {
    title: 'New campaign',
    csrf: 't',
    session: { limits: { languagesPerCampaign: 5 }, org_name: 'o', email: 'e', role: 'owner', plan: 'growth' },
    sections: createFormView({ url: '<b>x</b>', languages: 'ja', platforms: 'tiktok', 'metadata.key': 'k"', 'metadata.value': '<i>v</i>' }),
  });
  expect(html).toContain('value="&lt;b&gt;x&lt;/b&gt;"');
  expect(html).toContain('value="k&quot;"');
  expect(html).toContain('value="&lt;i&gt;v&lt;/i&gt;"');
  expect(html).not.toContain('<i>v</i>');
});

test('the options a campaign asked for, listed in words', () => {
  expect(optionsSummary({ voice: { ja: 'ja-espeak' }, captions: 'words', quality: 'draft', metadata: { crm: '42' } })).toEqual([
    { label: 'Voices', value: 'Japanese: Basic Japanese voice (eSpeak NG), male' },
    { label: 'Captions', value: 'Word by word' },
    { label: 'Quality', value: 'Draft' },
    { label: 'Metadata', value: 'crm = 42' },
  ]);
});
