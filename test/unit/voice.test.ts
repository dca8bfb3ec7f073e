/**
 * Voice with the real espeak-ng, ffmpeg and ffprobe: every supported language is spoken, normalized
 * and measured; Japanese kanji go through a kana reading; the OpenAI-compatible provider is checked
 * against a local imitation of its HTTP API.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SUPPORTED_LANGUAGES, type LanguageCode } from '../../config/catalog';
import { concatAudio, loudness, measureDuration, normalizeAudio } from '../../lib/voice/audio';
import { createSpeechProvider, EspeakProvider, OpenAISpeechProvider } from '../../lib/voice/tts';
import { SpeechProviderError } from '../../lib/voice/speech';

const SENTENCES: Record<LanguageCode, string> = {
  en: 'Welcome to our new product tour.',
  ja: 'ようこそ、新しいダッシュボードをご覧ください。',
  ko: '새로운 분석 대시보드를 소개합니다.',
  zh: '欢迎了解我们的新产品功能。',
  es: 'Bienvenido a nuestra nueva plataforma de análisis.',
  fr: "Bienvenue dans notre nouvel outil d'analyse.",
  de: 'Willkommen bei unserem neuen Analysewerkzeug.',
  pt: 'Bem-vindo à nossa nova plataforma de análise.',
  it: 'Benvenuti nella nostra nuova piattaforma di analisi.',
  nl: 'Welkom bij ons nieuwe analyseplatform.',
  pl: 'Witamy w naszej nowej platformie analitycznej.',
  ru: 'Добро пожаловать в нашу новую аналитическую платформу.',
  tr: 'Yeni analiz platformumuza hoş geldiniz.',
  ar: 'مرحبا بكم في منصة التحليلات الجديدة.',
  hi: 'हमारे नए विश्लेषण मंच में आपका स्वागत है।',
  id: 'Selamat datang di platform analitik baru kami.',
  vi: 'Chào mừng bạn đến với nền tảng phân tích mới của chúng tôi.',
  th: 'ยินดีต้อนรับสู่แพลตฟอร์มวิเคราะห์ใหม่ของเรา',
  sv: 'Välkommen till vår nya analysplattform.',
  uk: 'Ласкаво просимо до нашої нової аналітичної платформи.',
};

let dir: string;
const tmp = (name: string) => path.join(dir, name);
const espeak = new EspeakProvider();

function probe(file: string): { sample_rate: string; channels: number } {
  const out = execFileSync(
    'ffprobe',
    ['-v', 'error', '-select_streams', 'a:0', '-show_entries', 'stream=sample_rate,channels', '-of', 'json', file],
    { encoding: 'utf8' },
  );
  return JSON.parse(out).streams[0];
}

/** A sine tone at a given gain (and sample rate, default lavfi's 44.1 kHz), as a WAV. */
function tone(file: string, seconds: number, gainDb: number, sampleRate?: number): string {
  const rate = sampleRate ? ['-ar', String(sampleRate)] : [];
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:duration=${seconds}`,
    '-af',
    `volume=${gainDb}dB`,
    ...rate,
    file,
  ]);
  return file;
}

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'voice-test-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('EspeakProvider.verify', () => {
  test('passes: every supported language has a voice', async () => {
    await expect(espeak.verify()).resolves.toBeUndefined();
  });

  test('a bogus voice in the map fails loudly, naming it', async () => {
    const p = new EspeakProvider({ voices: { ko: 'xx-bogus' } });
    await expect(p.verify()).rejects.toThrow(/ko \(voice "xx-bogus"\)/);
  });

  test('an espeak-ng with only a few voices installed fails, naming every missing one', async () => {
    // A stand-in binary whose `--voices` lists only English, Japanese and Korean.
    const fake = tmp('fake-espeak');
    writeFileSync(
      fake,
      [
        '#!/bin/sh',
        'echo "Pty Language       Age/Gender VoiceName          File                 Other Languages"',
        'echo " 2  en-us           --/M      English_(America)  gmw/en-US            (en 3)"',
        'echo " 5  ja              --/M      Japanese           jpx/ja"',
        'echo " 5  ko              --/M      Korean             ko"',
      ].join('\n'),
    );
    chmodSync(fake, 0o755);
    const err = await new EspeakProvider({ binary: fake }).verify().catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    const message = (err as Error).message;
    expect(message).toMatch(/17 supported language/);
    for (const lang of SUPPORTED_LANGUAGES.filter((l) => !['en', 'ja', 'ko'].includes(l))) expect(message).toContain(`${lang} (voice`);
    expect(message).not.toMatch(/\ben \(voice/);
  });

  test('a missing espeak-ng binary fails loudly', async () => {
    await expect(new EspeakProvider({ binary: tmp('no-such-espeak') }).verify()).rejects.toThrow(/not found/);
  });
});

describe('every supported language is spoken', () => {
  test.each(SUPPORTED_LANGUAGES.map((l) => [l]))('%s: synthesized, normalized to 48 kHz mono, audible', async (lang) => {
    const raw = tmp(`${lang}-raw.wav`);
    const out = tmp(`${lang}.wav`);
    await espeak.synthesize({ text: SENTENCES[lang], language: lang, outFile: raw });
    await normalizeAudio(raw, out);
    expect(statSync(out).size).toBeGreaterThan(1000);
    const seconds = await measureDuration(out);
    expect(seconds).toBeGreaterThan(0.5);
    expect(seconds).toBeLessThan(15);
    expect(Math.abs(seconds - (await measureDuration(raw)))).toBeLessThan(0.01); // normalizing keeps the length
    expect(probe(out)).toEqual({ sample_rate: '48000', channels: 1 });
    const level = await loudness(out);
    expect(level.meanVolumeDb).toBeGreaterThan(-40);
    expect(Math.abs(level.integratedLufs - -16)).toBeLessThanOrEqual(2);
  });

  test.each(SUPPORTED_LANGUAGES.filter((l) => l !== 'en').map((l) => [l]))(
    '%s: espeak reads it in that language, not as English words',
    async (lang) => {
      // "(en)" in the trace is espeak switching to English, as it does for kanji ("Chinese letter")
      // and for the pinyin of its plain `cmn` voice ("hao three").
      expect(await espeak.phonemes(SENTENCES[lang], lang)).not.toContain('(en)');
    },
  );

  test('text with quotes, newlines and a leading dash is passed through safely', async () => {
    const out = tmp('tricky.wav');
    await espeak.synthesize({ text: '-v xx "quoted" $(echo hi) `tick`\nsecond line; it\'s fine', language: 'en', outFile: out });
    expect(await measureDuration(out)).toBeGreaterThan(1);
  });
});

describe('Japanese goes through a kana reading', () => {
  const KANJI = '本日は新しい分析機能を紹介します。';
  const KANA = 'ほんじつはあたらしいぶんせききのうをしょうかいします。';

  test('a kanji sentence takes about as long as the same sentence in kana; raw espeak does not', async () => {
    await espeak.synthesize({ text: KANJI, language: 'ja', outFile: tmp('ja-kanji.wav') });
    await espeak.synthesize({ text: KANA, language: 'ja', outFile: tmp('ja-kana.wav') });
    const kanji = await measureDuration(tmp('ja-kanji.wav'));
    const kana = await measureDuration(tmp('ja-kana.wav'));
    expect(Math.abs(kanji - kana) / kana).toBeLessThan(0.35);

    // espeak-ng alone, without the kana step: "Chinese letter" for each kanji.
    execFileSync('espeak-ng', ['-v', 'ja', '-s', '165', '-w', tmp('ja-raw.wav'), KANJI]);
    const raw = await measureDuration(tmp('ja-raw.wav'));
    expect(raw).toBeGreaterThan(kana * 1.8);
    expect(execFileSync('espeak-ng', ['-v', 'ja', '-q', '-x', KANJI], { encoding: 'utf8' })).toContain('(en)');
  });
});

describe('audio', () => {
  test('normalizeAudio brings quiet and loud inputs, long and short, to about -16 LUFS', async () => {
    const quiet = tone(tmp('quiet.wav'), 4, -45);
    const loud = tone(tmp('loud.wav'), 4, 0);
    expect((await loudness(loud)).integratedLufs - (await loudness(quiet)).integratedLufs).toBeGreaterThan(40);
    // Under 3 s, ffmpeg's loudnorm alone picks a wrong gain; normalizeAudio pads around that.
    const shortQuiet = tone(tmp('short-quiet.wav'), 1.5, -45);
    for (const input of [quiet, loud, shortQuiet]) {
      const out = input.replace('.wav', '-norm.wav');
      await normalizeAudio(input, out);
      expect(Math.abs((await loudness(out)).integratedLufs - -16)).toBeLessThanOrEqual(2);
      expect(probe(out)).toEqual({ sample_rate: '48000', channels: 1 });
    }
  });

  test('padEndMs adds trailing silence', async () => {
    const input = tone(tmp('pad-in.wav'), 1, -10);
    await normalizeAudio(input, tmp('pad-out.wav'), { padEndMs: 750 });
    expect(await measureDuration(tmp('pad-out.wav'))).toBeCloseTo(1.75, 2);
  });

  test('normalizeAudio of several inputs (other rates, 40 dB apart) levels each and the whole in one file: summed length, one pause', async () => {
    const quiet = tone(tmp('run-quiet.wav'), 1.2, -40); // 44.1 kHz
    const loud = tone(tmp('run-loud.wav'), 2, 0, 22_050);
    await normalizeAudio([quiet, loud], tmp('runs.wav'), { padEndMs: 450 });
    expect(probe(tmp('runs.wav'))).toEqual({ sample_rate: '48000', channels: 1 });
    expect(await measureDuration(tmp('runs.wav'))).toBeCloseTo(3.65, 2);
    const part = (name: string, from: number, to: number) => {
      execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', tmp('runs.wav'), '-af', `atrim=${from}:${to}`, tmp(name)]);
      return loudness(tmp(name));
    };
    const [first, second] = [await part('runs-1.wav', 0, 1.2), await part('runs-2.wav', 1.2, 3.2)];
    expect(Math.abs(first.integratedLufs - second.integratedLufs)).toBeLessThan(4);
    expect(Math.abs((await loudness(tmp('runs.wav'))).integratedLufs - -16)).toBeLessThanOrEqual(2);
    // The pause is silence.
    expect((await part('runs-pause.wav', 3.25, 3.65)).meanVolumeDb).toBeLessThan(-80);
  });

  test('concatAudio: the duration is the sum of the parts', async () => {
    const parts = [0.8, 1.3, 2.1].map((s, i) => tone(tmp(`part${i}-src.wav`), s, -12));
    const normalized = await Promise.all(
      parts.map(async (p) => {
        const out = p.replace('-src', '');
        await normalizeAudio(p, out);
        return out;
      }),
    );
    const sum = (await Promise.all(normalized.map(measureDuration))).reduce((a, b) => a + b, 0);
    await concatAudio(normalized, tmp('track.wav'));
    expect(Math.abs((await measureDuration(tmp('track.wav'))) - sum)).toBeLessThan(0.05);
    // Joined without ffmpeg: the parts' samples, one after another, under one header ffprobe reads the same.
    const samples = (file: string) => execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-f', 's16le', '-']);
    expect(samples(tmp('track.wav')).equals(Buffer.concat(normalized.map(samples)))).toBe(true);
    expect(probe(tmp('track.wav'))).toEqual({ sample_rate: '48000', channels: 1 });
    const streamDuration = execFileSync(
      'ffprobe',
      ['-v', 'error', '-show_entries', 'stream=duration', '-of', 'csv=p=0', tmp('track.wav')],
      { encoding: 'utf8' },
    );
    expect(Math.abs(Number(streamDuration) - sum)).toBeLessThan(0.001);
  });

  test('concatAudio of files in other formats goes through ffmpeg: 48 kHz mono out, the summed length', async () => {
    const parts = [tone(tmp('other-a.wav'), 0.7, -12, 22_050), tone(tmp('other-b.wav'), 1.1, -12, 44_100)];
    await concatAudio(parts, tmp('other-track.wav'));
    expect(probe(tmp('other-track.wav'))).toEqual({ sample_rate: '48000', channels: 1 });
    expect(await measureDuration(tmp('other-track.wav'))).toBeCloseTo(1.8, 2);
  });

  test('measureDuration rejects a file without audio', async () => {
    writeFileSync(tmp('not-audio.wav'), 'hello');
    await expect(measureDuration(tmp('not-audio.wav'))).rejects.toThrow();
  });
});

/**
 * IMITATION of a third-party API that cannot be reached from here: a local server speaking the wire
 * format of OpenAI's `POST /v1/audio/speech` (JSON in, audio bytes out, JSON errors). `mode` picks
 * the answer.
 */
describe('OpenAISpeechProvider against a local imitation of /v1/audio/speech', () => {
  const API_KEY = 'sk-test-secret-123';
  let server: http.Server;
  let baseUrl: string;
  let wav: Buffer;
  let mode: 'ok' | '500' | '400' | '429' | 'hang' | 'json';
  const seen: { method?: string; url?: string; auth?: string; body?: Record<string, unknown> }[] = [];

  beforeAll(async () => {
    tone(tmp('api.wav'), 1, -10);
    wav = readFileSync(tmp('api.wav'));
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, auth: req.headers.authorization, body: JSON.parse(body) });
        const error = (status: number, message: string) =>
          res
            .writeHead(status, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: { message, type: 'invalid_request_error' } }));
        if (mode === 'ok') return res.writeHead(200, { 'content-type': 'audio/wav' }).end(wav);
        if (mode === '500') return error(500, 'The server had an error while processing your request.');
        if (mode === '429') return error(429, 'Rate limit reached.');
        if (mode === '400') return error(400, `Incorrect API key provided: ${API_KEY}.`);
        if (mode === 'json') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[]}');
        // 'hang': never answer.
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const provider = (timeoutMs = 5000) => new OpenAISpeechProvider({ baseUrl, apiKey: API_KEY, model: 'tts-1', voice: 'alloy', timeoutMs });
  const failure = (p: Promise<void>) =>
    p.then(
      () => {
        throw new Error('expected a failure');
      },
      (e: unknown) => e as SpeechProviderError,
    );

  test('success: writes the WAV; the request carries Bearer auth and the JSON fields', async () => {
    mode = 'ok';
    seen.length = 0;
    const out = tmp('api-out.wav');
    await provider().synthesize({ text: 'Hello "world"', language: 'en', outFile: out });
    expect(readFileSync(out).equals(wav)).toBe(true);
    expect(await measureDuration(out)).toBeCloseTo(1, 2);
    expect(seen).toEqual([
      {
        method: 'POST',
        url: '/v1/audio/speech',
        auth: `Bearer ${API_KEY}`,
        body: { model: 'tts-1', input: 'Hello "world"', voice: 'alloy', response_format: 'wav' },
      },
    ]);
  });

  test('createSpeechProvider builds either provider', async () => {
    expect(createSpeechProvider({ provider: 'espeak' }).name).toBe('espeak');
    const p = createSpeechProvider({ provider: 'openai', baseUrl: `${baseUrl}/`, apiKey: API_KEY });
    mode = 'ok';
    await p.synthesize({ text: 'Hi', language: 'en', outFile: tmp('api-factory.wav') });
    expect(seen.at(-1)?.url).toBe('/v1/audio/speech');
    expect(() => createSpeechProvider({ provider: 'openai', baseUrl })).toThrow(/apiKey/);
  });

  test.each([
    ['500', true],
    ['429', true],
    ['400', false],
  ] as const)('%s → SpeechProviderError, retryable %s', async (status, retryable) => {
    mode = status;
    const err = await failure(provider().synthesize({ text: 'Hi', language: 'en', outFile: tmp('api-err.wav') }));
    expect(err).toBeInstanceOf(SpeechProviderError);
    expect(err.retryable).toBe(retryable);
    expect(err.message).toContain(`answered ${status}`);
    expect(err.message).not.toContain(API_KEY);
  });

  test('no answer within timeoutMs → retryable', async () => {
    mode = 'hang';
    const started = Date.now();
    const err = await failure(provider(300).synthesize({ text: 'Hi', language: 'en', outFile: tmp('api-hang.wav') }));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(err).toBeInstanceOf(SpeechProviderError);
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/within 300 ms/);
  });

  test('a 200 with JSON instead of audio → error, nothing written', async () => {
    mode = 'json';
    const out = tmp('api-json.wav');
    const err = await failure(provider().synthesize({ text: 'Hi', language: 'en', outFile: out }));
    expect(err).toBeInstanceOf(SpeechProviderError);
    expect(err.message).toMatch(/not WAV audio/);
    expect(() => statSync(out)).toThrow();
  });

  test('connection refused → retryable network error', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const p = new OpenAISpeechProvider({ baseUrl: `http://127.0.0.1:${port}`, apiKey: API_KEY });
    const err = await failure(p.synthesize({ text: 'Hi', language: 'en', outFile: tmp('api-refused.wav') }));
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/network error.*ECONNREFUSED/);
  });
});
