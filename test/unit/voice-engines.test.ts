/**
 * The offline voices with the real engines (Open JTalk + Mei, RHVoice clb, flite, espeak-ng, PocketSphinx; Pico and the
 * other RHVoice voices in voices-pico-rhvoice.test.ts):
 * Japanese kanji are read right (Open JTalk's own reading trace); the product's English voice is understood
 * by a speech recognizer far better than espeak-ng (word error rate, both sides asserted); Chinese stays on
 * espeak-ng's pinyin voice, which never reads a tone digit as an English word; an engine that is not
 * installed hands its language to espeak-ng with a warning. Needs scripts/bootstrap.sh (packages and Mei).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../config';
import { SUPPORTED_LANGUAGES } from '../../config/catalog';
import { DEFAULT_VOICE_ENGINES, parseVoiceEngines, VOICE_OPTIONS, voiceIdsFor } from '../../config/voices';
import { CreateCampaignBody } from '../../lib/http/api-schemas';
import { measureDuration } from '../../lib/voice/audio';
import { FliteProvider, toAscii } from '../../lib/voice/festival';
import { transcribe, wordErrorRate } from '../../lib/voice/intelligibility';
import { OfflineSpeechProvider } from '../../lib/voice/offline';
import { chunks, OpenJTalkProvider } from '../../lib/voice/open-jtalk';
import { createSpeechProvider, EspeakProvider } from '../../lib/voice/tts';
import { type SpeechProvider } from '../../lib/voice/speech';

let dir: string;
const tmp = (name: string) => path.join(dir, name);
/** The product's speech provider on default settings, as the voice service builds it. */
let product: OfflineSpeechProvider;
const warnings: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'voice-engines-'));
  product = createSpeechProvider(loadConfig({}).speech, { warn: (m) => warnings.push(m) }) as OfflineSpeechProvider;
  await product.verify();
});
afterAll(async () => {
  await product.close();
  rmSync(dir, { recursive: true, force: true });
});

test('defaults: Japanese is Open JTalk with Mei, English RHVoice clb, Chinese and Korean espeak-ng; nothing fell back', () => {
  expect(warnings).toEqual([]);
  const voices = Object.fromEntries(product.voices().map((v) => [v.language, `${v.engine} ${v.voice}`]));
  expect(voices).toMatchObject({
    ja: 'open-jtalk mei_normal',
    en: 'rhvoice clb',
    zh: 'espeak cmn-latn-pinyin',
    ko: 'espeak ko',
  });
});

describe('Japanese through Open JTalk', () => {
  const engine = new OpenJTalkProvider();

  test('kanji are read right, by its own reading trace', async () => {
    const words = await engine.readings('本当にこの要約を読むのですか。新しい機能を今日紹介します。');
    const said = Object.fromEntries(words.map((w) => [w.surface, w.pronunciation]));
    expect(said).toMatchObject({
      本当に: 'ホントーニ',
      要約: 'ヨーヤク',
      読む: 'ヨム',
      新しい: 'アタラシイ',
      機能: 'キノー',
      紹介: 'ショーカイ',
    });
    // Every word has a reading in katakana: nothing was skipped or spelled out as a "letter".
    for (const w of words.filter((w) => /\p{Script=Han}/u.test(w.surface))) expect(w.pronunciation).toMatch(/^[\p{Script=Katakana}ー’]+$/u);
  });

  test('the product speaks kanji without a kana step, at the pace of the same text in kana', async () => {
    await product.synthesize({ text: '本日は新しい分析機能を紹介します。', language: 'ja', outFile: tmp('ja-kanji.wav') });
    await product.synthesize({
      text: 'ほんじつはあたらしいぶんせききのうをしょうかいします。',
      language: 'ja',
      outFile: tmp('ja-kana.wav'),
    });
    const kanji = await measureDuration(tmp('ja-kanji.wav'));
    expect(kanji).toBeGreaterThan(1.5);
    expect(Math.abs(kanji - (await measureDuration(tmp('ja-kana.wav')))) / kanji).toBeLessThan(0.15);
  });

  test('text past open_jtalk’s one-line, 1024-byte input is said whole, in parts', async () => {
    const sentence = '今日は新しいダッシュボードを紹介します。';
    const text = Array.from({ length: 18 }, () => sentence).join('\n');
    const parts = chunks(text);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(Buffer.byteLength(part)).toBeLessThanOrEqual(900);
    expect(parts.join('')).toBe(sentence.repeat(18));
    await product.synthesize({ text: sentence, language: 'ja', outFile: tmp('ja-one.wav') });
    await product.synthesize({ text, language: 'ja', outFile: tmp('ja-long.wav') });
    const one = await measureDuration(tmp('ja-one.wav'));
    expect(await measureDuration(tmp('ja-long.wav'))).toBeGreaterThan(one * 18 * 0.85);
  });
});

