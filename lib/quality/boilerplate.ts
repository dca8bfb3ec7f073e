/**
 * The page's furniture, as the video's own check recognises it in a scene's narration or headline (decisions §13,
 * boilerplate): consent notices, skip links, navigation and carousel labels, newsletter sign-ups, "Powered by …",
 * error pages. In the 20
 * supported languages for the common phrases. Two kinds of pattern: phrases that give a text away wherever they
 * stand in it ("we use cookies", "page not found"), and labels that are furniture only as the whole text ("Next",
 * "Menu": a sentence may well contain the word).
 */
import { normalizeText } from '../text';

export type BoilerplateKind = 'consent' | 'skip_link' | 'navigation' | 'newsletter' | 'powered_by' | 'error_page';

/** What the customer is told each kind is. */
export const BOILERPLATE_WORDS: Record<BoilerplateKind, string> = {
  consent: 'a cookie or consent notice',
  skip_link: 'a “skip to content” link',
  navigation: 'a navigation or slideshow button',
  newsletter: 'a newsletter sign-up',
  powered_by: 'a footer line (“Powered by”, copyright)',
  error_page: 'an error page',
};

/** Phrases that mark a text wherever they stand in it (lower case; matched case-insensitively). */
const PHRASES: Array<[BoilerplateKind, RegExp]> = [
  // Consent notices.
  [
    'consent',
    new RegExp(
      [
        'accept (all )?cookies',
        'we use cookies',
        '(this|our) (web)?site uses cookies',
        'cookie (settings|preferences|policy|consent)',
        'manage (cookie|consent)',
        'cookies akzeptieren',
        'wir verwenden cookies',
        'diese website verwendet cookies',
        'accepter (les |tous les )?cookies',
        'nous utilisons des cookies',
        'aceptar (todas las )?cookies',
        '(utilizamos|usamos) cookies',
        'aceitar (todos os )?cookies',
        'accetta (tutti i )?cookie',
        'utilizziamo (i )?cookie',
        'cookies accepteren',
        '(wij|we) gebruiken cookies',
        'akceptuj(ę)? (wszystkie )?(pliki )?cookie',
        'używamy (plików )?cookie',
        'çerezleri kabul et',
        'çerez(ler)? kullanıyoruz',
        'acceptera (alla )?cookies',
        'vi använder cookies',
        'terima (semua )?cookie',
        'kami menggunakan cookie',
        'chấp nhận (tất cả )?cookie',
        'chúng tôi sử dụng cookie',
        'принять (все )?(файлы )?cookie',
        'мы используем (файлы )?cookie',
        'прийняти (всі )?(файли )?cookie',
        'ми використовуємо (файли )?cookie',
        '(cookie|クッキー)(を|の)?(受け入れ|使用|利用|設定|に同意)',
        '쿠키(를|를 )?(허용|수락|사용|설정)',
        '接受(所有)?(cookie|曲奇)',
        '我们使用(cookie|曲奇)',
        '(cookie|曲奇)设置',
        'ملفات تعريف الارتباط',
        'कुकीज़ (स्वीकार|का उपयोग)',
        '(ยอมรับ|เราใช้)คุกกี้',
      ].join('|'),
      'iu',
    ),
  ],
  // Skip links.
  [
    'skip_link',
    new RegExp(
      [
        'skip to (the )?(main )?content',
        'skip (to )?navigation',
        'zum (haupt)?inhalt (springen|wechseln)',
        '(aller|passer) au contenu',
        '(saltar|ir) al contenido',
        '(pular|ir|saltar) para o conteúdo',
        '(vai|salta|passa) al contenuto',
        'naar (de )?(hoofd)?inhoud',
        'przejdź do (głównej )?treści',
        'içeriğe (geç|atla)',
        'hoppa till (huvud)?innehåll',
        'lewati ke konten',
        'chuyển đến nội dung',
        'перейти к (основному )?(содержанию|содержимому|контенту)',
        'перейти до (основного )?(вмісту|змісту)',
        '(メイン)?コンテンツへ(スキップ|移動)',
        '本文へ(スキップ|移動)',
        '본문(으로)? 바로 ?가기',
        '콘텐츠로 건너뛰기',
        '跳(到|至|转到)(主要)?内容',
        '跳过导航',
        '(انتقل|تخطى|الانتقال) إلى المحتوى',
        'सामग्री पर जाएं',
        'ข้ามไปยังเนื้อหา',
      ].join('|'),
      'iu',
    ),
  ],
  // Carousel position labels and "go to slide 3".
  ['navigation', /\b(go to slide|slide \d+ (of|\/) \d+)\b|スライド\s?\d+|슬라이드 \d+/iu],
  // Newsletter sign-ups (a form's invitation, not what the product does).
  [
    'newsletter',
    new RegExp(
      [
        '(sign up|subscribe|register)( now)? (for|to) (our |the )?(weekly |monthly )?newsletter',
        'join (our|the) (mailing list|newsletter)',
        'newsletter (abonnieren|anmelden)',
        "(abonnez-vous|inscrivez-vous|s'abonner|s’abonner) (à|a) (la |notre )?newsletter",
        'suscr[ií]b(e|ete|irse) (a|al) (nuestro |el |la )?(bolet[ií]n|newsletter)',
        'assine (a )?(nossa )?newsletter',
        'iscriviti alla (nostra )?newsletter',
        'ニュースレター(に|を)(登録|購読)',
        '뉴스레터 (구독|신청)',
        '订阅(我们的)?(新闻|电子报|邮件)',
        'подпи(шитесь|саться) на (нашу )?рассылку',
        'اشترك في (النشرة|نشرتنا)',
      ].join('|'),
      'iu',
    ),
  ],
  // Footers: copyright and template credits.
  [
    'powered_by',
    new RegExp(
      [
        '\\ball rights reserved\\b',
        '^(copyright|\\(c\\))\\s',
        '©\\s?(19|20)\\d\\d',
        '(19|20)\\d\\d\\s?©',
        '\\bthis (template|theme|site|website) (is|was) (made|designed|built|created) (with .{0,12} )?by\\b',
        'tous droits réservés',
        'alle rechte vorbehalten',
        'todos los derechos reservados',
        'todos os direitos reservados',
        'tutti i diritti riservati',
        'все права защищены',
        'جميع الحقوق محفوظة',
        '版权所有',
        '無断転載',
      ].join('|'),
      'iu',
    ),
  ],
  ['powered_by', /^(powered by|propulsé par|con tecnología de|desenvolvido (com|por)|realizzato con|mit technologie von)\s/iu],
  // Error pages.
  [
    'error_page',
    new RegExp(
      [
        '^(error )?404\\b',
        '\\b(error 404|404 (error|not found|page))\\b',
        'page (was )?not found',
        '(this )?page (doesn.t|does not|could not) (exist|be found)',
        'access denied',
        '403 forbidden',
        'seite (wurde )?nicht gefunden',
        'page (introuvable|non trouvée)',
        'página no encontrada',
        'página não encontrada',
        'pagina non trovata',
        'pagina niet gevonden',
        'nie znaleziono strony',
        'strona nie (została )?znaleziona',
        'sayfa bulunamadı',
        'sidan (kunde inte hittas|hittades inte)',
        'halaman tidak ditemukan',
        'không tìm thấy trang',
        'страница не найдена',
        'сторінк(у|а) не знайдено',
        'ページが見つかりません',
        '페이지를 찾을 수 없습니다',
        '(页面未找到|找不到页面|页面不存在)',
        '(الصفحة غير موجودة|لم يتم العثور على الصفحة)',
        '(पेज|पृष्ठ) नहीं मिला',
        'ไม่พบหน้า',
      ].join('|'),
      'iu',
    ),
  ],
];

