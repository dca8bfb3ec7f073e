/**
 * A page's language versions reached only through its language switcher (lib/capture/language-links.ts): a site
 * without <link rel="alternate" hreflang> had its Chinese video narrated in English from the English page.
 */
import {
  ownLanguageName,
  sameSite,
  switcherVersionLanguage,
  switcherVersions,
  writtenLanguage,
  type LinkSeen,
} from '../../lib/capture/language-links';

const link = (href: string, text: string, attrs: Partial<Pick<LinkSeen, 'lang' | 'hreflang'>> = {}): LinkSeen => ({
  href,
  text,
  lang: attrs.lang ?? null,
  hreflang: attrs.hreflang ?? null,
});

test('a language switcher: links labelled with a language’s own name, or with a lang / hreflang attribute', () => {
  const page = 'https://lumen.example/';
  const versions = switcherVersions(
    [
      link('https://lumen.example/', 'English'),
      link('https://lumen.example/zh/', '简体中文'),
      link('https://lumen.example/de/', 'Deutsch'),
      link('https://lumen.example/ko/', 'KO', { hreflang: 'ko' }),
      link('https://lumen.example/ja/', 'JA', { lang: 'ja-JP' }),
      link('https://lumen.example/es/', '🇪🇸 Español (España)'),
    ],
    page,
  );
  expect(versions).toEqual([
    { hreflang: 'zh-hans', href: 'https://lumen.example/zh/', via: 'switcher' },
    { hreflang: 'de', href: 'https://lumen.example/de/', via: 'switcher' },
    { hreflang: 'ko', href: 'https://lumen.example/ko/', via: 'switcher' },
    { hreflang: 'ja-jp', href: 'https://lumen.example/ja/', via: 'switcher' },
    { hreflang: 'es', href: 'https://lumen.example/es/', via: 'switcher' },
  ]);
});

test('a client-rendered route (/#/zh-cn/) is a version; an anchor on the page is not', () => {
  const versions = switcherVersions(
    [
      link('https://tome.example/#/zh-cn/', '中文'),
      link('https://tome.example/#pricing', 'Deutsch'),
      link('https://tome.example/#/', 'EN'),
    ],
    'https://tome.example/',
  );
  expect(versions).toEqual([{ hreflang: 'zh', href: 'https://tome.example/#/zh-cn/', via: 'switcher' }]);
});

test('only the same site counts; other schemes and the page itself never', () => {
  const versions = switcherVersions(
    [
      link('https://lumen-reader.example/ja/', '日本語'),
      link('https://www.lumen.example/fr/', 'Français'),
      link('https://zh.lumen.example/', '中文'),
      link('mailto:hello@lumen.example', 'Deutsch'),
      link('https://lumen.example/?utm=x', 'Español'),
    ],
    'https://lumen.example/',
  );
  expect(versions.map((v) => v.href)).toEqual([
    'https://www.lumen.example/fr/',
    'https://zh.lumen.example/',
    'https://lumen.example/?utm=x',
  ]);
  expect(switcherVersions([link('https://lumen.example/', 'Deutsch')], 'https://lumen.example/')).toEqual([]);
});

test('a sibling host counts when its first label is a language, two sites of one provider never', () => {
  expect(sameSite(new URL('https://en.docs.example/'), new URL('https://zh.docs.example/'))).toBe(true);
  expect(sameSite(new URL('https://alice.github.io/'), new URL('https://bob.github.io/'))).toBe(false);
  expect(sameSite(new URL('https://example.com/'), new URL('https://example.org/'))).toBe(false);
});

test('own names only, in their usual spellings; an English name or a code is not a switcher’s link', () => {
  expect(ownLanguageName('中文（简体）')).toBe('zh-hans');
  expect(ownLanguageName('繁體中文')).toBe('zh-hant');
  expect(ownLanguageName('日本語')).toBe('ja');
  expect(ownLanguageName('한국어')).toBe('ko');
  expect(ownLanguageName('PORTUGUÊS (Brasil)')).toBe('pt-br');
  expect(ownLanguageName('Japanese')).toBeNull();
  expect(ownLanguageName('DE')).toBeNull();
  expect(ownLanguageName('Deutsch lernen mit uns')).toBeNull();
});

test('Simplified Chinese before Traditional when a switcher has both', () => {
  const versions = switcherVersions(
    [link('https://x.example/tw/', '繁體中文'), link('https://x.example/cn/', '简体中文')],
    'https://x.example/',
  );
  expect(versions.map((v) => v.hreflang)).toEqual(['zh-hans', 'zh-hant']);
});

describe('a version found through the switcher is used when it is in that language', () => {
  const chinese = {
    title: 'Tome 文档',
    headings: [{ text: 'Tome 把 Markdown 文件夹变成文档网站' }],
    mainText: '每一页都是仓库里的一个 Markdown 文件。',
  };
  test('declared so in its markup', () => {
    expect(switcherVersionLanguage({ ...chinese, language: 'zh-CN' }, 'zh', 'en')).toBe('zh-CN');
  });
  test('a client-rendered route that keeps its shell’s lang: told by its script', () => {
    expect(switcherVersionLanguage({ ...chinese, language: 'en' }, 'zh', 'en')).toBe('zh');
    const english = {
      title: 'Tome',
      headings: [{ text: 'Tome turns Markdown folders into documentation' }],
      mainText: 'Every page is a file.',
    };
    expect(switcherVersionLanguage({ ...english, language: 'en' }, 'zh', 'en')).toBeNull();
  });
  test('declared in another language: not this one', () => {
    expect(switcherVersionLanguage({ ...chinese, language: 'ja' }, 'zh', 'en')).toBeNull();
  });
});

describe('the language a page is written in, when its markup says another', () => {
  const page = (language: string | null, title: string, mainText: string) => ({ language, title, headings: [], mainText });
  const chinese = page(
    'en',
    'Kite 2 - 轻巧、顺手的移动端组件库',
    'Kite 是一套为手机网页设计的界面组件库。支持 Vue 3 和 TypeScript，按需引入组件。',
  );
  test('a Chinese page in a shell that declares English is Chinese, when the campaign asks for Chinese', () => {
    expect(writtenLanguage(chinese, ['zh', 'en'])).toBe('zh');
    expect(writtenLanguage(chinese, ['en', 'de'])).toBeNull();
  });
  test('the markup holds when the text bears it out, or cannot tell', () => {
    expect(writtenLanguage({ ...chinese, language: 'zh-CN' }, ['zh', 'en'])).toBeNull();
    expect(writtenLanguage(page('en', 'Kite', 'Kite is a small set of components for phone pages.'), ['zh', 'ja', 'de'])).toBeNull();
    // An English page quoting a few Chinese words is still English.
    expect(
      writtenLanguage(page('en', 'Kite', 'Kite (风筝) is a small set of components for phone pages, made in Hangzhou.'), ['zh']),
    ).toBeNull();
  });
  test('Japanese by its kana, Chinese by Han characters without kana', () => {
    const japanese = page('en', 'Kite', 'Kite はスマートフォン向けの小さな部品集です。数分で使い始められます。');
    expect(writtenLanguage(japanese, ['zh', 'ja'])).toBe('ja');
    expect(writtenLanguage(chinese, ['ja', 'zh'])).toBe('zh');
  });
});
