/**
 * Words of a page that are not the product's: a page's generic name ("Home", "Document", "الصفحة الرئيسية"), a site
 * generator's or template's name ("GitBook", "HTML Ecommerce Template"), a template's placeholder copy (lorem ipsum,
 * "Title of the project", the Arabic generator's "هذا النص هو مثال لنص…"), and page chrome (a contact bar's phone,
 * e-mail and street address, a lone label). Real pages were introduced as "Meet Home." or "Meet Document.", and
 * narrated their contact bar or their lorem ipsum: the analysis (lib/script/analyze.ts) treats these as absent.
 */
import { boilerplateKind } from '../quality/boilerplate';

const fold = (text: string) =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u064B-\u0652]/g, '') // Arabic short vowels: "مرحباً" is "مرحبا"
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/**
 * A page's own generic name, in the 20 supported languages (config/catalog.ts): its place in the site (home, main
 * page, about us, introduction), a greeting, or an editor's default title (Untitled, Document, New page).
 */
// prettier-ignore
const GENERIC_PAGE_NAMES = [
  // en
  'home', 'homepage', 'home page', 'main page', 'front page', 'start page', 'start', 'index', 'document', 'untitled',
  'untitled document', 'new page', 'new document', 'welcome', 'welcome page', 'about', 'about us', 'introduction',
  'intro', 'overview', 'landing', 'landing page', 'my site', 'my website', 'my page', 'website', 'web site', 'site',
  'page', 'default', 'test', 'test page', 'placeholder',
  // es
  'inicio', 'página principal', 'pagina principal', 'página de inicio', 'portada', 'bienvenido', 'bienvenidos',
  'bienvenida', 'sin título', 'sin titulo', 'documento', 'acerca de', 'sobre nosotros', 'quiénes somos', 'introducción',
  // fr
  'accueil', 'page d accueil', 'bienvenue', 'sans titre', 'à propos', 'a propos', 'qui sommes nous', 'page principale',
  // de
  'startseite', 'hauptseite', 'willkommen', 'unbenannt', 'dokument', 'über uns', 'einführung', 'einleitung',
  // pt
  'início', 'página inicial', 'pagina inicial', 'bem vindo', 'bem vinda', 'bem vindos', 'sem título', 'sobre nós',
  'sobre', 'introdução',
  // it
  'pagina iniziale', 'benvenuto', 'benvenuti', 'senza titolo', 'chi siamo', 'introduzione',
  // nl
  'startpagina', 'hoofdpagina', 'welkom', 'naamloos', 'over ons', 'introductie', 'inleiding',
  // pl
  'strona główna', 'witamy', 'witaj', 'bez tytułu', 'o nas', 'wprowadzenie', 'wstęp',
  // ru
  'главная', 'главная страница', 'домашняя страница', 'добро пожаловать', 'без названия', 'документ', 'о нас',
  'введение', 'начало',
  // uk
  'головна', 'головна сторінка', 'ласкаво просимо', 'без назви', 'про нас', 'вступ',
  // tr
  'ana sayfa', 'anasayfa', 'hoş geldiniz', 'başlıksız', 'belge', 'hakkımızda', 'giriş',
  // ar
  'الصفحة الرئيسية', 'الرئيسية', 'الرئيسيه', 'مرحبا', 'أهلا وسهلا', 'بدون عنوان', 'مستند', 'من نحن', 'مقدمة',
  // hi
  'होम', 'होम पेज', 'मुखपृष्ठ', 'मुख्य पृष्ठ', 'स्वागत है', 'शीर्षकहीन', 'दस्तावेज़', 'हमारे बारे में', 'परिचय',
  // id
  'beranda', 'halaman utama', 'selamat datang', 'tanpa judul', 'dokumen', 'tentang kami', 'pendahuluan', 'pengantar',
  // vi
  'trang chủ', 'chào mừng', 'không có tiêu đề', 'tài liệu', 'giới thiệu', 'về chúng tôi',
  // th
  'หน้าแรก', 'หน้าหลัก', 'ยินดีต้อนรับ', 'ไม่มีชื่อ', 'เอกสาร', 'เกี่ยวกับเรา', 'บทนำ',
  // sv
  'startsida', 'hem', 'välkommen', 'namnlös', 'om oss', 'introduktion', 'inledning',
  // ja
  'ホーム', 'ホームページ', 'トップページ', 'トップ', 'ようこそ', '無題', 'ドキュメント', 'はじめに', '概要',
  // ko
  '홈', '홈페이지', '메인', '메인 페이지', '환영합니다', '제목 없음', '문서', '소개', '회사 소개',
  // zh
  '首页', '首頁', '主页', '主頁', '欢迎', '歡迎', '无标题', '無標題', '文档', '文檔', '关于我们', '關於我們', '介绍', '简介',
].map(fold);