test('Chinese stays on espeak-ng’s pinyin voice, which never switches to English for a tone digit', async () => {
  // Plain `cmn` in Debian's espeak-ng 1.51 reads its own pinyin tone digits as English words ("hao three").
  const espeak = product.fallback as EspeakProvider;
  expect(espeak.voiceFor('zh')).toBe('cmn-latn-pinyin');
  expect(await espeak.phonemes('你好，欢迎了解我们的新产品功能。今天开始试用三十天。', 'zh')).not.toContain('(en)');
});

describe('English intelligibility (PocketSphinx word error rate)', () => {
  // Plain narration sentences of the kind the script writer produces (no names or acronyms: the recognizer's
  // dictionary has none of them).
  const SENTENCES = [
    'Connect every source in minutes and see your numbers update live.',
    'Dashboards that explain themselves, so your whole team can read them.',
    'Stay secure by default, with single sign on and audit logs.',
    'Set an alert and we will tell you when something changes.',
    'Your data stays in the region you choose.',
    'Connect your billing system and see revenue by product.',
  ];
  const BOUND = 0.4;

  /** The sentences as one narration text, said by `speech` into one WAV (as a scene's narration is). */
  async function say(speech: SpeechProvider, name: string): Promise<string> {
    await speech.synthesize({ text: SENTENCES.join(' '), language: 'en', outFile: tmp(`${name}.wav`) });
    return tmp(`${name}.wav`);
  }

  test(`the product's English voice stays under ${BOUND}; espeak-ng on the same sentences does not`, async () => {
    const [voice, espeak] = await Promise.all([say(product, 'en-product'), say(product.fallback, 'en-espeak')]);
    const [heard, heardEspeak] = await Promise.all([transcribe(voice), transcribe(espeak)]);
    const reference = SENTENCES.join(' ');
    const wer = wordErrorRate(reference, heard);
    const werEspeak = wordErrorRate(reference, heardEspeak);
    expect(wer).toBeLessThan(BOUND);
    expect(werEspeak).toBeGreaterThan(BOUND);
  }, 60_000);

  test('wordErrorRate counts substitutions, deletions and insertions over the reference words', () => {
    expect(wordErrorRate('the cat sat', 'the cat sat')).toBe(0);
    expect(wordErrorRate('The cat, sat.', 'the bat sat down')).toBeCloseTo(2 / 3);
    expect(wordErrorRate('one two three four', 'one three')).toBe(0.5);
    expect(wordErrorRate("it's built-in", 'its built in')).toBeCloseTo(1 / 3);
  });
});

