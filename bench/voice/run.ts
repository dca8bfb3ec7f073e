/**
 * bench/voice: each offline speech engine and voice, per language, through the product's own path (the provider,
 * ffmpeg loudness normalization, ffprobe measurement): real-time factor and the engine process's peak
 * memory; then, for English, each voice's word error rate through PocketSphinx, in the same run.
 * BENCH_LANGUAGES=en,ru limits the languages (default all of PARAGRAPHS).
 * Run: npm run bench:voice  (BENCH_ROUNDS=3 by default; BENCH_WER=0 skips the word error rates)
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../config';
import type { LanguageCode } from '../../config/catalog';
import {
  DEFAULT_FESTIVAL_VOICE,
  DEFAULT_FLITE_VOICE,
  DEFAULT_VOICE_ENGINES,
  isDefaultVoice,
  VOICE_OPTIONS,
  VOICE_OPTIONS_BY_ID,
  type VoiceEngineName,
} from '../../config/voices';
import { concatAudio, measureDuration, normalizeAudio } from '../../lib/voice/audio';
import { findExecutable } from '../../lib/voice/exec';
import { FestivalProvider, FliteProvider } from '../../lib/voice/festival';
import { transcribe, wordErrorRate } from '../../lib/voice/intelligibility';
import { OpenJTalkProvider } from '../../lib/voice/open-jtalk';
import { PicoProvider } from '../../lib/voice/pico';
import { RHVoiceProvider } from '../../lib/voice/rhvoice';
import { EspeakProvider } from '../../lib/voice/tts';
import { type SpeechProvider } from '../../lib/voice/speech';

const PARAGRAPHS: Partial<Record<LanguageCode, string>> = {
  en: 'Acme Analytics connects your product, billing and CRM data and turns it into live dashboards in minutes. Share insights where your team already works, and stay secure by default.',
  ja: 'アクメ・アナリティクスは、製品、請求、顧客管理のデータをつなぎ、数分でライブのダッシュボードに変えます。チームが普段使う場所で分析を共有でき、セキュリティも標準で万全です。',
  ko: '아크미 애널리틱스는 제품, 결제, 고객 관리 데이터를 연결해 몇 분 만에 실시간 대시보드로 바꿔 줍니다. 팀이 이미 일하는 곳에서 인사이트를 공유하고, 기본부터 안전하게 지키세요.',
  zh: '阿克米分析把产品、账单和客户数据连接起来，几分钟内变成实时仪表板。在团队已经在用的地方分享洞察，默认就很安全。',
  es: 'Acme Analytics conecta los datos de tu producto, facturación y CRM y los convierte en paneles en vivo en minutos. Comparte ideas donde tu equipo ya trabaja y mantente seguro desde el primer día.',
  fr: 'Acme Analytics relie les données de votre produit, de votre facturation et de votre CRM et les transforme en tableaux de bord en direct en quelques minutes. Partagez vos analyses là où votre équipe travaille déjà, en toute sécurité.',
  de: 'Acme Analytics verbindet Ihre Produkt-, Abrechnungs- und CRM-Daten und macht daraus in wenigen Minuten Live-Dashboards. Teilen Sie Erkenntnisse dort, wo Ihr Team bereits arbeitet, und bleiben Sie von Anfang an sicher.',
  it: 'Acme Analytics collega i dati di prodotto, fatturazione e CRM e li trasforma in pochi minuti in dashboard in tempo reale. Condividi le analisi dove il tuo team lavora già e resta sicuro fin da subito.',
  pt: 'A Acme Analytics conecta os dados do seu produto, faturamento e CRM e os transforma em painéis ao vivo em minutos. Compartilhe insights onde sua equipe já trabalha e fique seguro desde o início.',
  ru: 'Acme Analytics объединяет данные о продукте, платежах и клиентах и за несколько минут превращает их в живые панели. Делитесь выводами там, где уже работает ваша команда, и оставайтесь в безопасности с первого дня.',
};

/** Narration-like English sentences without names or acronyms (PocketSphinx's dictionary has none of them). */
const WER_SENTENCES = [
  'Connect every source in minutes and see your numbers update live.',
  'Dashboards that explain themselves, so your whole team can read them.',
  'Share insights where your team already works, in chat or by email.',
  'Stay secure by default, with single sign on and audit logs.',
  'Plans start small and grow with your business.',
  'Try it today and build your first report before lunch.',
  'Our support team answers every question within one hour.',
  'Invite your colleagues and decide together with the same data.',
  'Set an alert and we will tell you when something changes.',
  'Export any chart to a slide with a single click.',
  'Welcome to our new product tour.',
  'Your data stays in the region you choose.',
  'Build reports with drag and drop, no code required.',
  'Forecast next quarter from the trends you already have.',
  'Every plan includes a free trial for thirty days.',
  'Find the customers who are about to leave, and keep them.',
  'Schedule a weekly summary for your manager.',
  'The mobile app shows the same numbers on the go.',
  'Connect your billing system and see revenue by product.',
  'Start today at our website and bring your whole team.',
];

