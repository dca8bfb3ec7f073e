/**
 * bench/voice/word-timing: how close the caption words' starts (captions `words`, lib/voice/word-timing.ts) are to
 * the moments those words start in the audio, per engine, through the product's own provider and timing code.
 * Printed per engine: median and 95th-percentile error, against the target median of 60 ms.
 *
 * The reference ("where the word really starts") is independent of what is measured:
 * - espeak-ng: the word events of libespeak-ng itself (its synth callback, called through Python's ctypes; the
 *   library's samples are the command line's, byte for byte), so the measured alignment is checked in every
 *   language of SENTENCES;
 * - festival and Open JTalk: the captions take their own times (the engine's utterance), which are the reference;
 *   what is printed for them is the mapping onto caption words, and, as the check of the measured alignment on
 *   other voices, the measured alignment run on their audio as if they had reported nothing;
 * - English of every engine, too: PocketSphinx's recognition (`pocketsphinx_continuous -time yes`), for the words
 *   it recognised correctly — an outside opinion, itself accurate to a few tens of ms.
 * Run: npm run bench:word-timing  (BENCH_LANGUAGES=en,de limits the espeak-ng languages)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { LanguageCode } from '../../config/catalog';
import { readPcmWav } from '../../lib/voice/alignment';
import { findExecutable, run } from '../../lib/voice/exec';
import { FestivalProvider } from '../../lib/voice/festival';
import { toSixteenKhzMono } from '../../lib/voice/intelligibility';
import { OpenJTalkProvider } from '../../lib/voice/open-jtalk';
import { PicoProvider } from '../../lib/voice/pico';
import { RHVoiceProvider } from '../../lib/voice/rhvoice';
import { ESPEAK_VOICES, EspeakProvider } from '../../lib/voice/tts';
import type { SpeechProvider, SpeechRequest, WordTiming } from '../../lib/voice/speech';
import { captionWords, measureWordTimings, wordTimings } from '../../lib/voice/word-timing';

const TARGET_MEDIAN_MS = 60;

/** Narration-like sentences, two a language. */
const SENTENCES: Partial<Record<LanguageCode, string[]>> = {
  en: [
    'Connect every source in minutes and see your numbers update live.',
    'Share insights where your team already works, in chat or by email.',
    'Try it today and build your first report before lunch.',
  ],
  es: ['Conecta los datos de tu producto y conviértelos en paneles en vivo.', 'Comparte ideas donde tu equipo ya trabaja.'],
  fr: [
    'Reliez les données de votre produit et transformez-les en tableaux de bord.',
    'Partagez vos analyses là où votre équipe travaille déjà.',
  ],
  de: [
    'Verbinden Sie Ihre Daten und machen Sie daraus in wenigen Minuten Dashboards.',
    'Teilen Sie Erkenntnisse dort, wo Ihr Team bereits arbeitet.',
  ],
  it: ['Collega i dati di prodotto e trasformali in pochi minuti in dashboard.', 'Condividi le analisi dove il tuo team lavora già.'],
  pt: ['Conecte os dados do seu produto e transforme-os em painéis ao vivo.', 'Compartilhe ideias onde sua equipe já trabalha.'],
  ru: ['Объедините данные о продукте и превратите их в живые панели.', 'Делитесь выводами там, где уже работает ваша команда.'],
  nl: ['Verbind je gegevens en maak er binnen enkele minuten dashboards van.', 'Deel inzichten waar je team al werkt.'],
  pl: ['Połącz dane produktu i zamień je w ciągu kilku minut w pulpity.', 'Dziel się wnioskami tam, gdzie pracuje twój zespół.'],
  tr: ['Ürün verilerinizi bağlayın ve dakikalar içinde canlı panolara dönüştürün.', 'Ekibinizin çalıştığı yerde içgörüleri paylaşın.'],
  ko: ['제품 데이터를 연결해 몇 분 만에 실시간 대시보드로 바꿔 줍니다.', '팀이 이미 일하는 곳에서 인사이트를 공유하세요.'],
  ar: ['اربط بيانات منتجك وحوّلها إلى لوحات مباشرة في دقائق.', 'شارك الأفكار حيث يعمل فريقك بالفعل.'],
  hi: ['अपने उत्पाद का डेटा जोड़ें और उसे मिनटों में लाइव डैशबोर्ड में बदलें।', 'अपनी टीम के साथ वहीं जानकारी साझा करें जहाँ वह काम करती है।'],
  sv: ['Koppla ihop dina data och gör dem till instrumentpaneler på några minuter.', 'Dela insikter där ditt team redan arbetar.'],
  uk: ['Поєднайте дані про продукт і перетворіть їх на живі панелі.', 'Діліться висновками там, де вже працює ваша команда.'],
  id: ['Hubungkan data produk Anda dan ubah menjadi dasbor langsung dalam hitungan menit.', 'Bagikan wawasan di tempat tim Anda bekerja.'],
  vi: ['Kết nối dữ liệu sản phẩm và biến chúng thành bảng điều khiển trực tiếp.', 'Chia sẻ thông tin ở nơi nhóm của bạn làm việc.'],
  ja: [
    '今日は良い天気です。速く出荷しましょう。',
    'チームが普段使う場所で分析を共有できます。',
    'データをつなぎ、数分でダッシュボードに変えます。',
  ],
};