describe('fallback and settings', () => {
  test('an engine that is not installed hands its language to espeak-ng, with a warning naming what is missing', async () => {
    const warned: string[] = [];
    const speech = createSpeechProvider(
      { provider: 'offline', voices: { ja: 'open-jtalk', en: 'festival' }, openJTalkVoices: [tmp('no-such-voice.htsvoice')] },
      { warn: (m) => warned.push(m) },
    ) as OfflineSpeechProvider;
    await speech.verify();
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain('no-such-voice.htsvoice');
    expect(warned[0]).toMatch(/ja will be spoken by espeak-ng/);
    const ja = speech.voices().find((v) => v.language === 'ja');
    expect(ja).toEqual({ language: 'ja', engine: 'espeak', voice: 'ja' });
    // It still speaks Japanese (espeak-ng with the kana step), kanji included.
    await speech.synthesize({ text: '本日は新しい機能を紹介します。', language: 'ja', outFile: tmp('ja-fallback.wav') });
    expect(await measureDuration(tmp('ja-fallback.wav'))).toBeGreaterThan(1);
  });

  test('an engine set for a language it cannot speak stops the provider at once', () => {
    expect(() => createSpeechProvider({ provider: 'offline', voices: { ko: 'festival' } })).toThrow(/festival does not speak "ko"/);
    expect(() => createSpeechProvider({ provider: 'offline', voices: { hi: 'pico' } })).toThrow(/pico does not speak "hi"/);
    expect(() => createSpeechProvider({ provider: 'offline', voices: { ja: 'rhvoice' } })).toThrow(/rhvoice does not speak "ja"/);
  });

  test('TTS_VOICES overrides the defaults per language; TTS_PROVIDER=espeak is espeak-ng for all', () => {
    expect(parseVoiceEngines(undefined)).toEqual(DEFAULT_VOICE_ENGINES);
    expect(parseVoiceEngines('en=flite, ja=espeak')).toEqual({ ...DEFAULT_VOICE_ENGINES, en: 'flite', ja: 'espeak' });
    expect(parseVoiceEngines('ru=espeak').ru).toBe('espeak');
    expect(() => parseVoiceEngines('xx=flite')).toThrow(/not a supported language/);
    expect(() => parseVoiceEngines('en=piper')).toThrow(/not an engine/);
    expect(loadConfig({ TTS_VOICES: 'en=flite' }).speech.voices.en).toBe('flite');
    expect(loadConfig({ OPEN_JTALK_VOICE: '/x/y.htsvoice' }).speech.openJTalkVoices).toEqual(['/x/y.htsvoice']);
    expect(createSpeechProvider(loadConfig({ TTS_PROVIDER: 'espeak' }).speech).name).toBe('espeak');
  });

  test('festival and flite get ASCII: accents folded, typographic quotes and dashes made plain', () => {
    expect(toAscii('Café “déjà vu” — it’s 50 % off…')).toBe('Cafe "deja vu", it\'s 50 % off...');
  });

  test('English-labelled text with nothing RHVoice can read (another script) is said by espeak-ng, not lost', async () => {
    await product.synthesize({ text: 'Добро пожаловать', language: 'en', outFile: tmp('en-cyrillic.wav') });
    expect(await measureDuration(tmp('en-cyrillic.wav'))).toBeGreaterThan(0.5);
  });
});