const GNU_TIME = '/usr/bin/time';

/**
 * A stand-in for an engine's binary that runs it under GNU time, appending its peak resident memory (KiB)
 * to a log: the providers run it exactly as they run the real one.
 */
async function measured(dir: string, binary: string): Promise<{ binary: string; peakKib: () => Promise<number | undefined> }> {
  const real = await findExecutable(binary);
  if (!real) throw new Error(`${binary} not found: run scripts/bootstrap.sh`);
  if (!existsSync(GNU_TIME)) return { binary: real, peakKib: () => Promise.resolve(undefined) };
  const log = path.join(dir, `${path.basename(real)}.rss`);
  const wrapper = path.join(dir, `${path.basename(real)}.measured`);
  await fs.writeFile(wrapper, `#!/bin/sh\nexec ${GNU_TIME} -a -o '${log}' -f '%M' '${real}' "$@"\n`, { mode: 0o755 });
  return {
    binary: wrapper,
    async peakKib() {
      const text = await fs.readFile(log, 'utf8').catch(() => '');
      await fs.rm(log, { force: true });
      const values = text
        .split('\n')
        .map(Number)
        .filter((n) => n > 0);
      return values.length ? Math.max(...values) : undefined;
    },
  };
}

interface Engine {
  name: VoiceEngineName;
  voice: string;
  /** the VOICE_OPTIONS id asked for (engines of several voices: one entry per voice) */
  voiceId?: string;
  languages: LanguageCode[];
  speech: SpeechProvider;
  peakKib: () => Promise<number | undefined>;
  /** a new provider, for one that keeps a process and cannot be used once closed (festival) */
  reopen?: () => SpeechProvider;
}

async function engines(dir: string): Promise<Engine[]> {
  const speech = loadConfig().speech;
  const espeak = await measured(dir, 'espeak-ng');
  const jtalk = await measured(dir, 'open_jtalk');
  const festival = await measured(dir, 'festival');
  const flite = await measured(dir, 'flite');
  const pico2wave = await measured(dir, 'pico2wave');
  const rhvoiceTest = await measured(dir, 'RHVoice-test');
  const openJTalk = new OpenJTalkProvider({ binary: jtalk.binary, voices: speech.openJTalkVoices, dictionary: speech.openJTalkDictionary });
  const pico = new PicoProvider({ binary: pico2wave.binary });
  const rhvoice = new RHVoiceProvider({ binary: rhvoiceTest.binary });
  // Every voice of the engines of several voices, as a campaign asks for it.
  const voicesOf = (engine: PicoProvider | RHVoiceProvider, peakKib: () => Promise<number | undefined>): Engine[] =>
    VOICE_OPTIONS.filter((v) => v.engine === engine.name).map((v) => ({
      name: engine.name,
      voice: engine.voiceFor(v.language, v.id),
      voiceId: v.id,
      languages: [v.language],
      speech: engine,
      peakKib,
    }));
  const list: Engine[] = [
    {
      name: 'espeak',
      voice: 'espeak-ng',
      languages: ['en', 'ja', 'ko', 'zh', 'es', 'fr', 'de', 'it', 'pt', 'ru'],
      speech: new EspeakProvider({ binary: espeak.binary }),
      peakKib: espeak.peakKib,
    },
    { name: 'open-jtalk', voice: openJTalk.voice, languages: ['ja'], speech: openJTalk, peakKib: jtalk.peakKib },
    {
      name: 'festival',
      voice: DEFAULT_FESTIVAL_VOICE,
      languages: ['en'],
      speech: new FestivalProvider({ binary: festival.binary }),
      peakKib: festival.peakKib,
      reopen: () => new FestivalProvider({ binary: festival.binary }),
    },
    {
      name: 'flite',
      voice: DEFAULT_FLITE_VOICE,
      languages: ['en'],
      speech: new FliteProvider({ binary: flite.binary }),
      peakKib: flite.peakKib,
    },
    ...voicesOf(pico, pico2wave.peakKib),
    ...voicesOf(rhvoice, rhvoiceTest.peakKib),
  ];
  for (const e of new Set(list.map((e) => e.speech))) await e.verify();
  for (const e of list) await e.peakKib(); // verify's runs are not counted
  // Known once verify found the voice file (Mei, or the fallback voice).
  list[1].voice = openJTalk.voice;
  return list;
}

