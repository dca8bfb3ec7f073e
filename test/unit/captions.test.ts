/** Captions: line breaking per script (lib/text.ts), cues timed to each scene's audio, WebVTT out and back in. */
import { SUPPORTED_LANGUAGES, type LanguageCode } from '../../config/catalog';
import { buildCues, toSrt, toWebVtt, parseWebVtt, DEFAULT_MAX_LINE_CHARS, type CaptionScene, type Cue } from '../../lib/voice/captions';
import { PHRASES, phrase } from '../../lib/script/phrases';
import { breakLines, displayLength } from '../../lib/text';
import { parseSrtStrict } from '../support/srt';

const NO_START = /^[、。，．！？）」』]/u;
const NO_END = /[（「『]$/u;

const JA =
  '撮影した映像をアップロードしてスタイルを選ぶだけで、数分後には字幕付きの洗練された動画が完成します。' +
  '「自動翻訳」にも対応しているので、海外のお客様にもそのまま届けられます。今すぐacme.ioでお試しください。';
const ZH =
  '我们的平台可以帮助您在几分钟内制作出专业的视频，并自动生成二十种语言的字幕。无论是“产品介绍”还是活动宣传，都能轻松完成！立即访问acme.io，开始体验。';
const KO =
  '업로드한 영상을 몇 분 만에 세련된 홍보 영상으로 바꿔 주고, 스무 개 언어의 자막도 자동으로 만들어 줍니다. 지금 바로 acme.io에서 시작해 보세요.';
const AR =
  'يحوّل Acme لقطاتك إلى فيديو احترافي جاهز للمشاركة خلال دقائق، مع ترجمة تلقائية إلى عشرين لغة وتعليق صوتي طبيعي يناسب جمهورك أينما كان.';
const EN =
  'Upload your footage, pick a style, and Acme turns it into a polished, ready-to-share video in minutes, with captions in twenty languages and a natural-sounding voiceover.';
const DE =
  'Laden Sie Ihr Rohmaterial hoch, wählen Sie einen Stil, und Acme macht daraus in wenigen Minuten ein fertiges Produktvideo mit Untertiteln in zwanzig Sprachen.';
const HI = 'बस अपना वीडियो अपलोड करें और कुछ ही मिनटों में बीस भाषाओं में सबटाइटल और स्वाभाविक आवाज़ के साथ तैयार प्रोमो वीडियो पाएँ।';
const TH = 'อัปโหลดวิดีโอของคุณแล้วรับวิดีโอโฆษณาพร้อมคำบรรยายยี่สิบภาษาภายในไม่กี่นาที ทดลองใช้ได้แล้ววันนี้ที่ acme.io';

const SAMPLE: Partial<Record<LanguageCode, string>> = { ja: JA, zh: ZH, ko: KO, ar: AR, en: EN, de: DE, hi: HI, th: TH };

/** Narration of a three-scene demo video in `lang`: intro + lead, a long feature sentence, the call to action. */
function demoScenes(lang: LanguageCode): CaptionScene[] {
  const p = PHRASES[lang];
  const vars = { name: 'Acme Cloud', domain: 'acme.io' };
  return [
    {
      text: [phrase(lang, 'intro', vars), phrase(lang, 'featuresLead', vars)].join(p.sentenceSeparator),
      startSeconds: 0.5,
      durationSeconds: 3.21,
    },
    { text: SAMPLE[lang] ?? EN, startSeconds: 3.71, durationSeconds: 9.3337 },
    { text: phrase(lang, 'callToAction', vars), startSeconds: 13.5, durationSeconds: 2.4 },
  ];
}

const ms = (s: number) => Math.round(s * 1000);

