/**
 * The video's own check on what is said and written (lib/quality/language.ts, boilerplate.ts, narration.ts): text
 * in another language, the page's furniture, a sentence said twice, a narration cut mid-phrase — in Latin, CJK,
 * Arabic-script and Cyrillic text; and the texts a good video says, which must pass.
 */
import { boilerplateKind } from '../../lib/quality/boilerplate';
import { judgeLanguage, latinLanguageOf } from '../../lib/quality/language';
import { cutNarrationEnd, repeatedSentences } from '../../lib/quality/narration';
import { PHRASES, phrase } from '../../lib/script/phrases';
import { SUPPORTED_LANGUAGES } from '../../config/catalog';

describe('wrong language', () => {
  test('text in another script than the video language’s is foreign, and says what it reads as', () => {
    expect(judgeLanguage('Build faster with the cloud platform your whole team already loves.', 'ja')).toEqual({
      foreign: true,
      seems: 'en',
    });
    expect(judgeLanguage('Создавайте сайты быстрее вместе с командой.', 'ar')).toEqual({ foreign: true, seems: 'ru' });
    expect(judgeLanguage('أنشئ موقعك بسرعة مع فريقك بالكامل.', 'ko')).toEqual({ foreign: true, seems: 'ar' });
    expect(judgeLanguage('チーム全員でもっと速くサイトを作りましょう。', 'en')).toEqual({ foreign: true, seems: 'ja' });
  });

  test('an English sentence in a German video is foreign; German with an English brand name is not', () => {
    expect(judgeLanguage('Build your website with the best tool for your business.', 'de')).toEqual({ foreign: true, seems: 'en' });
    expect(judgeLanguage('Mit Acme Cloud bauen Sie Ihre Website in wenigen Minuten und ohne Code.', 'de').foreign).toBe(false);
    expect(latinLanguageOf('Crea tu sitio web con la mejor herramienta para tu negocio.', 'pt')).toBe('es');
    expect(latinLanguageOf('Crie o seu site com a melhor ferramenta para o seu negócio.', 'pt')).toBeNull();
  });

  test('a long run of Han without kana in a Japanese video reads as Chinese; Japanese with kanji does not', () => {
    expect(judgeLanguage('我们的平台帮助团队更快地构建和发布网站与应用程序。', 'ja')).toEqual({ foreign: true, seems: 'zh' });
    expect(judgeLanguage('私たちのプラットフォームでチームはより速くサイトを公開できます。', 'ja').foreign).toBe(false);
    // A Japanese page's labels are Han alone, in Japanese forms: not Chinese.
    expect(judgeLanguage('都道府県別陽性者数 東京都 神奈川県 埼玉県 千葉県 大阪府 愛知県 北海道 福岡県 兵庫県', 'ja').foreign).toBe(false);
    expect(judgeLanguage('検査実施人数 陽性患者数 入院中 軽症中等症 重症 死亡 退院', 'ja', { minShare: 0.3 }).foreign).toBe(false);
  });

  test('names and short texts are never judged; every language’s own phrases pass', () => {
    expect(judgeLanguage('Acme Cloud', 'ja', { names: ['Acme Cloud'] }).foreign).toBe(false);
    expect(judgeLanguage('Pricing', 'ko').foreign).toBe(false);
    for (const language of SUPPORTED_LANGUAGES) {
      const intro = phrase(language, 'intro', { name: 'Acme Cloud' });
      const cta = phrase(language, 'callToAction', { domain: 'acme.test', name: 'Acme Cloud' });
      expect({ language, intro: judgeLanguage(intro, language, { names: ['Acme Cloud', 'acme.test'] }).foreign }).toEqual({
        language,
        intro: false,
      });
      expect({ language, cta: judgeLanguage(cta, language, { names: ['Acme Cloud', 'acme.test'] }).foreign }).toEqual({
        language,
        cta: false,
      });
    }
  });
});

