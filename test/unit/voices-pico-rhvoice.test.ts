/**
 * The voices of SVOX Pico (es, fr, de, it, English options) and RHVoice (ru, pt, en) with the real engines: the
 * product routes those languages to them by default, each voice really speaks (a WAV of the engine's own rate,
 * as long as the text needs, mostly voiced, never clipped), every option is its own voice, text an engine cannot
 * read goes to espeak-ng, and a node without the engines speaks those languages with espeak-ng after one warning.
 * The voices table in docs/voices.md is VOICE_OPTIONS. Needs scripts/bootstrap.sh (Debian contrib/non-free packages).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../../config';
import type { LanguageCode } from '../../config/catalog';
import { isDefaultVoice, VOICE_OPTIONS } from '../../config/voices';
import { measureDuration } from '../../lib/voice/audio';
import { OfflineSpeechProvider } from '../../lib/voice/offline';
import { chunks, PicoProvider } from '../../lib/voice/pico';
import { RHVoiceProvider } from '../../lib/voice/rhvoice';
import { createSpeechProvider, EspeakProvider } from '../../lib/voice/tts';
import { windowLevels } from '../support/audio-levels';

const exec = promisify(execFile);
let dir: string;
const tmp = (name: string) => path.join(dir, name);
let product: OfflineSpeechProvider;
const warnings: string[] = [];

/** One narration-like sentence per language; a leading dash and quotes must be read as text, not options. */
const SENTENCES: Partial<Record<LanguageCode, string>> = {
  es: '-- «Bienvenidos» al nuevo panel: conecte sus datos y vea los resultados en minutos.',
  fr: '-- « Bienvenue » dans le nouveau tableau de bord : connectez vos données en quelques minutes.',
  de: '-- „Willkommen“ im neuen Dashboard: Verbinden Sie Ihre Daten in wenigen Minuten.',
  it: '-- «Benvenuti» nella nuova dashboard: collegate i vostri dati in pochi minuti.',
  ru: '-- «Добро пожаловать» в новую панель: подключите свои данные за несколько минут.',
  pt: '-- “Bem-vindo” ao novo painel: conecte seus dados e veja os resultados em minutos.',
  en: '-- "Welcome" to the new dashboard: connect your data and see results in minutes.',
};

/** The sample rate, length, voiced share and peak of a WAV, as ffprobe, ffmpeg's volumedetect and the levels see it. */
async function listen(file: string): Promise<{ rate: number; seconds: number; voiced: number; peakDb: number }> {
  const { stdout } = await exec('ffprobe', ['-v', 'error', '-show_entries', 'stream=sample_rate', '-of', 'csv=p=0', file]);
  const { stderr } = await exec('ffmpeg', ['-hide_banner', '-i', file, '-af', 'volumedetect', '-f', 'null', '-']);
  const levels = await windowLevels(file);
  return {
    rate: Number(stdout.trim()),
    seconds: await measureDuration(file),
    voiced: levels.filter((l) => l > -45).length / levels.length,
    peakDb: Number(/max_volume: (-?[\d.]+) dB/.exec(stderr)?.[1]),
  };
}

/** Speech of `text` at a human pace: 7 to 25 characters a second (these voices say ~12–16). */
function expectPlausible(heard: { seconds: number; voiced: number; peakDb: number }, text: string): void {
  expect(heard.seconds).toBeGreaterThan(text.length / 25);
  expect(heard.seconds).toBeLessThan(text.length / 7);
  expect(heard.voiced).toBeGreaterThan(0.5);
  expect(heard.peakDb).toBeLessThan(0);
}

const same = async (a: string, b: string) => (await readFile(a)).equals(await readFile(b));

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'voices-pico-rhvoice-'));
  product = createSpeechProvider(loadConfig({}).speech, { warn: (m) => warnings.push(m) }) as OfflineSpeechProvider;
  await product.verify();
});
afterAll(async () => {
  await product.close();
  rmSync(dir, { recursive: true, force: true });
});

test('defaults: es, fr, de, it are Pico; ru, pt and en RHVoice (Aleksandr, Letícia, clb); nothing fell back', () => {
  expect(warnings).toEqual([]);
  const voices = Object.fromEntries(product.voices().map((v) => [v.language, `${v.engine} ${v.voice}`]));
  expect(voices).toMatchObject({
    es: 'pico es-ES',
    fr: 'pico fr-FR',
    de: 'pico de-DE',
    it: 'pico it-IT',
    ru: 'rhvoice aleksandr',
    pt: 'rhvoice Leticia-F123',
    en: 'rhvoice clb',
    ko: 'espeak ko',
    hi: 'espeak hi',
  });
});

describe('each default voice speaks its language, through the product', () => {
  const pico = new PicoProvider();
  const rhvoice = new RHVoiceProvider();
  test.each([
    ['es', pico, 16_000],
    ['fr', pico, 16_000],
    ['de', pico, 16_000],
    ['it', pico, 16_000],
    ['ru', rhvoice, 24_000],
    ['pt', rhvoice, 24_000],
    ['en', rhvoice, 24_000],
  ] as const)('%s', async (language, engine, rate) => {
    const text = SENTENCES[language] as string;
    await product.synthesize({ text, language, outFile: tmp(`${language}.wav`) });
    // The product's file is the engine's own (not espeak-ng's), at the engine's rate, and sounds like speech of this text.
    await engine.synthesize({ text, language, outFile: tmp(`${language}-engine.wav`) });
    expect(await same(tmp(`${language}.wav`), tmp(`${language}-engine.wav`))).toBe(true);
    const heard = await listen(tmp(`${language}.wav`));
    expect(heard.rate).toBe(rate);
    expectPlausible(heard, text);
    expect(product.voiceOf(language)).toEqual({ engine: engine.name, name: engine.voiceFor(language) });
  });

  test('Pico says each language with its own voice: the same words in es-ES and it-IT are different sounds', async () => {
    const text = 'Nuovo panello di controllo.';
    await pico.synthesize({ text, language: 'es', outFile: tmp('pico-es-it-text.wav') });
    await pico.synthesize({ text, language: 'it', outFile: tmp('pico-it-it-text.wav') });
    expect(await same(tmp('pico-es-it-text.wav'), tmp('pico-it-it-text.wav'))).toBe(false);
  });
});