function expectCoverage(cues: Cue[], scenes: CaptionScene[], language: LanguageCode, max: number) {
  let previousEnd = -1;
  for (const scene of scenes) {
    const own = cues.filter((c) => c.start >= scene.startSeconds - 0.001 && c.end <= scene.startSeconds + scene.durationSeconds + 0.001);
    expect(own.length).toBeGreaterThan(0);
    expect(Math.abs(ms(own[0].start) - scene.startSeconds * 1000)).toBeLessThanOrEqual(1);
    expect(Math.abs(ms(own.at(-1)!.end) - (scene.startSeconds + scene.durationSeconds) * 1000)).toBeLessThanOrEqual(1);
    for (let i = 1; i < own.length; i++) expect(own[i].start).toBe(own[i - 1].end); // contiguous
  }
  for (const c of cues) {
    expect(c.end).toBeGreaterThan(c.start);
    expect(c.start).toBeGreaterThanOrEqual(previousEnd); // ordered, no overlaps
    previousEnd = c.end;
    const lines = c.text.split('\n');
    expect(lines.length).toBeLessThanOrEqual(2);
    for (const line of lines) {
      expect(line).toBe(line.trim());
      expect(line.length).toBeGreaterThan(0);
      expect(displayLength(line)).toBeLessThanOrEqual(max);
    }
  }
  // Every character of the narration is captioned, in order.
  const strip = (t: string) => t.replace(/\s+/g, '');
  expect(strip(cues.map((c) => c.text).join(''))).toBe(strip(scenes.map((s) => s.text).join('')));
  void language;
}

describe('buildCues', () => {
  test.each([...SUPPORTED_LANGUAGES])('%s: cues cover each scene exactly, contiguous, ≤ 2 lines within the default limit', (lang) => {
    const scenes = demoScenes(lang);
    const cues = buildCues(scenes, lang);
    expectCoverage(cues, scenes, lang, DEFAULT_MAX_LINE_CHARS[lang]);
  });

  test.each([12, 20, 30])('custom maxLineChars %i is respected in every language', (max) => {
    for (const lang of SUPPORTED_LANGUAGES) {
      const scenes = demoScenes(lang);
      expectCoverage(buildCues(scenes, lang, { maxLineChars: max }), scenes, lang, max);
    }
  });

  test('cue durations are proportional to their character counts', () => {
    const cues = buildCues([{ text: EN, startSeconds: 10, durationSeconds: 12 }], 'en');
    expect(cues.length).toBeGreaterThan(1);
    const chars = cues.map((c) => c.text.replace(/\s/g, '').length);
    const total = chars.reduce((a, b) => a + b, 0);
    // Exact up to millisecond rounding of each boundary.
    cues.forEach((c, i) => expect(Math.abs(c.end - c.start - (12 * chars[i]) / total)).toBeLessThanOrEqual(0.0011));
  });

  test('short sentences share a cue; a cue never splits inside a word in English', () => {
    const cues = buildCues([{ text: 'Meet Acme Cloud. Here’s what it can do.', startSeconds: 0, durationSeconds: 3 }], 'en');
    expect(cues).toEqual([{ start: 0, end: 3, text: 'Meet Acme Cloud. Here’s what it can do.' }]);
    const words = new Set(EN.split(' '));
    for (const c of buildCues([{ text: EN, startSeconds: 0, durationSeconds: 10 }], 'en', { maxLineChars: 20 })) {
      for (const w of c.text.split(/[\n ]/)) expect(words).toContain(w);
    }
  });

  test('scenes may come out of order; empty narration yields no cues; overlapping scenes are rejected', () => {
    const cues = buildCues(
      [
        { text: 'Second.', startSeconds: 5, durationSeconds: 1 },
        { text: '   ', startSeconds: 2, durationSeconds: 1 },
        { text: 'First.', startSeconds: 0, durationSeconds: 2 },
      ],
      'en',
    );
    expect(cues).toEqual([
      { start: 0, end: 2, text: 'First.' },
      { start: 5, end: 6, text: 'Second.' },
    ]);
    expect(() =>
      buildCues(
        [
          { text: 'One.', startSeconds: 0, durationSeconds: 2 },
          { text: 'Two.', startSeconds: 1.5, durationSeconds: 2 },
        ],
        'en',
      ),
    ).toThrow(RangeError);
    expect(() => buildCues([{ text: 'x', startSeconds: -1, durationSeconds: 1 }], 'en')).toThrow(RangeError);
    expect(() => buildCues([{ text: 'x', startSeconds: 0, durationSeconds: Number.NaN }], 'en')).toThrow(RangeError);
    expect(buildCues([{ text: 'Nothing to hear.', startSeconds: 1, durationSeconds: 0 }], 'en')).toEqual([]);
  });

  test('a long Japanese sentence is split into cues at 、 rather than mid-phrase', () => {
    const cues = buildCues([{ text: JA, startSeconds: 0, durationSeconds: 15 }], 'ja');
    expect(cues.map((c) => c.text)).toContain('撮影した映像をアップロードして\nスタイルを選ぶだけで、');
    expect(cues.at(-1)!.text).toBe('今すぐacme.ioで\nお試しください。');
  });
});