/** Labels that are furniture when they are the whole text (punctuation aside), in the 20 languages. */
const LABELS: Array<[BoilerplateKind, string[]]> = [
  [
    'navigation',
    [
      // en
      'previous',
      'prev',
      'next',
      'previous slide',
      'next slide',
      'menu',
      'open menu',
      'close menu',
      'main menu',
      'close',
      'toggle navigation',
      'back to top',
      'scroll to top',
      // de, fr, es, pt, it, nl
      'zurück',
      'weiter',
      'vorherige folie',
      'nächste folie',
      'menü',
      'menü öffnen',
      'schließen',
      'nach oben',
      'précédent',
      'suivant',
      'diapositive précédente',
      'diapositive suivante',
      'fermer',
      'retour en haut',
      'anterior',
      'siguiente',
      'diapositiva anterior',
      'diapositiva siguiente',
      'menú',
      'cerrar',
      'volver arriba',
      'próximo',
      'seguinte',
      'fechar',
      'voltar ao topo',
      'precedente',
      'successivo',
      'successiva',
      'chiudi',
      'torna su',
      'vorige',
      'volgende',
      'sluiten',
      'terug naar boven',
      // pl, tr, sv, id, vi
      'poprzedni',
      'następny',
      'zamknij',
      'wróć na górę',
      'önceki',
      'sonraki',
      'kapat',
      'föregående',
      'nästa',
      'meny',
      'stäng',
      'sebelumnya',
      'berikutnya',
      'selanjutnya',
      'tutup',
      'trước',
      'tiếp theo',
      'đóng',
      // ru, uk
      'назад',
      'далее',
      'вперёд',
      'вперед',
      'предыдущий',
      'следующий',
      'предыдущий слайд',
      'следующий слайд',
      'меню',
      'закрыть',
      'наверх',
      'попередній',
      'наступний',
      'закрити',
      // ja, ko, zh
      '前へ',
      '次へ',
      '前のスライド',
      '次のスライド',
      'メニュー',
      '閉じる',
      'ページトップへ',
      'トップへ戻る',
      '이전',
      '다음',
      '이전 슬라이드',
      '다음 슬라이드',
      '메뉴',
      '닫기',
      '맨 위로',
      '上一张',
      '下一张',
      '上一页',
      '下一页',
      '菜单',
      '关闭',
      '返回顶部',
      // ar, hi, th
      'السابق',
      'التالي',
      'القائمة',
      'إغلاق',
      'العودة إلى الأعلى',
      'पिछला',
      'अगला',
      'मेनू',
      'बंद करें',
      'ก่อนหน้า',
      'ถัดไป',
      'เมนู',
      'ปิด',
    ],
  ],
  [
    'consent',
    [
      'accept',
      'accept all',
      'reject all',
      'alle akzeptieren',
      'tout accepter',
      'aceptar todo',
      'aceitar tudo',
      'accetta tutto',
      'すべて受け入れる',
      '모두 수락',
      '全部接受',
      'принять все',
      'قبول الكل',
    ],
  ],
  ['error_page', ['404', 'not found']],
];

const LABEL_KIND = new Map<string, BoilerplateKind>(
  LABELS.flatMap(([kind, labels]) => labels.map((l) => [l, kind] as [string, BoilerplateKind])),
);

/** A text's form as a label: lower case, without punctuation and symbols at its ends or spaces doubled. */
function asLabel(text: string): string {
  return normalizeText(text.toLocaleLowerCase())
    .replace(/^[\p{P}\p{S}\s]+|[\p{P}\p{S}\s]+$/gu, '')
    .trim();
}

/** The kind of furniture `text` is, or null for the page's own words. */
export function boilerplateKind(text: string): BoilerplateKind | null {
  const normal = normalizeText(text);
  if (!normal) return null;
  const label = LABEL_KIND.get(asLabel(normal));
  if (label) return label;
  for (const [kind, pattern] of PHRASES) if (pattern.test(normal)) return kind;
  return null;
}
