/**
 * Words of a page that are not the product's (lib/script/page-words.ts) and what the analysis makes of a page that
 * carries them (lib/script/analyze.ts): real pages were introduced as "Meet Home.", "Meet Document." and "Meet
 * GitBook.", narrated their contact bar ("+021-95-51-84 email@email.com 1734 Stonecoal Road") and their lorem ipsum.
 */
import { keyFacts, productName, type CapturedText } from '../../lib/script/analyze';
import { genericName, narratable, placeholder } from '../../lib/script/page-words';

const page = (title: string, extra: Partial<CapturedText> = {}): CapturedText => ({
  title,
  description: null,
  open_graph: {},
  headings: [],
  main_text: '',
  ...extra,
});

describe('a generic title is not the product name', () => {
  test.each([
    ['Harbor - eCommerce Website', {}, 'Harbor'],
    ['Tidewell - HTML Ecommerce Template', {}, 'Tidewell'],
    ['Lantern - Acme Studio Theme', {}, 'Lantern'],
    ['Home :: Orchard Inn', {}, 'Orchard Inn'],
    ['Bistro Nour - الصفحة الرئيسية', {}, 'Bistro Nour'],
    ['Startseite | Bergwerk', {}, 'Bergwerk'],
    ['Главная — Кедр', {}, 'Кедр'],
    ['ホーム | さくら珈琲', {}, 'さくら珈琲'],
    // Only generic parts: og:site_name, else the header logo's name, else a short name-like heading.
    ['Document', { open_graph: { site_name: 'Velvet Row' } }, 'Velvet Row'],
    ['Document', { brand_names: ['Home', 'About us', 'Velvet Row'] }, 'Velvet Row'],
    [
      'Untitled',
      {
        headings: [
          { level: 1, text: 'Introduction' },
          { level: 2, text: 'Quillstone' },
        ],
      },
      'Quillstone',
    ],
    // The title's own name before a logo link that is only a section of the page.
    ['Brightdesk', { brand_names: ['About us', 'Pricing'] }, 'Brightdesk'],
    ['Welcome', {}, 'Example'],
  ] as Array<[string, Partial<CapturedText>, string]>)('%s → %s', (title, extra, name) => {
    expect(productName(page(title, extra), 'example.com')).toBe(name);
  });

  test('nothing name-like on a page served by address: its first heading that is not generic', () => {
    const guide = page('Introduction · GitBook', {
      headings: [
        { level: 1, text: 'Introduction' },
        { level: 1, text: 'Руководство по серверному рендерингу' },
      ],
    });
    expect(productName(guide, '127.0.0.1')).toBe('Руководство по серверному рендерингу');
    expect(productName(guide, 'ssr.vuejs.org')).toBe('Vuejs');
  });

  test("a generator's name is its own site's product name", () => {
    expect(productName(page('Quick Start | Hugo'), 'gohugo.io')).toBe('Hugo');
    expect(productName(page('Quick Start | Hugo'), 'orchard.example')).toBe('Quick Start');
  });

  test.each([
    'Home',
    'Index',
    'Homepage',
    'Main page',
    'Accueil',
    'Inicio',
    '首页',
    '홈',
    'Trang chủ',
    'หน้าแรก',
    'GitBook',
    'Landing Page',
    'Start Bootstrap Theme',
  ])('%s is generic', (name) => expect(genericName(name)).toBe(true));

  test.each(['Homeverse', 'Northwind Ledger', 'Status', 'Your Favorite Place for Free Bootstrap Themes'])('%s is not generic', (name) =>
    expect(genericName(name)).toBe(false),
  );
});

describe('placeholder copy and page chrome are not narrated', () => {
  test.each([
    'Lorem ipsum dolor sit amet, consectetur adipisicing elit.',
    'Enimad minim veniam quis nostrud exercitation llamco laboris.',
    'Minima maxime quam architecto quo inventore harum ex magni, dicta impedit.',
    'هذا النص هو مثال لنص يمكن أن يستبدل في نفس المساحة',
    'Title of the project',
    'Project name',
    'Your text here',
    'product name goes here',
    'عنوان المثال.',
    'عنوان آخر',
    'عنوان مثال آخر.',
    'عنوان ثالث لتأكيد المعلومة',
  ])('%s is placeholder', (text) => expect(placeholder(text)).toBe(true));

  test.each([
    'Every transaction is matched the moment it lands.',
    'Status is a secure messaging app.',
    'Ipswich harbour tours.'.replace('Ipswich', 'Dover'),
    // A theme's own page describing the theme is its copy, not a footer's credit line.
    'A free, responsive, one page Bootstrap theme created by Start Bootstrap.',
    'عنوان بريدك الإلكتروني آمن معنا.',
  ])('%s is the page’s own copy', (text) => {
    expect(placeholder(text)).toBe(false);
    expect(narratable(text)).toBe(true);
  });

  test.each([
    '+021-95-51-84 email@email.com 1734 Stonecoal Road',
    '+1 (415) 555-0132',
    '123 Harbour Row NY, United States 10:00 - 14:00 Monday.',
    'hello@orchard.example',
    'Services',
    'Real Estate Agency',
    'Laptops Smartphones Cameras Accessories',
    'Sign Up for the NEWSLETTER and get 10% off your first order.',
    'Copyright ©2026 All rights reserved | This template is made with by Colorlib.',
  ])('%s is not prose', (text) => expect(narratable(text)).toBe(false));

  test('the hero says prose, not the contact bar; a section of filler is not shown and filler sentences are dropped', () => {
    const section = (index: number, heading: string, paragraphs: string[]) => ({
      index,
      heading,
      paragraphs,
      text: paragraphs.join(' '),
      textChars: paragraphs.join(' ').length,
      linkChars: 0,
      smallImages: 0,
      largeMedia: 1,
      listItems: 0,
      times: 0,
      formFields: 0,
      quotes: 0,
      disclosures: 0,
      tokens: '',
      fontPx: 16,
      topScreens: 1 + index,
      bottomScreens: 2 + index,
    });
    const facts = keyFacts(
      page('Tidewell - HTML Ecommerce Template', {
        description: 'Tidewell Official Site',
        main_text:
          '+021-95-51-84 email@email.com 1734 Stonecoal Road\n\nServices\n\nTidewell ships hand-thrown ceramics to your door in two days.',
        sections: [
          section(0, 'Our story', [
            'Lorem ipsum dolor sit amet, consectetur adipisicing elit.',
            'Aut eaque, laboriosam veritatis, quos non quis ad perspiciatis.',
          ]),
          section(1, 'Made by hand', [
            'Every cup is thrown, glazed and fired in our studio by the sea.',
            'Enimad minim veniam quis nostrud exercitation llamco laboris.',
            'No two pieces are the same, and each one is signed.',
          ]),
        ],
      }),
      'https://tidewell.example/',
    );
    expect(facts.name).toBe('Tidewell');
    expect(facts.headline).toBe('Tidewell');
    expect(facts.valueProposition).toBe('Tidewell ships hand-thrown ceramics to your door in two days.');
    expect(facts.features.map((f) => f.title)).toEqual(['Made by hand']);
    expect(facts.features[0].sentences).toEqual([
      'Every cup is thrown, glazed and fired in our studio by the sea.',
      'No two pieces are the same, and each one is signed.',
    ]);
  });
});
