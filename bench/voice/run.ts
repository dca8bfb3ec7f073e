/**
 * bench/voice: seconds of narration produced per second of wall time, for the three default languages,
 * through the product's own path (espeak-ng provider, kana reading for Japanese, ffmpeg loudness
 * normalization, ffprobe measurement). Run: npm run bench:voice  (BENCH_ROUNDS=3 by default)
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { LanguageCode } from '../../config/catalog';
import { measureDuration, normalizeAudio } from '../../lib/voice/audio';
import { EspeakProvider } from '../../lib/voice/tts';

const PARAGRAPHS: Partial<Record<LanguageCode, string>> = {
  en: 'Acme Analytics connects your product, billing and CRM data and turns it into live dashboards in minutes. Share insights where your team already works, and stay secure by default.',
  ja: 'アクメ・アナリティクスは、製品、請求、顧客管理のデータをつなぎ、数分でライブのダッシュボードに変えます。チームが普段使う場所で分析を共有でき、セキュリティも標準で万全です。',
  ko: '아크미 애널리틱스는 제품, 결제, 고객 관리 데이터를 연결해 몇 분 만에 실시간 대시보드로 바꿔 줍니다. 팀이 이미 일하는 곳에서 인사이트를 공유하고, 기본부터 안전하게 지키세요.',
};

async function main(): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-voice-'));
  const speech = new EspeakProvider();
  await speech.verify();
  // Warm-up (kuroshiro's dictionary loads once, ~0.9 s): not counted.
  await speech.synthesize({ text: 'こんにちは', language: 'ja', outFile: path.join(dir, 'warm.wav') });
  const rows: Array<{ language: string; audio: number; wall: number }> = [];
  try {
    for (const [language, text] of Object.entries(PARAGRAPHS) as Array<[LanguageCode, string]>) {
      let audio = 0;
      let wall = 0;
      for (let round = 0; round < rounds; round += 1) {
        const raw = path.join(dir, `${language}-${round}.raw.wav`);
        const clean = path.join(dir, `${language}-${round}.wav`);
        const started = process.hrtime.bigint();
        await speech.synthesize({ text, language, outFile: raw });
        await normalizeAudio(raw, clean);
        const seconds = await measureDuration(clean);
        wall += Number(process.hrtime.bigint() - started) / 1e9;
        audio += seconds;
      }
      rows.push({ language, audio, wall });
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
  console.log(`node ${process.version}, ${os.cpus().length} CPUs, ${rounds} rounds per language (synthesize + normalize + measure)\n`);
  console.log('language  audio s  wall s  audio s per wall s');
  console.log('--------  -------  ------  ------------------');
  for (const r of rows)
    console.log(
      `${r.language.padEnd(8)}  ${r.audio.toFixed(1).padStart(7)}  ${r.wall.toFixed(2).padStart(6)}  ${(r.audio / r.wall).toFixed(1).padStart(18)}`,
    );
  const total = rows.reduce((acc, r) => ({ audio: acc.audio + r.audio, wall: acc.wall + r.wall }), { audio: 0, wall: 0 });
  console.log(
    `${'all'.padEnd(8)}  ${total.audio.toFixed(1).padStart(7)}  ${total.wall.toFixed(2).padStart(6)}  ${(total.audio / total.wall).toFixed(1).padStart(18)}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