/** libespeak-ng's word events for a text: [character offset (1-based), audio ms] per word, as JSON. */
const ESPEAK_EVENTS_PY = `
import ctypes, json, sys
lib = ctypes.CDLL('libespeak-ng.so.1')
class EVENT(ctypes.Structure):
    _fields_ = [('type', ctypes.c_int), ('unique_identifier', ctypes.c_uint), ('text_position', ctypes.c_int),
                ('length', ctypes.c_int), ('audio_position', ctypes.c_int), ('sample', ctypes.c_int),
                ('user_data', ctypes.c_void_p), ('id', ctypes.c_int64)]
CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.POINTER(EVENT))
lib.espeak_Initialize(2, 0, None, 0)
events = []
first = []
def cb(wav, n, ev):
    if n > 0 and len(first) < 22050: first.extend(wav[:min(n, 22050 - len(first))])
    i = 0
    while ev[i].type != 0:
        if ev[i].type == 1: events.append([ev[i].text_position, ev[i].length, ev[i].audio_position])
        i += 1
    return 0
callback = CB(cb)
lib.espeak_SetSynthCallback(callback)
class VOICE(ctypes.Structure):
    _fields_ = [('name', ctypes.c_char_p), ('languages', ctypes.c_char_p), ('identifier', ctypes.c_char_p),
                ('gender', ctypes.c_ubyte), ('age', ctypes.c_ubyte), ('variant', ctypes.c_ubyte), ('xx1', ctypes.c_ubyte),
                ('score', ctypes.c_int), ('spare', ctypes.c_void_p)]
# The command line's -v takes a voice file or a language; the library's by-name call only a file or name.
if lib.espeak_SetVoiceByName(sys.argv[1].encode()) != 0:
    lib.espeak_SetVoiceByProperties(ctypes.byref(VOICE(None, sys.argv[1].encode(), None, 0, 0, 0, 0, 0, None)))
lib.espeak_SetParameter(1, int(sys.argv[2]), 0)
text = sys.stdin.buffer.read()
lib.espeak_Synth(text, len(text) + 1, 0, 0, 0, 1, None, None)
print(json.dumps({'events': events, 'samples': first}))
`;

interface Errors {
  engine: string;
  what: string;
  reference: string;
  errorsMs: number[];
  msPerWord?: number[];
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
};