/** Site generators and starter templates whose name a page's title carries when its author did not change it. */
// prettier-ignore
const GENERATOR_NAMES = [
  'gitbook', 'vuepress', 'vitepress', 'docusaurus', 'hugo', 'jekyll', 'mkdocs', 'material for mkdocs', 'sphinx',
  'read the docs', 'docsify', 'hexo', 'gatsby', 'gridsome', 'eleventy', 'nuxt', 'next js', 'create next app',
  'react app', 'vite app', 'vite react', 'vite react ts', 'vue app', 'angular app', 'svelte app', 'wordpress',
  'just another wordpress site', 'wix', 'squarespace', 'webflow', 'html5 up', 'themeforest', 'colorlib', 'jsfiddle',
  'codepen',
].map(fold);

/** Words a template's own name is made of: "HTML Ecommerce Template", "Free Responsive Landing Page", "Bootstrap 5 Theme". */
const TEMPLATE_WORDS =
  /^(?:(?:free|premium|responsive|modern|simple|minimal|clean|creative|html5?|css3?|js|bootstrap|tailwind|react|vue|angular|next|ecommerce|e commerce|online|one|single|multi|page|landing|business|corporate|startup|personal|portfolio|shop|store|agency|admin|dashboard|blog|app|saas|restaurant|hotel|real estate|\d+)\s+)*(?:template|templates|theme|themes|website|websites|web site|site|landing page|landing|web page|webpage|homepage|page|kit|ui kit|starter|boilerplate)$/u;

/** Whether `text` is a site generator's name ("MkDocs", "GitBook"): an unconfigured site's default title. */
export function generatorName(text: string | null | undefined): boolean {
  return GENERATOR_NAMES.includes(fold(text ?? ''));
}

/** Whether `text` is a page's generic name in the site ("Home", "Introduction", "Startseite"), never a product's. */
export function pageName(text: string | null | undefined): boolean {
  return GENERIC_PAGE_NAMES.includes(fold(text ?? ''));
}

/**
 * Whether `text` is not a product's name: a page's generic name, a site generator's, a template's ("Start Bootstrap
 * Theme": a name ending in "Theme" or "Template" is the template's, whoever made it), or placeholder copy. On the
 * generator's own site (its name in the domain's `label`: gohugo.io for Hugo), its name is the product's.
 */
export function genericName(text: string | null | undefined, label = ''): boolean {
  const folded = fold(text ?? '');
  if (!folded) return true;
  if (label && folded.length >= 3 && label.includes(folded.replace(/\s+/g, ''))) return false;
  if (GENERIC_PAGE_NAMES.includes(folded) || GENERATOR_NAMES.includes(folded)) return true;
  const short = folded.split(' ').length <= 4;
  if (short && (TEMPLATE_WORDS.test(folded) || /\s(?:template|templates|theme|themes)$/u.test(folded))) return true;
  return placeholder(text ?? '');
}

/**
 * The words lorem ipsum fillers are made of (the classic passage, and the words generators such as Emmet's draw
 * from): a text mostly made of them is filler, whatever words it starts with ("Enimad minim veniam quis nostrud…").
 */