describe('breakLines', () => {
  test('English never splits a word, at any width that fits its longest word', () => {
    const words = EN.split(' ');
    expect(Math.max(...words.map((w) => w.length))).toBe(16); // "natural-sounding"
    for (let max = 16; max <= 60; max++) {
      const lines = breakLines(EN, 'en', max);
      expect(lines.join(' ')).toBe(EN);
      for (const line of lines) {
        expect(line.length).toBeLessThanOrEqual(max);
        for (const w of line.split(' ')) expect(words).toContain(w);
      }
    }
  });

  test('a word longer than the line is split after a hyphen if it has one', () => {
    expect(breakLines('a polished, ready-to-share video', 'en', 12)).toEqual(['a polished,', 'ready-to-', 'share video']);
  });

  test('a word longer than the line is the only thing ever split', () => {
    const lines = breakLines('Visit https://example.com/a/very/long/path/to/a/page today', 'en', 16);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(16);
    expect(lines[0]).toBe('Visit');
    expect(lines.at(-1)).toBe('today');
  });

  test('Japanese: lines ≤ limit, none starts with 、 or 。 (or other closing marks), none ends with an opening bracket', () => {
    for (const max of [8, 10, 13, 16, 20]) {
      const lines = breakLines(JA, 'ja', max);
      expect(lines.join('')).toBe(JA);
      for (const line of lines) {
        expect(displayLength(line)).toBeLessThanOrEqual(max);
        expect(line).not.toMatch(NO_START);
        expect(line).not.toMatch(NO_END);
      }
      expect(lines.join('\n')).toContain('acme.io'); // the domain is never split
    }
  });

  test('Japanese: prefers breaking after punctuation', () => {
    expect(breakLines('今すぐ始めましょう、簡単です。', 'ja', 12)).toEqual(['今すぐ始めましょう、', '簡単です。']);
    // 。 would start the second line if cut at 16 exactly: it is pushed out with the preceding character instead.
    const lines = breakLines('あいうえおかきくけこさしすせそた。ちつてと', 'ja', 16);
    for (const line of lines) expect(line).not.toMatch(NO_START);
  });

  test('Chinese: lines ≤ limit, no line starts with ，。！ or a closing quote, words kept together where possible', () => {
    for (const max of [8, 12, 16]) {
      const lines = breakLines(ZH, 'zh', max);
      expect(lines.join('')).toBe(ZH);
      for (const line of lines) {
        expect(displayLength(line)).toBeLessThanOrEqual(max);
        expect(line).not.toMatch(/^[，。！？、”’）]/u);
        expect(line).not.toMatch(/[“‘（]$/u);
      }
      expect(lines.join('\n')).toContain('acme.io');
    }
    expect(breakLines('立即访问acme.io，开始体验。', 'zh', 16)).toEqual(['立即访问acme.io，', '开始体验。']);
  });

  test('Korean breaks at spaces (eojeol), within 18 by default', () => {
    const lines = breakLines(KO, 'ko', DEFAULT_MAX_LINE_CHARS.ko);
    expect(DEFAULT_MAX_LINE_CHARS.ko).toBe(18);
    expect(lines.join(' ')).toBe(KO);
    const words = new Set(KO.split(' '));
    for (const line of lines) {
      expect(displayLength(line)).toBeLessThanOrEqual(18);
      for (const w of line.split(' ')) expect(words).toContain(w);
    }
  });

  test('Arabic: a long sentence breaks only at spaces and keeps logical order', () => {
    const words = AR.split(' ');
    for (const max of [20, 30, 42]) {
      const lines = breakLines(AR, 'ar', max);
      expect(lines.length).toBeGreaterThan(1);
      expect(lines.join(' ')).toBe(AR); // same words, same (logical) order
      expect(lines.flatMap((l) => l.split(' '))).toEqual(words);
      for (const line of lines) expect(displayLength(line)).toBeLessThanOrEqual(max);
    }
  });

  test('Hindi counts grapheme clusters, not code points, and breaks at spaces', () => {
    const lines = breakLines(HI, 'hi', 42);
    expect(lines.join(' ')).toBe(HI);
    for (const line of lines) expect(displayLength(line)).toBeLessThanOrEqual(42);
    expect(lines.some((l) => l.length > 42)).toBe(true); // more code points than clusters
  });

  test('Thai: breaks at spaces when present, otherwise at dictionary word boundaries; never before a combining mark', () => {
    expect(breakLines('ขอแนะนำ Acme มาดูกันว่าทำอะไรได้บ้าง', 'th', 20)).toEqual(['ขอแนะนำ Acme', 'มาดูกันว่าทำอะไรได้บ้าง']);
    const run = 'อัปโหลดวิดีโอของคุณแล้วรับวิดีโอโฆษณาพร้อมคำบรรยายยี่สิบภาษาภายในไม่กี่นาที';
    const lines = breakLines(run, 'th', 15);
    expect(lines.join('')).toBe(run);
    const boundaries = new Set(Array.from(new Intl.Segmenter('th', { granularity: 'word' }).segment(run), (s) => s.index));
    let offset = 0;
    for (const line of lines) {
      expect(displayLength(line)).toBeLessThanOrEqual(15);
      expect(line).not.toMatch(/^\p{M}/u);
      expect(boundaries.has(offset)).toBe(true);
      offset += line.length;
    }
  });

  test('rejects a non-positive limit', () => {
    expect(() => breakLines('x', 'en', 0)).toThrow(RangeError);
  });
});