/** Each caption word's reference start from espeak-ng's events: the event at the word's first character. */
async function espeakReference(work: string, wav: string, text: string, language: LanguageCode, words: string[]): Promise<number[] | null> {
  const script = path.join(work, 'events.py');
  await fs.writeFile(script, ESPEAK_EVENTS_PY);
  const out = JSON.parse(execFileSync('python3', [script, ESPEAK_VOICES[language], '165'], { input: text }).toString()) as {
    events: number[][];
    samples: number[];
  };
  // The library's voice must be the command line's: their first samples are the same, or this is no reference.
  const cli = await readPcmWav(wav);
  if (out.samples.some((v, i) => Math.round((cli.samples[i] ?? 0) * 32768) !== v)) return null;
  const events = out.events.map(([position, , ms]) => ({ position, seconds: ms / 1000 }));
  // Characters (1-based) where each caption word starts in the text said.
  const chars = [...text];
  let at = 0;
  const starts = words.map((word) => {
    const first = [...word][0];
    while (at < chars.length && chars[at] !== first) at += 1;
    const start = at + 1;
    at += [...word].length;
    return start;
  });
  return starts.map((position, i) => {
    const end = starts[i + 1] ?? Infinity;
    const event = events.find((e) => e.position >= position && e.position < end);
    return event ? event.seconds : NaN;
  });
}