// prettier-ignore
const LOREM_WORDS = new Set(
  ('lorem ipsum dolor sit amet consectetur consectetuer adipiscing adipisicing elit sed do eiusmod tempor incididunt ut ' +
    'labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco llamco laboris nisi aliquip ex ' +
    'ea commodo consequat duis aute irure in reprehenderit voluptate velit esse cillum eu fugiat nulla pariatur excepteur ' +
    'sint occaecat cupidatat non proident sunt culpa qui officia deserunt mollit anim id est laborum enimad minima ' +
    'maxime quam architecto quo inventore harum magni dicta impedit aut eaque laboriosam veritatis quos perspiciatis ' +
    'totam corporis ea alias error adipisci corrupti accusamus reiciendis similique assumenda nostrum fuga vitae ' +
    'quae ab illo veritatis beatae vitae explicabo nemo ipsam voluptatem quia voluptas aspernatur odit fugit ' +
    'consequuntur magni dolores eos ratione sequi nesciunt neque porro quisquam dolorem numquam eius modi tempora ' +
    'incidunt quaerat at vero accusantium doloremque laudantium rem aperiam eaque molestias excepturi sint obcaecati ' +
    'cupiditate provident similique mollitia animi facilis expedita distinctio nam libero cum soluta nobis eligendi ' +
    'optio cumque nihil impedit placeat facere possimus omnis assumenda repellendus temporibus autem quibusdam officiis ' +
    'debitis rerum necessitatibus saepe eveniet voluptates repudiandae recusandae itaque earum hic tenetur sapiente ' +
    'delectus reiciendis voluptatibus maiores doloribus asperiores repellat ipsa iste natus voluptatum deleniti atque ' +
    'quas praesentium blanditiis dignissimos ducimus quasi odio dolor sint labore minus fugiat corrupti illum ' +
    'quidem amet nisi nulla quod ullam tempore vel ut voluptate officia nesciunt iure velit dolorum sunt aliquid esse ' +
    'commodi quisquam laborum accusantium ex nemo eum facilis sequi iusto porro consectetur unde dolores earum odit ' +
    'adipisci ipsum magnam perferendis mauris vivamus donec pellentesque nunc turpis feugiat vestibulum lacinia ' +
    'curabitur morbi aenean etiam nullam integer suspendisse praesent fusce phasellus vitae arcu sapien eros')
    .split(' '),
);

/** Template filler and placeholder headlines in other words than Latin: the Arabic text generator's passage and the like. */
const PLACEHOLDER_PATTERNS: RegExp[] = [
  /\blorem\b|\bipsum\b|\bdolor sit\b/iu,
  /هذا النص هو مثال لنص|مولد النص العربى|مولد النص العربي/u,
  /^(?:the )?(?:title|name) of (?:the|your|this) (?:project|product|company|site|website|page|post|article)$/iu,
  /^(?:your|the|a|my) ?(?:project|product|company|site|website|brand) (?:name|title)(?: here)?$/iu,
  /^(?:project|product|company|brand) (?:name|title)$/iu,
  /^(?:\S+ )?(?:your|insert|add|enter|sample|dummy|placeholder|some|example) (?:text|title|heading|headline|content|description|tagline|name|copy)(?: (?:goes )?here)?$/iu,
  /\b(?:goes|go) here\b/iu,
  /^(?:feature|item|product|service|title|heading|category|section|card|slide|tab) ?(?:\d+|one|two|three|four|five)$/iu,
  /^(?:рыба|текст[- ]рыба)\b/iu,
  // A framework's Arabic example page: "عنوان المثال." (Example headline), "عنوان مثال آخر." (Another example
  // headline), "عنوان آخر" (Another heading), "عنوان ثالث لتأكيد المعلومة" (One more for good measure); a real
  // one's video opened on "عنوان المثال؟".
  /^عنوان(?: (?:ال)?مثال)?(?: آخر| ثالث(?: .*)?)?(?: (?:لل)?مثال)?[.؟!]?$/u,
];

/** Whether `text` is a template's placeholder copy, not the page's own words (treated as absent). */
export function placeholder(text: string): boolean {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (!flat) return false;
  if (PLACEHOLDER_PATTERNS.some((pattern) => pattern.test(flat))) return true;
  const words = flat
    .toLowerCase()
    .split(/[^\p{L}]+/u)
    .filter(Boolean);
  return words.length >= 3 && words.filter((w) => LOREM_WORDS.has(w)).length >= words.length * 0.6;
}

