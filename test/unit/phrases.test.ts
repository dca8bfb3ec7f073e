/** The phrase tables: every supported language covered, written in its own script, placeholders filled in. */
import { SUPPORTED_LANGUAGES, type LanguageCode } from '../../config/catalog';
import { PHRASES, phrase } from '../../lib/script/phrases';
import { displayLength } from '../../lib/text';

const SENTENCE_KEYS = ['intro', 'featuresLead', 'callToAction'] as const;
const ALL_KEYS = [...SENTENCE_KEYS, 'ctaLabel'] as const;
const texts = (lang: LanguageCode) => ALL_KEYS.map((k) => PHRASES[lang][k]);
const filled = (lang: LanguageCode, key: (typeof ALL_KEYS)[number]) => phrase(lang, key, { name: 'Acme', domain: 'acme.io' });

describe('PHRASES', () => {
  test('cover exactly the supported languages, every field filled in', () => {
    expect(Object.keys(PHRASES).sort()).toEqual([...SUPPORTED_LANGUAGES].sort());
    for (const lang of SUPPORTED_LANGUAGES) {
      const p = PHRASES[lang];
      for (const t of texts(lang)) expect(t.trim().length).toBeGreaterThan(0);
      expect(p.readingRate).toBeGreaterThan(0);
      expect(['words', 'chars']).toContain(p.unit);
      expect(['ltr', 'rtl']).toContain(p.direction);
    }
  });

  test('{name} appears once in intro, {domain} once in callToAction, no other placeholders anywhere', () => {
    for (const lang of SUPPORTED_LANGUAGES) {
      const p = PHRASES[lang];
      expect(p.intro.match(/\{name\}/g)).toHaveLength(1);
      expect(p.callToAction.match(/\{domain\}/g)).toHaveLength(1);
      expect(p.intro.replace('{name}', '')).not.toMatch(/[{}]/);
      expect(p.callToAction.replace('{domain}', '')).not.toMatch(/[{}]/);
      expect(p.featuresLead).not.toMatch(/[{}]/);
      expect(p.ctaLabel).not.toMatch(/[{}]/);
    }
  });

  test('each language is written in its own script', () => {
    const every = (lang: LanguageCode, re: RegExp) => {
      for (const t of texts(lang)) expect(t.replace(/\{\w+\}/g, '')).toMatch(re);
    };
    every('ja', /[\p{Script=Hiragana}\p{Script=Katakana}]/u);
    every('ko', /\p{Script=Hangul}/u);
    every('zh', /\p{Script=Han}/u);
    every('ar', /\p{Script=Arabic}/u);
    every('hi', /\p{Script=Devanagari}/u);
    every('th', /\p{Script=Thai}/u);
    every('ru', /\p{Script=Cyrillic}/u);
    every('uk', /\p{Script=Cyrillic}/u);
    // Simplified Chinese has no kana; Ukrainian uses і/ї/є/ґ and Russian does not.
    for (const t of texts('zh')) expect(t).not.toMatch(/[\p{Script=Hiragana}\p{Script=Katakana}]/u);
    expect(texts('uk').join(' ')).toMatch(/[іїєґ]/u);
    expect(texts('ru').join(' ')).not.toMatch(/[іїєґ]/u);
    // Vietnamese with its diacritics, Turkish with its letters.
    expect(texts('vi').join(' ')).toMatch(/[ạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựđ]/u);
    expect(texts('tr').join(' ')).toMatch(/[ışğçöüİ]/u);
    // Latin-script languages use only Latin letters.
    for (const lang of ['en', 'es', 'fr', 'de', 'pt', 'it', 'nl', 'pl', 'tr', 'id', 'vi', 'sv'] as const) {
      for (const t of texts(lang)) {
        for (const letter of t.replace(/\{\w+\}/g, '').match(/\p{L}/gu) ?? []) expect(letter).toMatch(/\p{Script=Latin}/u);
      }
    }
  });

  test('sentence conventions: terminators, separators, direction', () => {
    for (const lang of SUPPORTED_LANGUAGES) {
      const p = PHRASES[lang];
      for (const key of SENTENCE_KEYS) {
        if (lang === 'th') expect(p[key]).not.toMatch(/[.!?]$/);
        else expect(p[key]).toMatch(/[.!?。！？।]$/u);
      }
      expect(p.ctaLabel).not.toMatch(/[.。।]$/u);
      expect(displayLength(p.ctaLabel)).toBeLessThanOrEqual(24);
      expect(p.direction).toBe(lang === 'ar' ? 'rtl' : 'ltr');
    }
    expect(PHRASES.ja.fullStop).toBe('。');
    expect(PHRASES.zh.fullStop).toBe('。');
    expect(PHRASES.ja.sentenceSeparator).toBe('');
    expect(PHRASES.zh.sentenceSeparator).toBe('');
    expect(PHRASES.hi.fullStop).toBe('।');
    expect(PHRASES.th.fullStop).toBe('');
    expect(PHRASES.th.sentenceSeparator).toBe(' ');
    expect(PHRASES.en.fullStop).toBe('.');
    expect(['ja', 'zh', 'th'].filter((l) => PHRASES[l as LanguageCode].unit === 'chars')).toEqual(['ja', 'zh', 'th']);
    expect(SUPPORTED_LANGUAGES.filter((l) => PHRASES[l].unit === 'chars').sort()).toEqual(['ja', 'th', 'zh']);
  });
});