/** PocketSphinx's start of each caption word it recognised (NaN for the others), matched in order. */
async function sphinxReference(wav: string, words: string[]): Promise<number[]> {
  const sixteen = wav.replace(/\.wav$/, '.16k.wav');
  await toSixteenKhzMono(wav, sixteen);
  const { stdout } = await run('pocketsphinx_continuous', ['-infile', sixteen, '-time', 'yes', '-logfn', '/dev/null'], {
    timeoutMs: 120_000,
  });
  const heard = stdout
    .split('\n')
    .map((line) => /^([a-z']+)(?:\(\d+\))? ([\d.]+) ([\d.]+)/.exec(line))
    .flatMap((m) => (m && !m[1].startsWith('<') ? [{ word: m[1], start: Number(m[2]) }] : []));
  const fold = (w: string) => w.toLowerCase().replace(/[^a-z']/g, '');
  let from = 0;
  return words.map((word) => {
    const k = heard.findIndex((h, i) => i >= from && i <= from + 2 && h.word === fold(word));
    if (k < 0) return NaN;
    from = k + 1;
    return heard[k].start;
  });
}

function collect(into: Errors, words: WordTiming[], reference: number[]): void {
  words.forEach((w, i) => {
    if (Number.isFinite(reference[i])) into.errorsMs.push(Math.abs(w.start - reference[i]) * 1000);
  });
}

async function main(): Promise<void> {
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-word-timing-'));
  const only = process.env.BENCH_LANGUAGES?.split(',');
  const rows: Errors[] = [];
  const row = (engine: string, what: string, reference: string) => {
    const r: Errors = { engine, what, reference, errorsMs: [], msPerWord: [] };
    rows.push(r);
    return r;
  };
  let n = 0;
  const say = async (provider: SpeechProvider, text: string, language: LanguageCode) => {
    const req: SpeechRequest = { text, language, outFile: path.join(work, `${n++}.wav`), words: true };
    const result = await provider.synthesize(req);
    return { req, reported: result?.words };
  };
  const measure = async (provider: SpeechProvider, req: SpeechRequest, into: Errors) => {
    const words = captionWords(req.text, req.language);
    const t0 = performance.now();
    const measured = await measureWordTimings((r) => provider.synthesize(r), req, req.outFile, words);
    into.msPerWord!.push((performance.now() - t0) / words.length);
    return measured;
  };
  const sphinx = !!(await findExecutable('pocketsphinx_continuous'));

  // espeak-ng: measured, against its library's own word events.
  const espeak = new EspeakProvider();
  const python = !!(await findExecutable('python3'));
  const espeakRow = row('espeak-ng', 'measured (captions)', 'libespeak-ng word events');
  const espeakSphinx = row('espeak-ng en', 'measured (captions)', 'PocketSphinx');
  for (const [language, sentences] of Object.entries(SENTENCES) as Array<[LanguageCode, string[]]>) {
    if (language === 'ja' || (only && !only.includes(language)) || !python) continue;
    const languageRow = row(`  ${language}`, 'measured (captions)', 'libespeak-ng word events');
    for (const text of sentences) {
      const { req } = await say(espeak, text, language);
      const measured = await measure(espeak, req, espeakRow);
      const reference = await espeakReference(
        work,
        req.outFile,
        text,
        language,
        measured.map((w) => w.text),
      );
      if (reference) {
        collect(espeakRow, measured, reference);
        collect(languageRow, measured, reference);
      } else console.log(`espeak-ng ${language}: the library's voice is not the command line's; "${text}" not counted`);
      if (language === 'en' && sphinx)
        collect(
          espeakSphinx,
          measured,
          await sphinxReference(
            req.outFile,
            measured.map((w) => w.text),
          ),
        );
    }
  }

  // festival: its own times in the captions; the measured alignment checked against them.
  const festival = new FestivalProvider();
  const festivalOwn = row('festival', 'own times (captions)', 'PocketSphinx');
  const festivalMeasured = row('festival', 'measured (check)', "festival's own times");
  for (const text of SENTENCES.en!) {
    const { req, reported } = await say(festival, text, 'en');
    const own = await wordTimings((r) => festival.synthesize(r), req, req.outFile, reported);
    if (own.source !== 'engine') throw new Error(`festival gave no usable times for "${text}"`);
    const measured = await measure(festival, req, festivalMeasured);
    collect(
      festivalMeasured,
      measured,
      own.words.map((w) => w.start),
    );
    if (sphinx)
      collect(
        festivalOwn,
        own.words,
        await sphinxReference(
          req.outFile,
          own.words.map((w) => w.text),
        ),
      );
  }
  await festival.close();

  // Open JTalk: the same.
  const openJTalk = new OpenJTalkProvider();
  const jtalkMeasured = row('open-jtalk', 'measured (check)', "Open JTalk's own times");
  for (const text of SENTENCES.ja!) {
    const { req, reported } = await say(openJTalk, text, 'ja');
    const own = await wordTimings((r) => openJTalk.synthesize(r), req, req.outFile, reported);
    if (own.source !== 'engine') throw new Error(`Open JTalk gave no usable times for "${text}"`);
    const measured = await measure(openJTalk, req, jtalkMeasured);
    collect(
      jtalkMeasured,
      measured,
      own.words.map((w) => w.start),
    );
  }

  // Pico and RHVoice (no times of their own): measured, against PocketSphinx in English.
  for (const [name, provider] of [
    ['pico en', new PicoProvider()],
    ['rhvoice en', new RHVoiceProvider()],
  ] as const) {
    try {
      await provider.verify();
    } catch (err) {
      console.log(`${name}: not measured (${(err as Error).message})`);
      continue;
    }
    if (!provider.languages.includes('en') || !sphinx) continue;
    const r = row(name, 'measured (captions)', 'PocketSphinx');
    for (const text of SENTENCES.en!) {
      const { req } = await say(provider, text, 'en');
      const measured = await measure(provider, req, r);
      collect(
        r,
        measured,
        await sphinxReference(
          req.outFile,
          measured.map((w) => w.text),
        ),
      );
    }
  }

  console.log(`\nCaption word start vs the word's start in the audio (target: median ≤ ${TARGET_MEDIAN_MS} ms)\n`);
  console.log(
    ['engine'.padEnd(13), 'caption times'.padEnd(21), 'reference'.padEnd(26), 'words', 'median', '  p95', 'align ms/word', 'target'].join(
      ' ',
    ),
  );
  for (const r of rows) {
    if (!r.errorsMs.length) continue;
    const med = percentile(r.errorsMs, 0.5);
    const p95 = percentile(r.errorsMs, 0.95);
    const cost = r.msPerWord?.length ? (r.msPerWord.reduce((a, b) => a + b, 0) / r.msPerWord.length).toFixed(0) : '-';
    console.log(
      [
        r.engine.padEnd(13),
        r.what.padEnd(21),
        r.reference.padEnd(26),
        String(r.errorsMs.length).padStart(5),
        `${med.toFixed(0)} ms`.padStart(6),
        `${p95.toFixed(0)} ms`.padStart(6),
        cost.padStart(13),
        med <= TARGET_MEDIAN_MS ? 'met' : 'MISSED',
      ].join(' '),
    );
  }
  await fs.rm(work, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