describe('every Pico and RHVoice option is its own voice (create’s `voice`)', () => {
  const options = VOICE_OPTIONS.filter((v) => v.engine === 'pico' || v.engine === 'rhvoice');

  test.each(options.map((v) => [v.id, v] as const))('%s', async (id, option) => {
    const text = SENTENCES[option.language] as string;
    await product.synthesize({ text, language: option.language, outFile: tmp(`${id}.wav`), voice: id });
    expect(product.voiceOf(option.language, id)).toEqual({ engine: option.engine, name: option.engineVoice });
    expectPlausible(await listen(tmp(`${id}.wav`)), text);
    if (!isDefaultVoice(option)) {
      await product.synthesize({ text, language: option.language, outFile: tmp(`${id}-default.wav`) });
      expect(await same(tmp(`${id}.wav`), tmp(`${id}-default.wav`))).toBe(false);
    }
  });
});

describe('what the engines cannot say goes to espeak-ng', () => {
  test('Portuguese- or Spanish-labelled text in Cyrillic only is said by espeak-ng, not lost; Russian reads Latin itself', async () => {
    const espeak = product.fallback as EspeakProvider;
    for (const language of ['pt', 'es'] as const) {
      await product.synthesize({ text: 'Добро пожаловать', language, outFile: tmp(`${language}-cyrillic.wav`) });
      await espeak.synthesize({ text: 'Добро пожаловать', language, outFile: tmp(`${language}-cyrillic-espeak.wav`) });
      expect(await same(tmp(`${language}-cyrillic.wav`), tmp(`${language}-cyrillic-espeak.wav`))).toBe(true);
    }
    await product.synthesize({ text: 'Acme Analytics', language: 'ru', outFile: tmp('ru-latin.wav') });
    await new RHVoiceProvider().synthesize({ text: 'Acme Analytics', language: 'ru', outFile: tmp('ru-latin-rhvoice.wav') });
    expect(await same(tmp('ru-latin.wav'), tmp('ru-latin-rhvoice.wav'))).toBe(true);
  });

  test('a node without Pico or RHVoice speaks their languages with espeak-ng, after one warning each naming what is missing', async () => {
    const warned: string[] = [];
    const espeak = new EspeakProvider();
    const speech = new OfflineSpeechProvider({
      engines: { es: 'pico', de: 'pico', ru: 'rhvoice', pt: 'rhvoice' },
      fallback: espeak,
      warn: (m) => warned.push(m),
      build: (name) =>
        name === 'pico' ? new PicoProvider({ binary: tmp('no-pico2wave') }) : new RHVoiceProvider({ voicesDir: tmp('no-voices') }),
    });
    await speech.verify();
    expect(warned).toHaveLength(2);
    expect(warned.find((m) => m.startsWith('speech: pico '))).toMatch(/no-pico2wave not found.*es, de will be spoken by espeak-ng/);
    expect(warned.find((m) => m.startsWith('speech: rhvoice '))).toMatch(
      /RHVoice has no voice \w+ in .*no-voices.*ru, pt will be spoken by espeak-ng/,
    );
    const chosen = Object.fromEntries(speech.voices().map((v) => [v.language, v.engine]));
    expect(chosen).toMatchObject({ es: 'espeak', de: 'espeak', ru: 'espeak', pt: 'espeak' });
    for (const language of ['es', 'ru'] as const) {
      const text = SENTENCES[language] as string;
      await speech.synthesize({ text, language, outFile: tmp(`${language}-fallback.wav`) });
      await espeak.synthesize({ text, language, outFile: tmp(`${language}-espeak.wav`) });
      expect(await same(tmp(`${language}-fallback.wav`), tmp(`${language}-espeak.wav`))).toBe(true);
      expect(speech.voiceOf(language, `${language === 'es' ? 'es-pico' : 'ru-rhvoice-anna'}`).engine).toBe('espeak');
    }
  });
});

test('text past pico2wave’s 32,767-byte limit is cut between sentences into parts under it', () => {
  const sentence = 'Conecte todas sus fuentes de datos en minutos. ';
  const text = sentence.repeat(40);
  const parts = chunks(text, 'es', 400);
  expect(parts.length).toBeGreaterThan(4);
  for (const part of parts) {
    expect(Buffer.byteLength(part)).toBeLessThanOrEqual(400);
    expect(part).toMatch(/^Conecte.*minutos\.$/);
  }
  expect(parts.join(' ')).toBe(text.trim());
  // One sentence longer than the limit is cut at a space.
  const long = chunks(`${'palabra '.repeat(100)}fin.`, 'es', 300);
  expect(long.length).toBeGreaterThan(1);
  for (const part of long) expect(Buffer.byteLength(part)).toBeLessThanOrEqual(300);
});

test('the table in docs/voices.md lists every voice option with its language, engine, licence and attribution', () => {
  const doc = readFileSync(path.join(__dirname, '../../docs/voices.md'), 'utf8');
  for (const v of VOICE_OPTIONS) {
    expect(doc).toContain(`| \`${v.id}\` | ${v.language} | ${v.engine} | ${v.licence} | ${v.attribution ?? '—'} |`);
  }
});
