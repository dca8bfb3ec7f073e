/** Reading-rate maths: narration time estimates and trimming to a time budget, and the voice stage's re-fit built on them. */
import { SUPPORTED_LANGUAGES, type LanguageCode } from '../../config/catalog';
import { PHRASES, phrase, type PhraseKey } from '../../lib/script/phrases';
import { countUnits, estimateSeconds, fitToSeconds } from '../../lib/script/reading-rate';
import { shortenNarration } from '../../lib/script/writer';
import { cutNarrationEnd } from '../../lib/quality/narration';

const filled = (lang: LanguageCode, key: PhraseKey) => phrase(lang, key, { name: 'Acme', domain: 'acme.io' });

describe('estimateSeconds', () => {
  test('words per second for space-separated languages, punctuation not counted', () => {
    expect(estimateSeconds('Meet Acme Cloud today.', 'en')).toBeCloseTo(4 / 2.5);
    expect(estimateSeconds('Meet Acme Cloud today . — !', 'en')).toBeCloseTo(4 / 2.5);
    expect(estimateSeconds('Das sind die wichtigsten Funktionen.', 'de')).toBeCloseTo(5 / 2.1);
    expect(estimateSeconds('', 'en')).toBe(0);
  });

  test('characters per second for ja/zh/th, counting letters only (grapheme clusters for Thai)', () => {
    expect(estimateSeconds('今すぐ始める', 'ja')).toBeCloseTo(6 / 7);
    expect(estimateSeconds('今すぐ、始める。', 'ja')).toBeCloseTo(6 / 7);
    expect(estimateSeconds('立即开始', 'zh')).toBeCloseTo(4 / 4.5);
    // เริ่มเลย = เ ริ่ ม เ ล ย: 6 clusters, 8 code points.
    expect(countUnits('เริ่มเลย', 'th')).toBe(6);
    expect(estimateSeconds('เริ่มเลย', 'th')).toBeCloseTo(1);
  });
});

const LONG: Record<LanguageCode, string> = Object.fromEntries(
  SUPPORTED_LANGUAGES.map((lang) => {
    const p = PHRASES[lang];
    const body = [filled(lang, 'intro'), filled(lang, 'featuresLead'), filled(lang, 'callToAction')];
    return [lang, body.join(p.sentenceSeparator)];
  }),
) as Record<LanguageCode, string>;