describe('WebVTT', () => {
  test('format: header, blank line, HH:MM:SS.mmm timings, escaped text', () => {
    const vtt = toWebVtt([
      { start: 0, end: 1.5, text: 'R&D <fast>\nsecond line' },
      { start: 3723.456, end: 3725, text: 'a --> b' },
    ]);
    expect(vtt).toBe(
      [
        'WEBVTT',
        '',
        '00:00:00.000 --> 00:00:01.500',
        'R&amp;D &lt;fast&gt;',
        'second line',
        '',
        '01:02:03.456 --> 01:02:05.000',
        'a --&gt; b',
        '',
      ].join('\n'),
    );
  });

  test.each([...SUPPORTED_LANGUAGES])('%s: round-trips through parseWebVtt', (lang) => {
    const cues = buildCues(demoScenes(lang), lang);
    expect(parseWebVtt(toWebVtt(cues))).toEqual(cues);
  });

  test('round-trips awkward text', () => {
    const cues: Cue[] = [
      { start: 0, end: 1, text: 'Fish & chips <b>bold</b> &amp; --> done' },
      { start: 1, end: 2.001, text: 'Acme يحوّل لقطاتك\nإلى فيديو' },
    ];
    const vtt = toWebVtt(cues);
    expect(vtt).toContain('\u200FAcme يحوّل'); // an RTL line starting with a Latin word gets an RLM…
    expect(vtt).not.toContain('\u200Fإلى');
    expect(parseWebVtt(vtt)).toEqual(cues); // …which the parser removes again
  });

  test('parses identifiers, settings, NOTE/STYLE blocks, CRLF, BOM, header text, tags and entities', () => {
    const vtt =
      '\uFEFFWEBVTT - captions\r\nKind: captions\r\n\r\nSTYLE\r\n::cue { color: red }\r\n\r\nNOTE a comment\r\nspanning lines\r\n\r\n' +
      'intro\r\n00:01.000 --> 00:02.500 align:start line:90%\r\n<v Narrator>Hello &amp; welcome</v>\r\n\r\n\r\n' +
      '00:00:02.500 --> 00:00:04.000\r\n&lt;tag&gt; &#233;t&#xE9;\r\n';
    expect(parseWebVtt(vtt)).toEqual([
      { start: 1, end: 2.5, text: 'Hello & welcome' },
      { start: 2.5, end: 4, text: '<tag> été' },
    ]);
  });

  test.each([
    ['missing signature', '00:00:00.000 --> 00:00:01.000\nhi\n'],
    ['wrong signature', 'WEBVTTX\n\n00:00:00.000 --> 00:00:01.000\nhi\n'],
    ['header not followed by a blank line', 'WEBVTT\n00:00:00.000 --> 00:00:01.000\nhi\n'],
    ['short seconds', 'WEBVTT\n\n00:00:1.000 --> 00:00:02.000\nhi\n'],
    ['comma decimal', 'WEBVTT\n\n00:00:01,000 --> 00:00:02.000\nhi\n'],
    ['minutes over 59', 'WEBVTT\n\n00:61:00.000 --> 01:02:00.000\nhi\n'],
    ['no arrow spacing', 'WEBVTT\n\n00:00:01.000-->00:00:02.000\nhi\n'],
    ['end before start', 'WEBVTT\n\n00:00:02.000 --> 00:00:01.000\nhi\n'],
    ['cue without timing', 'WEBVTT\n\nid\nhello\n'],
    ['missing blank line between cues', 'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nhi\n00:00:02.000 --> 00:00:03.000\nthere\n'],
    ['out of order', 'WEBVTT\n\n00:00:05.000 --> 00:00:06.000\nb\n\n00:00:01.000 --> 00:00:02.000\na\n'],
  ])('rejects %s', (_, vtt) => {
    expect(() => parseWebVtt(vtt)).toThrow(SyntaxError);
  });
});

