/**
 * A call to action's label is the control's own words (lib/capture/cta-label.ts): a real closing card read "Try
 * online demo Powered by <cloud vendor>", the button and its sponsor line being one link.
 */
import { actionLabel, actionLabels, languageName, withoutSponsorNote } from '../../lib/capture/cta-label';
import { keyFacts, type CapturedText } from '../../lib/script/analyze';

test('a sponsor line under the label, in the same link, is not part of it', () => {
  expect(actionLabel({ lines: ['Try online demo', 'Powered by Nimbus Cloud'], ariaLabel: null })).toBe('Try online demo');
  // The sponsor line first (a badge above the words): the label is still the control's own words.
  expect(actionLabel({ lines: ['Sponsored by Nimbus Cloud', 'Deploy in one click'], ariaLabel: null })).toBe('Deploy in one click');
});

test('a sponsor note on the label’s own line is dropped, with what separates it', () => {
  expect(withoutSponsorNote('Try online demo Powered by Nimbus Cloud')).toBe('Try online demo');
  expect(withoutSponsorNote('Deploy now — Sponsored by Acme Hosting')).toBe('Deploy now');
  expect(withoutSponsorNote('Open the playground (hosted by Nimbus)')).toBe('Open the playground');
  expect(withoutSponsorNote('Watch the keynote · Presented by Acme')).toBe('Watch the keynote');
});

test('words that only look like a note stay: "Hosted checkout", "Supported devices", "Powered up"', () => {
  for (const label of ['Hosted checkout', 'Supported devices', 'Get Powered up', 'Start free trial'])
    expect(withoutSponsorNote(label)).toBe(label);
});

test('the visible words before the aria-label; the aria-label for a control without words of its own', () => {
  expect(actionLabel({ lines: ['Start free trial'], ariaLabel: 'Start your free 14-day trial of Northwind Ledger' })).toBe(
    'Start free trial',
  );
  expect(actionLabel({ lines: [], ariaLabel: 'Open the demo' })).toBe('Open the demo');
});

test('labels each once, in order, only those that read as a control’s name', () => {
  const seen = [
    { lines: ['Try online demo', 'Powered by Nimbus Cloud'], ariaLabel: null },
    { lines: ['Try online demo'], ariaLabel: null },
    { lines: ['→'], ariaLabel: null },
    { lines: ['Read the whole story of how our team rebuilt the ledger from scratch'], ariaLabel: null },
    { lines: ['Book a call'], ariaLabel: null },
  ];
  expect(actionLabels(seen)).toEqual(['Try online demo', 'Book a call']);
});

test("a capture stored before the rule: the script's call to action drops the sponsor's note", () => {
  const text: CapturedText = {
    title: 'Lumen',
    description: null,
    open_graph: {},
    headings: [{ level: 1, text: 'Lumen, the calm reader for the web' }],
    main_text: 'Lumen turns any article into a quiet page.',
    actions: ['Try online demo Powered by Nimbus Cloud'],
  };
  expect(keyFacts(text, 'https://lumen.example/').callToAction).toBe('Try online demo');
});

test('a language switcher\'s controls are no call to action: a real closing card read "English"', () => {
  for (const name of ['English', 'EN', 'Français', 'עברית', 'Русский', '中文', '한국어', 'español']) expect(languageName(name)).toBe(true);
  for (const label of ['Get started', 'Englisch lernen', 'Shop now']) expect(languageName(label)).toBe(false);
  const seen = ['English', 'עברית', 'Start your journey'].map((label) => ({ lines: [label], ariaLabel: null }));
  expect(actionLabels(seen)).toEqual(['Start your journey']);
  // A capture made before switchers were left out carries their labels: the analysis passes over them.
  const text: CapturedText = {
    title: 'Geula',
    description: null,
    open_graph: {},
    headings: [],
    main_text: '',
    actions: ['English', 'Start your journey'],
  };
  expect(keyFacts(text, 'https://geula.example/').callToAction).toBe('Start your journey');
});

test('a consent widget\'s controls are no call to action: a real closing card read "Cookie preferences"', () => {
  const text: CapturedText = {
    title: 'Crumbs',
    description: null,
    open_graph: {},
    headings: [{ level: 1, text: 'Crumbs' }],
    main_text: 'Crumbs asks your visitors once, and remembers.',
    actions: ['Cookie preferences', 'Accept all cookies', 'Add Crumbs to your site'],
  };
  expect(keyFacts(text, 'https://crumbs.example/').callToAction).toBe('Add Crumbs to your site');
  expect(keyFacts({ ...text, actions: ['Cookie settings'] }, 'https://crumbs.example/').callToAction).toBeNull();
});