/** A phone number, an e-mail address, a street address ("1734 Stonecoal Road"), opening hours: a contact bar's parts. */
const CONTACT_PARTS = [
  /\+?\(?\d[\d\s().\-/]{5,}\d/gu,
  /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+\.\p{L}{2,}/gu,
  /\b\d{1,5}\s+(?:[\p{Lu}][\p{L}'’.-]*\s+){1,4}(?:road|rd|street|st|avenue|ave|boulevard|blvd|lane|ln|drive|dr|way|court|ct|place|pl|square|sq|highway|hwy)\b\.?/giu,
  /\b\d{1,2}[:.]\d{2}\s*(?:[ap]\.?m\.?|ص|م)?/giu,
  // "123 Broodway Stm NY, United States": a number, capitalised words, a comma, a place.
  /\b\d{1,5}\s+(?:\p{Lu}[\p{L}'’.-]*\s+){0,3}\p{Lu}[\p{L}'’.-]*,\s*(?:\p{Lu}[\p{L}.-]*\s*){1,3}/gu,
];

/** Scripts written without spaces between words, whose length is told in letters rather than words. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;

/**
 * Whether `text` is prose of the page, fit to be narrated: not placeholder copy, not mostly a contact bar (phone
 * numbers, e-mail and street addresses, hours), not a lone label ("Services", "Real Estate Agency": three words at
 * most with no sentence's end, or a row of capitalised words without one; in Chinese, Japanese or Thai, six letters at
 * most).
 */
export function narratable(text: string): boolean {
  const flat = text.replace(/\s+/g, ' ').trim();
  // Page furniture (a newsletter sign-up, a cookie notice, a slide label) is not what the product does.
  if (!flat || placeholder(flat) || boilerplateKind(flat)) return false;
  const letters = (t: string) => (t.match(/\p{L}/gu) ?? []).length;
  const rest = CONTACT_PARTS.reduce((t, pattern) => t.replace(pattern, ' '), flat);
  if (
    letters(rest) < letters(flat) * 0.6 ||
    rest
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim()
      .split(' ').length < 2
  )
    return false;
  if (UNSPACED.test(flat)) return letters(flat) > 6;
  const words = flat.split(' ').filter((w) => /[\p{L}\p{N}]/u.test(w));
  const ended = /[.!?…。！？؟।]["'”’»)]*$/u.test(flat);
  // Capitalised words with no sentence's end are a row of labels ("Laptops Smartphones Cameras Accessories").
  if (!ended && words.every((w) => /^[\p{Lu}\p{N}]/u.test(w))) return false;
  return words.length >= 4 || (words.length >= 3 && ended);
}

/**
 * The words that open a notice, in the supported languages: "Note: …", "Warning", "注意：", "참고:", "Hinweis: …".
 * A documentation page's admonition (real page: vue-router's docs open with "Note: for TypeScript users,
 * vue-router@3.0+ requires vue@2.5+…") is a caveat for its readers, never what the product is or does.
 */
// prettier-ignore
const NOTICE_WORDS = [
  'note', 'notes', 'nb', 'n b', 'warning', 'caution', 'important', 'tip', 'hint', 'attention', 'heads up', 'deprecated',
  'danger', 'info', 'notice', 'disclaimer', 'todo', 'fixme', 'remark',
  '注意', '注', '警告', '提示', '重要', '备注', '備註', 'ご注意', '注記', 'ヒント', '참고', '주의', '경고', '알림', '팁',
  'hinweis', 'achtung', 'warnung', 'wichtig', 'remarque', 'avertissement', 'nota', 'atención', 'atencion', 'aviso',
  'advertencia', 'importante', 'observação', 'observacao', 'aviso', 'avvertenza', 'attenzione', 'opmerking', 'let op',
  'waarschuwing', 'uwaga', 'ostrzeżenie', 'примечание', 'внимание', 'предупреждение', 'важно', 'примітка', 'увага',
  'not', 'uyarı', 'dikkat', 'ملاحظة', 'تحذير', 'تنبيه', 'नोट', 'चेतावनी', 'ध्यान दें', 'catatan', 'peringatan', 'perhatian',
  'lưu ý', 'cảnh báo', 'chú ý', 'หมายเหตุ', 'คำเตือน', 'obs', 'varning', 'viktigt',
].map(fold);

/** Code, a package's version range or a command: "vue-router@3.0+", "npm install x", "`x`", "() => {}". */
const CODE_LIKE = /[`{}]|=>|<\/?[a-z]|[\p{L}\p{N}]@\^?~?\d|\b(?:npm|yarn|pnpm|pip|brew|cargo|go) (?:install|add|get|i)\b|^\$\s|\w\(\)/iu;

/**
 * Whether `text` is a notice or code, not what the page says of its product: an admonition ("Note: …", "Warning",
 * "注意：…", a lone "Tip"), a line of code or a command, a version range. Neither a value proposition nor a key fact.
 */
export function notice(text: string): boolean {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (!flat) return false;
  if (CODE_LIKE.test(flat)) return true;
  // The notice word alone, or before a colon, a dash or an exclamation mark ("Note:", "注意：", "Warning!").
  const lead = /^(?:[\s\p{So}\p{Sk}!*_[(]|\uFE0F)*([^:：!！—–\-\]]{1,24}?)\s*(?:[:：!！—–\]]|\s-\s|$)/u.exec(flat);
  return !!lead && NOTICE_WORDS.includes(fold(lead[1]));
}

/**
 * The headings and topic names every documentation site and component library has, in the supported languages: a
 * part of the site ("Installation", "Getting Started", "API Reference", "はじめに", "快速上手"), not something the
 * product does. A docs page's list of topics is read for openings (lib/script/analyze.ts keyPoints) without them.
 */
// prettier-ignore
const DOCS_FURNITURE = [
  // en
  'installation', 'install', 'installing', 'getting started', 'get started', 'quick start', 'quickstart', 'start here',
  'introduction', 'intro', 'overview', 'guide', 'guides', 'user guide', 'tutorial', 'tutorials', 'documentation', 'docs',
  'api', 'api reference', 'reference', 'references', 'examples', 'example', 'demo', 'demos', 'usage', 'basic usage',
  'essentials', 'basics', 'advanced', 'advanced usage', 'concepts', 'core concepts', 'faq', 'changelog', 'release notes',
  'releases', 'migration', 'migration guide', 'migrating', 'upgrade guide', 'contributing', 'contribute', 'license',
  'credits', 'properties', 'methods', 'events', 'options', 'configuration', 'config', 'setup', 'set up', 'table of contents',
  'contents', 'next steps', 'see also', 'learn more', 'read more', 'community', 'support', 'resources', 'download',
  'browser support', 'core team', 'team', 'contributors', 'links', 'other links', 'useful links', 'related links',
  'ecosystem', 'maintenance', 'maintenance status', 'version notice', 'versions', 'sponsors',
  '浏览器支持', '核心团队', '贡献者', '贡献者们', '其他链接', '相关链接', '生态', '官方生态', '社区生态', '维护状态', '版本提示', '开源协议',
  'ブラウザサポート', 'コアチーム', 'コントリビューター', '関連リンク', 'エコシステム',
  'downloads', 'github', 'edit this page', 'edit on github', 'view on github', 'developer guide', 'on this page', 'prerequisites', 'requirements', 'troubleshooting',
  // ja
  'インストール', 'はじめに', 'はじめる', '始めに', '導入', '概要', 'ガイド', 'チュートリアル', 'ドキュメント', 'api リファレンス',
  'リファレンス', '使い方', '基本的な使い方', '高度な使い方', '基本', '応用', 'リリースノート', '変更履歴', '移行', '移行ガイド',
  'サンプル', 'デモ', '例', 'よくある質問', 'ライセンス', '設定', 'プロパティ', 'メソッド', 'イベント', 'オプション', '目次',
  // zh
  '安装', '安裝', '快速上手', '快速开始', '快速開始', '开始使用', '開始使用', '介绍', '介紹', '简介', '簡介', '概述', '指南',
  '教程', '文档', '文檔', 'api 参考', 'api 文档', '参考', '示例', '例子', '演示', '基础', '进阶', '高级', '更新日志', '发布说明',
  '迁移', '迁移指南', '常见问题', '许可证', '配置', '属性', '方法', '事件', '选项', '目录', '贡献指南',
  // ko
  '설치', '시작하기', '빠른 시작', '소개', '개요', '가이드', '튜토리얼', '문서', 'api 레퍼런스', '레퍼런스', '예제', '데모',
  '기본', '고급', '릴리스 노트', '변경 사항', '마이그레이션', '자주 묻는 질문', '라이선스', '설정', '속성', '메서드', '이벤트', '옵션', '목차',
  // es, pt, fr, it, de, nl, pl, ru, uk, tr, id, vi, sv
  'instalación', 'instalacion', 'primeros pasos', 'introducción', 'guía', 'referencia', 'ejemplos', 'notas de la versión',
  'instalação', 'instalacao', 'começando', 'introdução', 'guia', 'referência', 'exemplos',
  'installation', 'démarrage', 'démarrage rapide', 'premiers pas', 'référence', 'exemples', 'notes de version',
  'installazione', 'per iniziare', 'introduzione', 'riferimento', 'esempi', 'installatie', 'aan de slag', 'voorbeelden',
  'erste schritte', 'einführung', 'referenz', 'beispiele', 'anleitung', 'instalacja', 'wprowadzenie', 'przykłady',
  'установка', 'начало работы', 'введение', 'руководство', 'справочник', 'примеры', 'встановлення', 'початок роботи',
  'kurulum', 'başlarken', 'örnekler', 'instalasi', 'memulai', 'contoh', 'cài đặt', 'bắt đầu', 'ví dụ', 'installation',
  'kom igång', 'exempel',
].map(fold);

/** Whether `text` names a part of a documentation site rather than what its product does ("Installation", "API Reference", "快速上手"). */
export function docsFurniture(text: string): boolean {
  return DOCS_FURNITURE.includes(fold(text));
}