interface Row {
  language: LanguageCode;
  engine: string;
  voice: string;
  product: boolean;
  audio: number;
  synth: number;
  pipeline: number;
  peakMib?: number;
}

/** The largest peak resident set (VmHWM) of the processes `pids` and their children (GNU time runs the engine as one). */
async function keptPeakKib(pids: number[]): Promise<number | undefined> {
  const hwm = async (pid: number): Promise<number> => {
    const status = await fs.readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    const own = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
    const children = await fs.readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
    const theirs = await Promise.all(
      children
        .split(/\s+/)
        .filter(Boolean)
        .map((child) => hwm(Number(child))),
    );
    return Math.max(own, ...theirs);
  };
  const peaks = await Promise.all(pids.map(hwm));
  const peak = Math.max(0, ...peaks);
  return peak > 0 ? peak : undefined;
}

/** Whether `engine` is what the product says `language` with when a campaign asks for no voice. */
function isProduct(engine: Engine, language: LanguageCode): boolean {
  if ((DEFAULT_VOICE_ENGINES[language] ?? 'espeak') !== engine.name) return false;
  const option = engine.voiceId ? VOICE_OPTIONS_BY_ID.get(engine.voiceId) : undefined;
  return !option || isDefaultVoice(option);
}

const secondsSince = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

async function speedAndMemory(list: Engine[], dir: string, rounds: number): Promise<Row[]> {
  const rows: Row[] = [];
  const only = process.env.BENCH_LANGUAGES?.split(',');
  for (const [language, text] of Object.entries(PARAGRAPHS) as Array<[LanguageCode, string]>) {
    if (only && !only.includes(language)) continue;
    for (const engine of list.filter((e) => e.languages.includes(language))) {
      const voice = engine.voiceId;
      // Warm-up, not counted: page cache, and espeak's Japanese kana step loads its dictionary (~1 s) once.
      await engine.speech.synthesize({ text, language, voice, outFile: path.join(dir, 'warm.wav') });
      await engine.peakKib();
      const row: Row = {
        language,
        engine: engine.name,
        voice: engine.name === 'espeak' ? (engine.speech as EspeakProvider).voiceFor(language) : engine.voice,
        product: isProduct(engine, language),
        audio: 0,
        synth: 0,
        pipeline: 0,
      };
      for (let round = 0; round < rounds; round += 1) {
        const raw = path.join(dir, `${language}-${engine.name}-${round}.raw.wav`);
        const clean = path.join(dir, `${language}-${engine.name}-${round}.wav`);
        const started = process.hrtime.bigint();
        await engine.speech.synthesize({ text, language, voice, outFile: raw });
        row.synth += secondsSince(started);
        await normalizeAudio(raw, clean);
        row.audio += await measureDuration(clean);
        row.pipeline += secondsSince(started);
      }
      // festival keeps its voice loaded in one process (lib/voice/festival-process.ts): its peak is known when it ends.
      // festival's kept process is killed by close() (GNU time with it, which then writes nothing): its peak is read
      // from /proc before.
      const kept = engine.speech instanceof FestivalProvider ? await keptPeakKib(engine.speech.pool.pids()) : undefined;
      await engine.speech.close?.();
      const kib = kept ?? (await engine.peakKib());
      if (engine.reopen) engine.speech = engine.reopen();
      row.peakMib = kib === undefined ? undefined : kib / 1024;
      rows.push(row);
    }
  }
  return rows;
}