describe('fitToSeconds', () => {
  test('returns the text unchanged (whitespace normalized) when it already fits', () => {
    expect(fitToSeconds('  Meet   Acme. ', 'en', 10)).toBe('Meet Acme.');
    expect(fitToSeconds(LONG.ja, 'ja', 60)).toBe(LONG.ja);
  });

  test('never exceeds the budget, in any language, at any budget', () => {
    const extra: Partial<Record<LanguageCode, string>> = {
      en: 'Upload your footage, pick a style, and Acme turns it into a polished video in minutes.',
      de: 'Laden Sie Ihr Material hoch, wählen Sie einen Stil, und Acme macht daraus in wenigen Minuten ein fertiges Video.',
      ja: '撮影した映像をアップロードしてスタイルを選ぶだけで、数分後には字幕付きの洗練された動画が完成します。',
      zh: '我们的平台可以帮助您在几分钟内制作出专业的视频，并自动生成二十种语言的字幕。',
      th: 'อัปโหลดวิดีโอของคุณแล้วรับวิดีโอโฆษณาพร้อมคำบรรยายยี่สิบภาษาภายในไม่กี่นาที',
    };
    for (const lang of SUPPORTED_LANGUAGES) {
      const sep = PHRASES[lang].sentenceSeparator;
      const text = [extra[lang] ?? '', LONG[lang]].filter(Boolean).join(sep);
      for (let seconds = 0; seconds <= 12; seconds += 0.25) {
        const out = fitToSeconds(text, lang, seconds);
        expect(estimateSeconds(out, lang)).toBeLessThanOrEqual(seconds + 1e-9);
      }
    }
  });

  test('keeps whole sentences when at least one fits', () => {
    const text = 'Meet Acme. Here is what it can do for your whole team. Try it today at acme.io.';
    expect(fitToSeconds(text, 'en', 1)).toBe('Meet Acme.');
    expect(fitToSeconds(text, 'en', 5)).toBe('Meet Acme. Here is what it can do for your whole team.');
    const ja = 'Acmeをご紹介します。主な機能を見ていきましょう。今すぐacme.ioでお試しください。';
    // 11 letters in the first sentence, 13 in the second: 24 / 7 = 3.43 s for both.
    expect(fitToSeconds(ja, 'ja', 3.4)).toBe('Acmeをご紹介します。');
    expect(fitToSeconds(ja, 'ja', 3.43 + 0.01)).toBe('Acmeをご紹介します。主な機能を見ていきましょう。');
    expect(fitToSeconds(ja, 'ja', 2)).toBe('Acmeをご紹介します。');
    expect(fitToSeconds(LONG.hi, 'hi', 2)).toBe(filled('hi', 'intro'));
  });

  test('never cuts mid-word in English or German', () => {
    const cases: Array<[LanguageCode, string]> = [
      ['en', 'Upload your footage, pick a style, and Acme turns it into a polished, ready-to-share video in minutes.'],
      ['de', 'Wir bringen Ihre Produktvideos in wenigen Minuten auf das nächste Level, ganz ohne Vorkenntnisse.'],
    ];
    for (const [lang, text] of cases) {
      const words = text.split(' ');
      for (let seconds = 0.4; seconds < 8; seconds += 0.2) {
        const out = fitToSeconds(text, lang, seconds);
        if (!out) continue;
        expect(out.endsWith('.')).toBe(true);
        const outWords = out.slice(0, -1).split(' ');
        outWords.forEach((w, i) => {
          if (i < outWords.length - 1) expect(w).toBe(words[i]);
          else expect(words[i].replace(/[,.]$/, '')).toBe(w.replace(/[,.]$/, ''));
        });
      }
    }
  });

  test('never ends on a connector, even closed with a full stop (the check hears a cut phrase)', () => {
    expect(fitToSeconds('Sync every bank and card feed into one ledger.', 'en', 4 / 2.5)).toBe('Sync every bank.');
  });

  test('prefers ending at a comma to ending on a dangling word', () => {
    const text = 'Upload your footage, pick a style, and Acme turns it into a polished video in minutes.';
    expect(fitToSeconds(text, 'en', 3)).toBe('Upload your footage, pick a style.');
  });

  test('Japanese: cuts after 。 when possible, otherwise after 、 or at a phrase boundary, never inside a Latin word', () => {
    const long = '撮影した映像をアップロードしてスタイルを選ぶだけで、数分後には字幕付きの洗練された動画が完成します。';
    const text = `${long}今すぐお試しください。`;
    // Up to 、 (25 letters), before スタイル (15) or after を (7), the cut would end on a particle (で, て, を): a
    // listener hears a phrase cut off (the check's cut_narration), so nothing is cut rather than a fragment said.
    for (const letters of [26, 16, 12]) {
      const cut = fitToSeconds(text, 'ja', letters / 7);
      expect(cut).toMatch(/^撮影した.*。$/u);
      expect(cut).not.toMatch(/(?:[をはがにでとのてし]|アップ|ス)。$/u);
      expect(cutNarrationEnd(cut.slice(0, -1), 'ja')).toBeNull();
    }
    const withDomain = '今すぐacme.ioにアクセスして、無料で始めてみてください。';
    for (let seconds = 0.2; seconds < 3.5; seconds += 0.1) {
      const cut = fitToSeconds(withDomain, 'ja', seconds);
      expect(estimateSeconds(cut, 'ja')).toBeLessThanOrEqual(seconds + 1e-9);
      if (!cut) continue;
      expect(cut.endsWith('。')).toBe(true);
      expect(withDomain.startsWith(cut.slice(0, -1))).toBe(true);
      expect(cut).not.toMatch(/acm。|acme\.?i?。/);
      expect(cut).not.toMatch(/、。/);
    }
  });

  test('Thai: cuts at a word boundary, adds no full stop', () => {
    const text = 'อัปโหลดวิดีโอของคุณแล้วรับวิดีโอโฆษณาพร้อมคำบรรยาย';
    const out = fitToSeconds(text, 'th', 2);
    expect(text.startsWith(out)).toBe(true);
    expect(out.length).toBeGreaterThan(0);
    const boundaries = new Set(Array.from(new Intl.Segmenter('th', { granularity: 'word' }).segment(text), (s) => s.index));
    expect(boundaries.has(out.length)).toBe(true);
  });

  test('returns empty when nothing fits; rejects negative budgets', () => {
    expect(fitToSeconds('Extraordinary.', 'en', 0.1)).toBe('');
    expect(fitToSeconds('今すぐ', 'ja', 0)).toBe('');
    expect(() => fitToSeconds('x', 'en', -1)).toThrow(RangeError);
  });
});

describe('shortenNarration (the voice stage re-fit when the real voice runs slow)', () => {
  const hero = {
    onScreenText: 'チームが本当に読むダッシュボード',
    narration: [
      { text: 'Acme Analytics は、プロダクト・請求・CRM のデータを数分でライブダッシュボードに変えます。', language: 'ja' as LanguageCode },
    ],
  };

  test('whole sentences are kept while they fit', () => {
    const scene = {
      onScreenText: 'Connect',
      narration: [{ text: 'Connect every source. Share every chart with the team today.', language: 'en' as LanguageCode }],
    };
    expect(shortenNarration(scene, 0.5)).toEqual([{ text: 'Connect every source.', language: 'en' }]);
  });

  test('one sentence too long for the voice: said whole (the scene runs longer), never cut, never swapped for the headline', () => {
    const [segment] = shortenNarration(hero, 0.6);
    expect(segment).toEqual(hero.narration[0]);
    // A cut of it would end on a particle (no verb): the reading-rate cut gives nothing rather than that fragment.
    expect(fitToSeconds(hero.narration[0].text, 'ja', estimateSeconds(hero.narration[0].text, 'ja') * 0.6)).not.toMatch(
      /[をはがにでとの]。$/,
    );
  });

  test('a later sentence that fits is said rather than a first one that does not', () => {
    const scene = {
      onScreenText: 'Connect',
      narration: [
        {
          text: 'Postgres, BigQuery, Snowflake, Stripe, Salesforce and eighty other sources plug in with a few clicks. It syncs every five minutes.',
          language: 'en' as LanguageCode,
        },
      ],
    };
    expect(shortenNarration(scene, 0.4)).toEqual([{ text: 'It syncs every five minutes.', language: 'en' }]);
  });
});