describe('phrase()', () => {
  test('fills placeholders', () => {
    expect(phrase('en', 'intro', { name: 'Acme Cloud' })).toBe('Meet Acme Cloud.');
    expect(phrase('en', 'callToAction', { domain: 'acme.io' })).toBe('Try it today at acme.io.');
    expect(phrase('ja', 'callToAction', { domain: 'acme.io' })).toBe('今すぐacme.ioでお試しください。');
    expect(phrase('ar', 'intro', { name: 'Acme' })).toContain('Acme');
    expect(phrase('en', 'ctaLabel', {})).toBe('Start today');
    for (const lang of SUPPORTED_LANGUAGES) {
      for (const key of ALL_KEYS) expect(filled(lang, key)).not.toMatch(/[{}]/);
    }
  });

  test('throws when a placeholder is missing', () => {
    expect(() => phrase('en', 'intro', {})).toThrow(/\{name\}/);
    expect(() => phrase('de', 'callToAction', { name: 'Acme' })).toThrow(/\{domain\}/);
  });
});

describe('hook frames (question, answer, benefit, number)', () => {
  const HOOK_KEYS = ['question', 'answer', 'benefit', 'number'] as const;
  const PLACEHOLDERS: Record<(typeof HOOK_KEYS)[number], string[]> = {
    question: ['{benefit}'],
    answer: ['{name}'],
    benefit: ['{benefit}', '{name}'],
    number: ['{figure}', '{name}'],
  };
  const LONG_NAME = 'Northwind Ledger Accounting Automation Platform Documentation';
  const vars = {
    name: LONG_NAME,
    benefit: 'Dashboards your whole team will actually read',
    figure: 'Trusted by 10,000+ teams, 99.9 % uptime, 24/7',
  };

  test('each placeholder once, no other', () => {
    for (const lang of SUPPORTED_LANGUAGES) {
      for (const key of HOOK_KEYS) {
        const template = PHRASES[lang][key];
        expect((template.match(/\{\w+\}/g) ?? []).sort()).toEqual([...PLACEHOLDERS[key]].sort());
      }
    }
  });

  test('written in its own script (the question frame is marks around the page phrase, so it is read with its answer)', () => {
    const own: Partial<Record<LanguageCode, RegExp>> = {
      ja: /[\p{Script=Hiragana}\p{Script=Katakana}]/u,
      ko: /\p{Script=Hangul}/u,
      zh: /\p{Script=Han}/u,
      ar: /\p{Script=Arabic}/u,
      hi: /\p{Script=Devanagari}/u,
      th: /\p{Script=Thai}/u,
      ru: /\p{Script=Cyrillic}/u,
      uk: /\p{Script=Cyrillic}/u,
    };
    for (const lang of SUPPORTED_LANGUAGES) {
      const p = PHRASES[lang];
      const texts = [`${p.question} ${p.answer}`, p.benefit, p.number].map((t) => t.replace(/\{\w+\}/g, ''));
      for (const t of texts) {
        const script = own[lang];
        if (script) expect(t).toMatch(script);
        else for (const letter of t.match(/\p{L}/gu) ?? []) expect(letter).toMatch(/\p{Script=Latin}/u);
      }
    }
    for (const t of HOOK_KEYS.map((k) => PHRASES.zh[k])) expect(t).not.toMatch(/[\p{Script=Hiragana}\p{Script=Katakana}]/u);
    expect(HOOK_KEYS.map((k) => PHRASES.uk[k]).join(' ')).toMatch(/[іїєґ]/u);
    expect(HOOK_KEYS.map((k) => PHRASES.ru[k]).join(' ')).not.toMatch(/[іїєґ]/u);
  });

  test("filled with a long name, a long phrase and numbers: whole, ended with the language's punctuation", () => {
    for (const lang of SUPPORTED_LANGUAGES) {
      for (const key of HOOK_KEYS) {
        const text = phrase(lang, key, vars);
        expect(text).not.toMatch(/[{}]/);
        for (const placeholder of PLACEHOLDERS[key]) expect(text).toContain(vars[placeholder.slice(1, -1) as keyof typeof vars]);
        if (lang === 'th') expect(text).not.toMatch(/[.!?]$/);
        else if (key === 'question') expect(text).toMatch(lang === 'ar' ? /؟$/u : /[?？]$/u);
        else expect(text).toMatch(lang === 'hi' ? /।$/u : lang === 'ja' || lang === 'zh' ? /。$/u : /\.$/u);
      }
    }
    expect(phrase('en', 'number', { figure: '10,000+ teams', name: 'Acme' })).toBe("10,000+ teams: that's Acme.");
    expect(phrase('es', 'question', { benefit: 'Paneles que tu equipo lee' })).toBe('¿Paneles que tu equipo lee?');
    expect(phrase('ja', 'benefit', { benefit: '説明いらずのダッシュボード', name: 'Acme' })).toBe('Acmeなら、説明いらずのダッシュボード。');
    expect(() => phrase('en', 'number', { name: 'Acme' })).toThrow(/\{figure\}/);
  });
});