async function englishWer(
  list: Engine[],
  dir: string,
): Promise<Array<{ engine: string; voice: string; product: boolean; wer: number; audio: number }>> {
  const reference = WER_SENTENCES.join(' ');
  const out: Array<{ engine: string; voice: string; product: boolean; wer: number; audio: number }> = [];
  for (const engine of list.filter((e) => e.languages.includes('en'))) {
    // Each sentence as a narration segment (synthesized, normalized, the scene pause after it), joined into one track.
    const files: string[] = [];
    for (const [i, text] of WER_SENTENCES.entries()) {
      const raw = path.join(dir, `wer-${engine.name}-${i}.raw.wav`);
      const clean = path.join(dir, `wer-${engine.name}-${i}.wav`);
      await engine.speech.synthesize({ text, language: 'en', voice: engine.voiceId, outFile: raw });
      await normalizeAudio(raw, clean, { padEndMs: 450 });
      files.push(clean);
    }
    const track = path.join(dir, `wer-${engine.name}-${engine.voice}.wav`);
    await concatAudio(files, track);
    await engine.peakKib();
    out.push({
      engine: engine.name,
      voice: engine.speech instanceof EspeakProvider ? engine.speech.voiceFor('en') : engine.voice,
      product: isProduct(engine, 'en'),
      wer: wordErrorRate(reference, await transcribe(track)),
      audio: await measureDuration(track),
    });
  }
  return out;
}

async function main(): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-voice-'));
  let list: Engine[] = [];
  try {
    list = await engines(dir);
    const rows = await speedAndMemory(list, dir, rounds);
    const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
    console.log(`node ${process.version}, ${os.cpus().length} × ${cpu}, ${rounds} rounds per language and engine`);
    console.log('RTF = wall seconds per second of audio (lower is better); "synth" is the engine alone, "pipeline" adds');
    console.log("ffmpeg's normalization and ffprobe's measurement; memory is the engine process's peak RSS (GNU time).");
    console.log('* = the engine the product uses for that language (config/voices.ts)\n');
    console.log('lang  engine        voice                    audio s  synth RTF  pipeline RTF  peak MiB');
    console.log('----  ------------  -----------------------  -------  ---------  ------------  --------');
    for (const r of rows) {
      const mem = r.peakMib === undefined ? 'n/a' : r.peakMib.toFixed(0);
      console.log(
        `${r.language.padEnd(4)}  ${(r.engine + (r.product ? ' *' : '')).padEnd(12)}  ${r.voice.padEnd(23)}  ${(r.audio / rounds).toFixed(1).padStart(7)}  ${(r.synth / r.audio).toFixed(3).padStart(9)}  ${(r.pipeline / r.audio).toFixed(3).padStart(12)}  ${mem.padStart(8)}`,
      );
    }
    if (rows.some((r) => r.language === 'ja' && r.engine === 'espeak'))
      console.log('(ja espeak: the kana step runs in the node process, kuroshiro + kuromoji: not in the engine figure)');
    if (process.env.BENCH_WER === '0') return;
    console.log(
      `\nEnglish word error rate through PocketSphinx (en-us model; ${WER_SENTENCES.length} sentences, one track per voice; lower is better)\n`,
    );
    console.log('engine        voice                    audio s  WER');
    console.log('------------  -----------------------  -------  -----');
    for (const r of await englishWer(list, dir)) {
      const product = r.product ? ' *' : '';
      console.log(`${(r.engine + product).padEnd(12)}  ${r.voice.padEnd(23)}  ${r.audio.toFixed(1).padStart(7)}  ${r.wer.toFixed(3)}`);
    }
    const version = (pkg: string) => execFileSync('dpkg-query', ['-W', '-f=${Version}', pkg], { encoding: 'utf8' });
    console.log(
      `\n(pocketsphinx ${version('pocketsphinx')}, festival ${version('festival')}, flite ${version('flite')}, espeak-ng ${version('espeak-ng')}, ` +
        `pico2wave ${version('libttspico-utils')}, RHVoice ${version('rhvoice')})`,
    );
  } finally {
    for (const engine of list) await engine.speech.close?.();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