describe('boilerplate', () => {
  test.each([
    ['en', 'We use cookies to improve your experience.', 'consent'],
    ['en', 'Accept all cookies', 'consent'],
    ['en', 'Skip to main content', 'skip_link'],
    ['en', 'Next slide', 'navigation'],
    ['en', 'Previous', 'navigation'],
    ['en', 'Powered by Shopify', 'powered_by'],
    ['en', '404 Page not found', 'error_page'],
    ['de', 'Wir verwenden Cookies, um unsere Website zu verbessern.', 'consent'],
    ['de', 'Zum Inhalt springen', 'skip_link'],
    ['de', 'Seite nicht gefunden', 'error_page'],
    ['fr', 'Nous utilisons des cookies pour mesurer l’audience.', 'consent'],
    ['fr', 'Aller au contenu principal', 'skip_link'],
    ['fr', 'Diapositive suivante', 'navigation'],
    ['es', 'Aceptar todas las cookies', 'consent'],
    ['es', 'Saltar al contenido', 'skip_link'],
    ['es', 'Página no encontrada', 'error_page'],
    ['ja', 'クッキーを受け入れる', 'consent'],
    ['ja', '本文へスキップ', 'skip_link'],
    ['ja', '次へ', 'navigation'],
    ['ja', 'ページが見つかりません', 'error_page'],
    ['ko', '쿠키를 허용합니다', 'consent'],
    ['ko', '본문 바로가기', 'skip_link'],
    ['ko', '다음 슬라이드', 'navigation'],
    ['zh', '我们使用cookie来改善体验', 'consent'],
    ['zh', '跳到主要内容', 'skip_link'],
    ['zh', '页面未找到', 'error_page'],
    ['ar', 'نستخدم ملفات تعريف الارتباط لتحسين تجربتك', 'consent'],
    ['ar', 'انتقل إلى المحتوى', 'skip_link'],
    ['ar', 'التالي', 'navigation'],
    ['ru', 'Мы используем файлы cookie', 'consent'],
    ['ru', 'Перейти к содержанию', 'skip_link'],
    ['ru', 'Страница не найдена', 'error_page'],
    ['en', 'Sign Up for the NEWSLETTER.', 'newsletter'],
    ['en', 'Copyright ©2026 All rights reserved | This template is made with by Colorlib.', 'powered_by'],
    ['ru', '© 2024 Все права защищены.', 'powered_by'],
    ['ar', 'جميع الحقوق محفوظة لمطعمنا', 'powered_by'],
    ['de', 'Jetzt Newsletter abonnieren', 'newsletter'],
    ['fr', 'Abonnez-vous à notre newsletter', 'newsletter'],
    ['ja', 'ニュースレターに登録する', 'newsletter'],
    ['ru', 'Подпишитесь на нашу рассылку', 'newsletter'],
  ])('%s “%s” is %s', (_language, text, kind) => {
    expect(boilerplateKind(text)).toBe(kind);
  });

  test('the page’s own sentences, a product named in a sentence, and our phrases are not furniture', () => {
    for (const text of [
      'Compile your whole project in seconds, with caches shared by the team.',
      'Next, invite your team and start building.',
      'Our AI is powered by your own data.',
      'Over 404 teams ship with Acme every day.',
      '次のリリースでは検索がもっと速くなります。',
      'Следующий шаг — пригласить команду.',
    ])
      expect({ text, kind: boilerplateKind(text) }).toEqual({ text, kind: null });
    for (const language of SUPPORTED_LANGUAGES) {
      for (const key of ['intro', 'featuresLead', 'callToAction', 'ctaLabel'] as const) {
        const text = phrase(language, key, { name: 'Acme Cloud', domain: 'acme.test' });
        expect({ language, key, kind: boilerplateKind(text) }).toEqual({ language, key, kind: null });
      }
    }
    expect(Object.keys(PHRASES)).toHaveLength(SUPPORTED_LANGUAGES.length);
  });
});

describe('repeated narration', () => {
  test('the same sentence in two scenes flags the later one, with the scene that said it first', () => {
    const said = ['Meet Acme.', 'Deploy in one click. Roll back just as fast.', 'Watch every metric live. Deploy in one click!'];
    expect(repeatedSentences(said, 'en')).toEqual([{ scene: 2, sentence: 'Deploy in one click!', first: 1 }]);
  });

  test('twice in one scene, in Japanese and Arabic; short sentences and different ones are not repeats', () => {
    expect(repeatedSentences(['ワンクリックで公開できます。すぐに戻せます。ワンクリックで公開できます。'], 'ja')).toEqual([
      { scene: 0, sentence: 'ワンクリックで公開できます。', first: 0 },
    ]);
    expect(repeatedSentences(['انشر بنقرة واحدة.', 'راقب كل شيء مباشرة. انشر بنقرة واحدة.'], 'ar')).toEqual([
      { scene: 1, sentence: 'انشر بنقرة واحدة.', first: 0 },
    ]);
    expect(repeatedSentences(['Yes. Fast.', 'Yes. Fast.', 'Deploy in one click.', 'Deploy in two clicks.'], 'en')).toEqual([]);
  });
});

describe('cut narration', () => {
  test.each([
    ['en', 'Acme keeps your builds fast and'],
    ['en', 'Compile your project with caches shared by the'],
    ['en', 'Roll out to a tenth of your users first,'],
    ['en', 'Works with multi-'],
    ['de', 'Acme hält Ihre Builds schnell und'],
    ['fr', 'Acme garde vos builds rapides avec'],
    ['ru', 'Acme делает сборки быстрыми и'],
    ['ja', 'Acmeはビルドを速くするクラウドで'],
    ['zh', 'Acme让团队的构建更快的'],
    ['ar', 'يجعل Acme عمليات البناء أسرع مع'],
    ['ko', 'Acme는 빌드를 빠르게 하고 그리고'],
  ] as const)('%s “%s” stops inside a phrase', (language, text) => {
    expect(cutNarrationEnd(text, language)).not.toBeNull();
  });

  test('whole sentences, a text without a full stop ending on a word, and our phrases pass', () => {
    expect(cutNarrationEnd('Acme keeps your builds fast.', 'en')).toBeNull();
    expect(cutNarrationEnd('This is the tool your team has been waiting for.', 'en')).toBeNull();
    expect(cutNarrationEnd('Acme keeps your builds fast', 'en')).toBeNull();
    expect(cutNarrationEnd('ビルドを速くします。', 'ja')).toBeNull();
    expect(cutNarrationEnd('يجعل البناء أسرع؟', 'ar')).toBeNull();
    for (const language of SUPPORTED_LANGUAGES) {
      for (const key of ['intro', 'callToAction'] as const) {
        const text = phrase(language, key, { name: 'Acme Cloud', domain: 'acme.test' });
        expect({ language, key, cut: cutNarrationEnd(text, language) }).toEqual({ language, key, cut: null });
      }
    }
  });
});
