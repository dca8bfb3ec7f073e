/**
 * A short sample of each voice (config/voices.ts VOICE_OPTIONS), for the dashboard's voice picker: one sentence in the
 * voice's language, spoken by the same provider as a campaign's narration, levelled like it, and kept as a small MP3
 * under storageKeys.voiceSample, so it is made once per voice and sentence (the key carries a hash of both) and
 * served from the store ever after, never made for a page view.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { LanguageCode } from '../../config/catalog';
import { VOICE_OPTIONS_BY_ID } from '../../config/voices';
import { storageKeys } from '../storage/keys';
import { normalizeAudio } from './audio';
import { run } from './exec';
import type { SpeechProvider } from './speech';

/** What every sample says, in its language. */
export const VOICE_SAMPLE_TEXT: Record<LanguageCode, string> = {
  en: "Hello! This is how your campaign's videos will sound.",
  ja: 'こんにちは。キャンペーン動画はこの声でお届けします。',
  ko: '안녕하세요. 캠페인 영상은 이 목소리로 전해 드립니다.',
  zh: '你好！你的活动视频将用这个声音朗读。',
  es: '¡Hola! Así sonarán los vídeos de tu campaña.',
  fr: 'Bonjour ! Voici la voix des vidéos de votre campagne.',
  de: 'Hallo! So klingen die Videos Ihrer Kampagne.',
  pt: 'Olá! É assim que os vídeos da sua campanha vão soar.',
  it: 'Ciao! Ecco come suoneranno i video della tua campagna.',
  nl: "Hallo! Zo klinken de video's van je campagne.",
  pl: 'Cześć! Tak zabrzmią filmy Twojej kampanii.',
  ru: 'Здравствуйте! Так будут звучать видео вашей кампании.',
  tr: 'Merhaba! Kampanyanızın videoları böyle duyulacak.',
  ar: 'مرحبًا! هكذا ستبدو مقاطع الفيديو لحملتك.',
  hi: 'नमस्ते! आपके अभियान के वीडियो ऐसे सुनाई देंगे।',
  id: 'Halo! Beginilah suara video kampanye Anda.',
  vi: 'Xin chào! Đây là giọng đọc cho video chiến dịch của bạn.',
  th: 'สวัสดีครับ นี่คือเสียงของวิดีโอแคมเปญของคุณ',
  sv: 'Hej! Så här kommer kampanjens videor att låta.',
  uk: 'Вітаємо! Так звучатимуть відео вашої кампанії.',
};

/** The sample's storage key: a new sentence (or voice definition) is a new key, an old file is never served for it. */
export function voiceSampleKey(voiceId: string): string | undefined {
  const option = VOICE_OPTIONS_BY_ID.get(voiceId);
  if (!option) return undefined;
  const version = crypto
    .createHash('sha256')
    .update(JSON.stringify([option, VOICE_SAMPLE_TEXT[option.language]]))
    .digest('hex')
    .slice(0, 12);
  return storageKeys.voiceSample(voiceId, version);
}

/** Speaks the voice's sentence into an MP3 (mono, 48 kb/s: a few seconds are some 30 KB). */
export async function makeVoiceSample(speech: SpeechProvider, voiceId: string): Promise<Buffer> {
  const option = VOICE_OPTIONS_BY_ID.get(voiceId);
  if (!option) throw new Error(`unknown voice ${voiceId}`);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'voice-sample-'));
  try {
    const spoken = path.join(dir, 'spoken.wav');
    const levelled = path.join(dir, 'levelled.wav');
    const mp3 = path.join(dir, 'sample.mp3');
    await speech.synthesize({ text: VOICE_SAMPLE_TEXT[option.language], language: option.language, outFile: spoken, voice: voiceId });
    await normalizeAudio(spoken, levelled);
    await run('ffmpeg', ['-y', '-loglevel', 'error', '-i', levelled, '-ac', '1', '-c:a', 'libmp3lame', '-b:a', '48k', mp3], {
      timeoutMs: 30_000,
    });
    return await fs.readFile(mp3);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