describe('SubRip (SRT)', () => {
  test('format: cues numbered from 1, HH:MM:SS,mmm timings, multi-line text as is, CRLF throughout, a blank line after each cue', () => {
    const srt = toSrt([
      { start: 0, end: 1.5, text: 'R&D <fast>\nsecond line' },
      { start: 59.9996, end: 61.0004, text: 'one line' },
      { start: 3723.456, end: 3725, text: 'a --> b\nc' },
    ]);
    expect(srt).toBe(
      [
        '1',
        '00:00:00,000 --> 00:00:01,500',
        'R&D <fast>',
        'second line',
        '',
        '2',
        '00:01:00,000 --> 00:01:01,000',
        'one line',
        '',
        '3',
        '01:02:03,456 --> 01:02:05,000',
        'a --\u2060> b', // "-->" would read as a timing line: a word joiner (invisible) breaks it
        'c',
        '',
        '',
      ].join('\r\n'),
    );
    expect(srt).not.toMatch(/\r(?!\n)|(?<!\r)\n/);
  });

  test('hours past 99 and millisecond rounding', () => {
    expect(toSrt([{ start: 360_000.0004, end: 360_001.9996, text: 'late' }])).toBe('1\r\n100:00:00,000 --> 100:00:02,000\r\nlate\r\n\r\n');
  });

  test('blank lines inside a cue are dropped, a cue left without text is skipped and the numbering stays consecutive', () => {
    const srt = toSrt([
      { start: 0, end: 1, text: 'first\n\n  \nstill first' },
      { start: 1, end: 2, text: '\n \n' },
      { start: 2, end: 3, text: 'second\r\nline two' },
    ]);
    expect(parseSrtStrict(srt)).toEqual([
      { start: 0, end: 1, text: 'first\nstill first' },
      { start: 2, end: 3, text: 'second\nline two' },
    ]);
  });

  test('no cues: an empty file', () => {
    expect(toSrt([])).toBe('');
  });

  test('refuses cues with bad timings, as toWebVtt does', () => {
    expect(() => toSrt([{ start: 2, end: 1, text: 'x' }])).toThrow(RangeError);
    expect(() => toSrt([{ start: -1, end: 1, text: 'x' }])).toThrow(RangeError);
    expect(() => toSrt([{ start: 0, end: Number.NaN, text: 'x' }])).toThrow(RangeError);
  });

  test.each([...SUPPORTED_LANGUAGES])('%s: the same cues as the WebVTT (times, text, order), UTF-8 as is', (lang) => {
    const cues = buildCues(demoScenes(lang), lang);
    const srt = toSrt(cues);
    expect(parseSrtStrict(srt)).toEqual(parseWebVtt(toWebVtt(cues)));
    // Written as UTF-8 text, read back byte for byte.
    expect(Buffer.from(srt, 'utf8').toString('utf8')).toBe(srt);
    expect(srt.match(/^\d+\r\n\d{2}:\d{2}:\d{2},\d{3} --> /gm)).toHaveLength(cues.length);
  });

  test("right-to-left lines get the WebVTT's RLM, so players lay them out alike", () => {
    const cues: Cue[] = [{ start: 1, end: 2.001, text: 'Acme يحوّل لقطاتك\nإلى فيديو' }];
    const srt = toSrt(cues);
    expect(srt).toContain('\u200FAcme يحوّل');
    expect(srt).not.toContain('\u200Fإلى');
    expect(parseSrtStrict(srt)).toEqual(cues);
  });
});
