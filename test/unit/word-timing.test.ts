/**
 * Word-by-word captions (`captions: "words"`): the caption words of each script, the engines' own word times (festival's
 * Token/Word relation, Open JTalk's label trace: real engines) mapped onto them, the measured alignment checked
 * against those own times, and the word cues in WebVTT (cue-internal timestamps, read back) and SubRip (a cue a
 * word, karaoke style).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ACTIVE_WORD_COLOR, buildCues, buildWordCues, parseWebVtt, toSrt, toWebVtt } from '../../lib/voice/captions';
import { FestivalProvider } from '../../lib/voice/festival';
import { OpenJTalkProvider, wordTimes } from '../../lib/voice/open-jtalk';
import { EspeakProvider } from '../../lib/voice/tts';
import type { SpeechProvider, WordTiming } from '../../lib/voice/speech';
import { captionWords, mapOntoWords, measureWordTimings, wordTimings } from '../../lib/voice/word-timing';
import { parseSrtStrict } from '../support/srt';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'word-timing-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

describe('caption words', () => {
  test('spaced scripts split at spaces, punctuation kept on its word', () => {
    expect(captionWords('Hello  world, this costs 20 dollars.', 'en')).toEqual(['Hello', 'world,', 'this', 'costs', '20', 'dollars.']);
  });

  test('Japanese keeps particles and endings with their word, and punctuation ends a group', () => {
    expect(captionWords('今日は良い天気です。速く出荷しましょう。', 'ja')).toEqual([
      '今日は',
      '良い',
      '天気です。',
      '速く',
      '出荷しましょう。',
    ]);
  });

  test('Chinese joins one-character words to a neighbour, Thai joins short words', () => {
    expect(captionWords('我们的团队每天都在使用这个工具。', 'zh')).toEqual(['我们的', '团队', '每天', '都在', '使用', '这个', '工具。']);
    const thai = captionWords('ทีมของเราใช้เครื่องมือนี้ทุกวัน', 'th');
    expect(thai.join('')).toBe('ทีมของเราใช้เครื่องมือนี้ทุกวัน');
    expect(thai.length).toBeGreaterThan(2);
  });
});

describe("an engine's own times", () => {
  test('are mapped onto caption words by their letters, an engine word spelt out or folded included', () => {
    const engine: WordTiming[] = [
      { text: 'Cafe', start: 0.1, end: 0.4 },
      { text: 'costs', start: 0.4, end: 0.8 },
      { text: '20', start: 0.8, end: 1.2 },
    ];
    expect(mapOntoWords(engine, ['Café', 'costs', '20.'])).toEqual([
      { text: 'Café', start: 0.1, end: 0.4 },
      { text: 'costs', start: 0.4, end: 0.8 },
      { text: '20.', start: 0.8, end: 1.2 },
    ]);
    // Another text altogether: not mapped (the caller measures instead).
    expect(mapOntoWords(engine, ['something', 'else', 'entirely'])).toBeNull();
  });

  test("festival reports each token's times, across its utterances, and the measured alignment agrees with them", async () => {
    const festival = new FestivalProvider();
    try {
      const req = {
        text: 'Reports arrive every morning. Share them with your team in one click.',
        language: 'en' as const,
        outFile: path.join(dir, 'festival.wav'),
        words: true,
      };
      const result = await festival.synthesize(req);
      expect(result.words?.map((w) => w.text)).toEqual([
        'Reports',
        'arrive',
        'every',
        'morning',
        'Share',
        'them',
        'with',
        'your',
        'team',
        'in',
        'one',
        'click',
      ]);
      // The second sentence is a second utterance: its times go on from the first's.
      const words = result.words!;
      for (let i = 1; i < words.length; i += 1) expect(words[i].start).toBeGreaterThanOrEqual(words[i - 1].start);
      expect(words[4].start).toBeGreaterThan(words[3].end);
      const own = await wordTimings((r) => festival.synthesize(r), req, req.outFile, result.words);
      expect(own.source).toBe('engine');
      expect(own.words.map((w) => w.text)).toEqual(captionWords(req.text, 'en'));
      const measured = await measureWordTimings((r) => festival.synthesize(r), req, req.outFile, captionWords(req.text, 'en'));
      const errors = measured.map((w, i) => Math.abs(w.start - own.words[i].start));
      expect(median(errors)).toBeLessThanOrEqual(0.06);
    } finally {
      await festival.close();
    }
  }, 60_000);

  test("Open JTalk's label trace gives each word's times, and the measured alignment agrees with them", async () => {
    const openJTalk = new OpenJTalkProvider();
    const req = {
      text: '今日は良い天気です。速く出荷しましょう。',
      language: 'ja' as const,
      outFile: path.join(dir, 'ja.wav'),
      words: true,
    };
    const result = await openJTalk.synthesize(req);
    expect(result.words?.map((w) => w.text).join('')).toBe('今日は良い天気です。速く出荷しましょう。');
    const own = await wordTimings((r) => openJTalk.synthesize(r), req, req.outFile, result.words);
    expect(own.source).toBe('engine');
    expect(own.words.map((w) => w.text)).toEqual(['今日は', '良い', '天気です。', '速く', '出荷しましょう。']);
    const measured = await measureWordTimings(
      (r) => openJTalk.synthesize(r),
      req,
      req.outFile,
      own.words.map((w) => w.text),
    );
    expect(median(measured.map((w, i) => Math.abs(w.start - own.words[i].start)))).toBeLessThanOrEqual(0.06);
  }, 60_000);

  test('an Open JTalk trace whose morae do not add up gives nothing (the words are measured instead)', () => {
    const trace = [
      '[Text analysis result]',
      'はい,感動詞,*,*,*,*,*,はい,ハイ,ハイ,1/2,*,0',
      '',
      '[Output label]',
      '0 100000 xx^xx-sil+h=a/A',
      '',
    ].join('\n');
    expect(wordTimes(trace)).toBeNull();
  });

  test('espeak-ng gives no times: its words are measured, in order, inside the audio', async () => {
    const espeak: SpeechProvider = new EspeakProvider();
    const req = { text: 'Connect every source in minutes.', language: 'en' as const, outFile: path.join(dir, 'espeak.wav'), words: true };
    const result = await espeak.synthesize(req);
    const timed = await wordTimings((r) => espeak.synthesize(r), req, req.outFile, result?.words);
    expect(timed.source).toBe('measured');
    expect(timed.words.map((w) => w.text)).toEqual(['Connect', 'every', 'source', 'in', 'minutes.']);
    for (let i = 1; i < timed.words.length; i += 1) expect(timed.words[i].start).toBeGreaterThan(timed.words[i - 1].start);
  }, 60_000);
});

describe('word cues', () => {
  const words: WordTiming[] = [
    { text: 'Plans', start: 0.2, end: 0.6 },
    { text: 'start', start: 0.6, end: 1.0 },
    { text: 'small', start: 1.0, end: 1.3 },
    { text: 'morning,', start: 1.3, end: 1.8 },
    { text: 'ready', start: 2.3, end: 2.6 },
    { text: 'soon.', start: 2.6, end: 3.0 },
  ];
  const cues = buildWordCues([{ words, startSeconds: 0, durationSeconds: 4 }], 'en');

  test('group a few words, end a group at a comma or a pause, and carry each word start', () => {
    expect(cues.map((c) => c.text)).toEqual(['Plans start small', 'morning,', 'ready soon.']);
    expect(cues[0]).toMatchObject({ start: 0.2, end: 1.3 });
    expect(cues[0].words).toEqual([
      { text: 'Plans', start: 0.2 },
      { text: 'start', start: 0.6 },
      { text: 'small', start: 1.0 },
    ]);
    // A pause after "morning," shorter than the hold: the group stays up until the next one.
    expect(cues[1]).toMatchObject({ start: 1.3, end: 2.3 });
    expect(cues[2].end).toBeCloseTo(3.6, 6);
  });

  test('go into WebVTT as cue-internal timestamps and come back from it', () => {
    const vtt = toWebVtt(cues);
    expect(vtt).toContain('00:00:00.200 --> 00:00:01.300\nPlans <00:00:00.600>start <00:00:01.000>small\n');
    const back = parseWebVtt(vtt);
    expect(back.map((c) => c.text)).toEqual(cues.map((c) => c.text));
    expect(back[0].words).toEqual(cues[0].words);
    // A plain cue has no words.
    expect(
      parseWebVtt(toWebVtt(buildCues([{ text: 'Hello there.', startSeconds: 0, durationSeconds: 2 }], 'en')))[0].words,
    ).toBeUndefined();
  });

  test('become one SubRip cue per word, the word said in the highlight colour', () => {
    const srt = parseSrtStrict(toSrt(cues));
    expect(srt).toHaveLength(words.length);
    expect(srt[1]).toEqual({ start: 0.6, end: 1.0, text: `Plans <font color="${ACTIVE_WORD_COLOR}">start</font> small` });
  });

  test('unspaced scripts join their groups without spaces', () => {
    const ja = buildWordCues(
      [
        {
          words: [
            { text: '今日は', start: 0.3, end: 0.6 },
            { text: '良い', start: 0.6, end: 0.9 },
          ],
          startSeconds: 0,
          durationSeconds: 2,
        },
      ],
      'ja',
    );
    expect(toWebVtt(ja)).toContain('今日は<00:00:00.600>良い');
  });
});