describe("a campaign's voice (create's `voice`, config/voices.ts)", () => {
  const same = async (a: string, b: string) => (await readFile(a)).equals(await readFile(b));
  const text = 'Welcome to the new dashboard.';

  test('every language has a voice to choose; every id belongs to one language, and the schema offers exactly these', () => {
    for (const language of SUPPORTED_LANGUAGES) expect(voiceIdsFor(language).length).toBeGreaterThanOrEqual(2);
    expect(new Set(VOICE_OPTIONS.map((v) => v.id)).size).toBe(VOICE_OPTIONS.length);
    const schema = CreateCampaignBody.properties.voice.properties;
    for (const language of SUPPORTED_LANGUAGES) expect(schema[language].enum).toEqual(voiceIdsFor(language));
  });

  test('en-flite-slt is said by flite although the node speaks English with RHVoice, and is reported so', async () => {
    await product.synthesize({ text, language: 'en', outFile: tmp('asked-flite.wav'), voice: 'en-flite-slt' });
    await new FliteProvider().synthesize({ text, language: 'en', outFile: tmp('flite.wav') });
    await product.synthesize({ text, language: 'en', outFile: tmp('default-en.wav') });
    expect(await same(tmp('asked-flite.wav'), tmp('flite.wav'))).toBe(true);
    expect(await same(tmp('asked-flite.wav'), tmp('default-en.wav'))).toBe(false);
    expect(product.voiceOf('en', 'en-flite-slt')).toEqual({ engine: 'flite', name: 'slt' });
    expect(product.voiceOf('en')).toEqual({ engine: 'rhvoice', name: 'clb' });
  });

  test("espeak-ng's female variant and British voice are other voices; `<lang>-espeak` is the language's espeak-ng voice", async () => {
    // Dutch: a language espeak-ng speaks by default (German's default is Pico, voices-pico-rhvoice.test.ts).
    const dutch = 'Welkom bij het nieuwe dashboard.';
    await product.synthesize({ text: dutch, language: 'nl', outFile: tmp('nl.wav') });
    await product.synthesize({ text: dutch, language: 'nl', outFile: tmp('nl-m.wav'), voice: 'nl-espeak' });
    await product.synthesize({ text: dutch, language: 'nl', outFile: tmp('nl-f.wav'), voice: 'nl-espeak-female' });
    expect(await same(tmp('nl.wav'), tmp('nl-m.wav'))).toBe(true);
    expect(await same(tmp('nl.wav'), tmp('nl-f.wav'))).toBe(false);
    expect(product.voiceOf('nl', 'nl-espeak-female')).toEqual({ engine: 'espeak', name: 'nl+f3' });
    // An espeak-ng voice asked for in a language whose default is another engine is espeak-ng's.
    await product.synthesize({
      text: 'Willkommen im neuen Dashboard.',
      language: 'de',
      outFile: tmp('de-f.wav'),
      voice: 'de-espeak-female',
    });
    expect(product.voiceOf('de', 'de-espeak-female')).toEqual({ engine: 'espeak', name: 'de+f3' });
    expect(await measureDuration(tmp('de-f.wav'))).toBeGreaterThan(1);
    await product.synthesize({ text, language: 'en', outFile: tmp('en-gb.wav'), voice: 'en-espeak-gb' });
    expect(product.voiceOf('en', 'en-espeak-gb')).toEqual({ engine: 'espeak', name: 'en-gb' });
    expect(await measureDuration(tmp('en-gb.wav'))).toBeGreaterThan(1);
  });

  test("a voice of another language is ignored: that text gets its own language's voice", async () => {
    await product.synthesize({ text, language: 'en', outFile: tmp('en-with-de-voice.wav'), voice: 'de-espeak-female' });
    expect(await same(tmp('en-with-de-voice.wav'), tmp('default-en.wav'))).toBe(true);
    expect(product.voiceOf('en', 'de-espeak-female')).toEqual(product.voiceOf('en'));
  });

  test('a voice whose engine is not installed is said by espeak-ng, with one warning, and reported as espeak-ng', async () => {
    const warned: string[] = [];
    const speech = createSpeechProvider(
      { provider: 'offline', voices: {}, openJTalkVoices: [tmp('no-such-voice.htsvoice')] },
      { warn: (m) => warned.push(m) },
    ) as OfflineSpeechProvider;
    await speech.verify();
    for (const n of [1, 2]) {
      await speech.synthesize({ text: '新しい機能', language: 'ja', outFile: tmp(`ja-asked-${n}.wav`), voice: 'ja-openjtalk-mei' });
    }
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatch(/open-jtalk is not usable.*espeak-ng/);
    expect(speech.voiceOf('ja', 'ja-openjtalk-mei')).toEqual({ engine: 'espeak', name: 'ja' });
    expect(await measureDuration(tmp('ja-asked-1.wav'))).toBeGreaterThan(0.5);
    await speech.close();
  });
});
