/**
 * The optional script model (lib/script/model-writer.ts) against a local IMITATION of an OpenAI-compatible chat
 * completions API (test/support/openai-imitation.ts — the real third-party service cannot be reached from here).
 * The imitation writes nothing: its good "script" copies the page's own sentences and its bad ones are canned
 * mistakes. These tests cover the wire format, every check of an answer and every failure path; they say nothing
 * about the scripts a real model writes.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../config';
import type { LanguageCode } from '../../config/catalog';
import {
  ChatScriptModel,
  createScriptModel,
  textIsInLanguage,
  validateModelScript,
  type ModelScriptRequest,
  type ModelScriptResult,
} from '../../lib/script/model-writer';
import { ChatTranslator } from '../../lib/script/translate';
import {
  INVENTED_NAME_SENTENCE,
  INVENTED_NUMBER_SENTENCE,
  startOpenAIImitation,
  WRONG_LANGUAGE_SENTENCES,
  type OpenAIImitation,
} from '../support/openai-imitation';

const API_KEY = 'sk-test-2b4d6f8a0c1e3a5c7e9b1d3f5a7c9e1b';
const MODEL = 'gpt-4o-mini';

/** An English page: the hero says the value proposition's first sentence, each section its first sentence. */
const EN_SECTIONS = [
  {
    heading: 'One-click deploys',
    sentences: ['Push your code and Acme Cloud builds and ships it in seconds.', 'Rollbacks take one click.'],
  },
  { heading: 'Nightly backups', sentences: ['Every database is backed up each night and kept for 30 days.', 'Restores are self-service.'] },
  { heading: 'Trusted by teams', sentences: ['More than 4,000 teams run their sites on Acme Cloud.', '92% of them stay after the trial.'] },
];
const EN_REQUEST: ModelScriptRequest = {
  language: 'en',
  pageLanguage: 'en',
  facts: {
    name: 'Acme Cloud',
    domain: 'acme.io',
    headline: 'Hosting made simple',
    valueProposition: 'Acme Cloud makes hosting simple for small teams. Deploy in minutes, not days.',
    callToAction: 'Start free trial',
    sections: EN_SECTIONS,
    pageText: [
      'Acme Cloud',
      'Hosting made simple',
      'Acme Cloud makes hosting simple for small teams. Deploy in minutes, not days.',
      ...EN_SECTIONS.flatMap((s) => [s.heading, ...s.sentences]),
      'Pricing starts at $9 per month.',
      'Start free trial',
    ].join('\n'),
  },
  scenes: [
    { section: null, seconds: 8.5 },
    { section: 0, seconds: 6.5 },
    { section: 1, seconds: 6.5 },
    { section: 2, seconds: 6.5 },
  ],
};
const EN_GOOD = [
  'Acme Cloud makes hosting simple for small teams.',
  'Push your code and Acme Cloud builds and ships it in seconds.',
  'Every database is backed up each night and kept for 30 days.',
  'More than 4,000 teams run their sites on Acme Cloud.',
];

/** A page in the narration's own language, so that the imitation's copied sentences are a usable answer. */
function pageRequest(language: LanguageCode, valueProposition: string, sections: Array<{ heading: string; sentences: string[] }>) {
  const request: ModelScriptRequest = {
    language,
    pageLanguage: language,
    facts: {
      name: 'Acme Cloud',
      headline: sections[0].heading,
      valueProposition,
      callToAction: null,
      sections,
      pageText: ['Acme Cloud', valueProposition, ...sections.flatMap((s) => [s.heading, ...s.sentences])].join('\n'),
    },
    scenes: [{ section: null, seconds: 8.5 }, ...sections.map((_, i) => ({ section: i, seconds: 6.5 }))],
  };
  return request;
}
const ES_REQUEST = pageRequest('es', 'Acme Cloud hace que el alojamiento sea sencillo para equipos pequeños. Publica en minutos.', [
  { heading: 'Despliegues con un clic', sentences: ['Sube tu código y Acme Cloud lo publica en segundos.'] },
  { heading: 'Copias de seguridad', sentences: ['Cada base de datos se copia todas las noches y se guarda durante 30 días.'] },
]);
const JA_REQUEST = pageRequest('ja', 'Acme Cloudなら、小さなチームでもホスティングが簡単です。数分で公開できます。', [
  { heading: 'ワンクリックでデプロイ', sentences: ['コードをプッシュするだけで、Acme Cloudが数秒でビルドして公開します。'] },
  { heading: '毎晩のバックアップ', sentences: ['すべてのデータベースを毎晩バックアップし、30日間保管します。'] },
]);
const KO_REQUEST = pageRequest('ko', 'Acme Cloud는 소규모 팀을 위한 간편한 호스팅입니다. 몇 분 만에 배포하세요.', [
  { heading: '클릭 한 번으로 배포', sentences: ['코드를 올리면 Acme Cloud가 몇 초 만에 빌드하고 배포합니다.'] },
]);

let api: OpenAIImitation;

beforeAll(async () => {
  api = await startOpenAIImitation();
});
afterAll(async () => {
  await api.close();
});
beforeEach(() => {
  api.setMode('script');
  api.requests.length = 0;
});

const model = (options: Partial<{ baseUrl: string; apiKey: string; model: string; timeoutMs: number }> = {}) =>
  new ChatScriptModel({ baseUrl: api.baseUrl, apiKey: API_KEY, model: MODEL, timeoutMs: 5000, ...options });

/** The reason of a refused write (fails the test when the write was accepted). */
function refused(result: ModelScriptResult): string {
  if (result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result.narration)}`);
  return result.reason;
}

describe('ChatScriptModel: a good answer', () => {
  test('is accepted and returned in scene order', async () => {
    const result = await model().write(EN_REQUEST);
    expect(result).toEqual({ ok: true, narration: EN_GOOD });
  });

  test('request shape: POST /v1/chat/completions, Bearer key, model, json_object, the prompt and the task as JSON', async () => {
    await model().write(ES_REQUEST);
    expect(api.requests).toHaveLength(1);
    const [req] = api.requests;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(req.body.model).toBe(MODEL);
    expect(req.body.response_format).toEqual({ type: 'json_object' });
    const [system, user] = req.body.messages;
    expect(system.role).toBe('system');
    expect(system.content).toMatch(/Spanish \(es\)/);
    expect(system.content).toMatch(/Use only facts/);
    expect(system.content).toMatch(/exactly 3 strings/);
    expect(system.content).toMatch(/\{"scenes": \[\.\.\.\]\}/);
    const task = JSON.parse(user.content);
    expect(task.task).toBe('narration-script');
    expect(task.language).toBe('es');
    expect(task.facts.name).toBe('Acme Cloud');
    expect(task.scenes).toEqual([
      { scene: 1, shows: 'hero', section: null, seconds: 8.5, maxWords: 22 },
      { scene: 2, shows: 'section', section: 0, heading: 'Despliegues con un clic', seconds: 6.5, maxWords: 16 },
      { scene: 3, shows: 'section', section: 1, heading: 'Copias de seguridad', seconds: 6.5, maxWords: 16 },
    ]);
    expect(task.pageText).toContain('Sube tu código');
  });

  test('in the page language: Spanish, Japanese (characters budget) and Korean pages', async () => {
    const es = await model().write(ES_REQUEST);
    expect(es).toEqual({
      ok: true,
      narration: [
        'Acme Cloud hace que el alojamiento sea sencillo para equipos pequeños.',
        'Sube tu código y Acme Cloud lo publica en segundos.',
        'Cada base de datos se copia todas las noches y se guarda durante 30 días.',
      ],
    });
    const ja = await model().write(JA_REQUEST);
    expect(ja.ok && ja.narration[0]).toBe('Acme Cloudなら、小さなチームでもホスティングが簡単です。');
    expect(JSON.parse(api.requests[1].body.messages[1].content).scenes[0].maxCharacters).toBe(59);
    const ko = await model().write(KO_REQUEST);
    expect(ko.ok && ko.narration).toEqual([
      'Acme Cloud는 소규모 팀을 위한 간편한 호스팅입니다.',
      '코드를 올리면 Acme Cloud가 몇 초 만에 빌드하고 배포합니다.',
    ]);
  });

  test('a bare array inside a ```json fence is accepted too', async () => {
    api.setMode('fenced-array');
    expect(await model().write(EN_REQUEST)).toEqual({ ok: true, narration: EN_GOOD });
  });

  test('base URL with or without /v1', async () => {
    expect((await model({ baseUrl: `${api.baseUrl}/v1/` }).write(EN_REQUEST)).ok).toBe(true);
    expect(api.requests.map((r) => r.path)).toEqual(['/v1/chat/completions']);
  });

  test('no scenes: no request, nothing to say', async () => {
    expect(await model().write({ ...EN_REQUEST, scenes: [] })).toEqual({ ok: true, narration: [] });
    expect(api.requests).toHaveLength(0);
  });

  test('a request that names a missing section is refused before any call', async () => {
    const reason = refused(await model().write({ ...EN_REQUEST, scenes: [{ section: 7, seconds: 6 }] }));
    expect(reason).toBe('script request is invalid: scene 1 refers to section 7, but there are 3');
    expect(api.requests).toHaveLength(0);
  });

  test('translation requests in a script mode are still translations (told apart by content)', async () => {
    api.setMode('script-wrong-count');
    const t = new ChatTranslator({ baseUrl: api.baseUrl, apiKey: API_KEY, model: MODEL });
    await expect(t.translate(['Hello there, friend'], 'en', 'fr')).resolves.toEqual(['[fr] Hello there, friend']);
  });
});

describe('ChatScriptModel: bad answers are refused with a reason naming the problem (never thrown)', () => {
  test('an invented number', async () => {
    api.setMode('script-invented-number');
    const reason = refused(await model().write(EN_REQUEST));
    expect(INVENTED_NUMBER_SENTENCE).toContain('12,345');
    expect(reason).toBe(`script model's answer was refused: scene 1: number "12,345" is not on the page`);
  });

  test('an invented name', async () => {
    api.setMode('script-invented-name');
    const reason = refused(await model().write(EN_REQUEST));
    expect(INVENTED_NAME_SENTENCE).toContain('Salesforce');
    expect(reason).toBe(`script model's answer was refused: scene 1: name "Salesforce" is not on the page`);
  });

  test('the wrong count', async () => {
    api.setMode('script-wrong-count');
    expect(refused(await model().write(EN_REQUEST))).toBe("script model's answer was refused: 3 narrations for 4 scenes");
    const single = { ...EN_REQUEST, scenes: [EN_REQUEST.scenes[0]] };
    expect(refused(await model().write(single))).toBe("script model's answer was refused: 2 narrations for 1 scenes");
  });

  test('the wrong language: English when Spanish was asked for', async () => {
    api.setMode('script-wrong-language');
    const reason = refused(await model().write(ES_REQUEST));
    expect(reason).toMatch(
      /^script model's answer was refused: scene 1: reads as English \(en\), not Spanish \(es\); scene 2: reads as English/,
    );
    expect(reason).not.toMatch(/number|name|too long/);
  });

  test('the wrong language: English when Korean was asked for', async () => {
    api.setMode('script-wrong-language');
    const reason = refused(await model().write(KO_REQUEST));
    expect(reason).toMatch(/scene 1: .*is not in Korean \(ko\): only 0 % of its letters are Hangul/);
    expect(WRONG_LANGUAGE_SENTENCES.hero).toMatch(/^Meet/);
  });

  test('too long for the scene', async () => {
    api.setMode('script-too-long');
    const reason = refused(await model().write(EN_REQUEST));
    expect(reason).toMatch(
      /^script model's answer was refused: scene 1: too long, reads in about 64\.0 s where the scene has 8\.5 s; scene 2: too long/,
    );
    expect(reason).toMatch(/scene 4: too long, reads in about 80\.0 s where the scene has 6\.5 s$/);
  });

  test('malformed content', async () => {
    api.setMode('malformed');
    expect(refused(await model().write(EN_REQUEST))).toBe('script model returned malformed JSON (the message content is not JSON)');
  });

  test('HTTP 500', async () => {
    api.setMode('error500');
    expect(refused(await model().write(EN_REQUEST))).toMatch(/^script model answered HTTP 500: The server had an error/);
  });

  test('a timeout is refused within bounds', async () => {
    api.setMode('timeout');
    const started = Date.now();
    const reason = refused(await model({ timeoutMs: 300 }).write(EN_REQUEST));
    const elapsed = Date.now() - started;
    expect(reason).toBe('script model timed out after 300 ms');
    expect(elapsed).toBeGreaterThanOrEqual(280);
    expect(elapsed).toBeLessThan(1500);
  });

  test('connection refused', async () => {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(refused(await model({ baseUrl: `http://127.0.0.1:${port}` }).write(EN_REQUEST))).toBe(
      'script model could not be reached (ECONNREFUSED)',
    );
  });

  test('HTTP 401 without a key points at SCRIPT_API_KEY', async () => {
    const reason = refused(await model({ apiKey: '' }).write(EN_REQUEST));
    expect(api.requests[0].headers.authorization).toBeUndefined();
    expect(reason).toBe('script model answered HTTP 401 (check SCRIPT_API_KEY)');
  });

  test('the API key never appears in a reason, even when the provider echoes it', async () => {
    const reasons: string[] = [];
    for (const mode of ['timeout', 'error500', 'malformed', 'script-wrong-count', 'script-invented-name', 'status400'] as const) {
      api.setMode(mode);
      reasons.push(refused(await model({ timeoutMs: 300 }).write(EN_REQUEST)));
    }
    api.setMode('status400'); // quotes the model name: a model named after the key stands in for a provider echoing it
    const echoed = refused(await model({ model: `x-${API_KEY}` }).write(EN_REQUEST));
    expect(echoed).toMatch(/\[redacted\]/);
    for (const reason of [...reasons, echoed]) expect(reason).not.toContain(API_KEY);
  });
});

describe('validateModelScript', () => {
  const one = (
    language: LanguageCode,
    pageText: string,
    seconds = 8,
    extra: Partial<ModelScriptRequest['facts']> = {},
  ): ModelScriptRequest => ({
    language,
    pageLanguage: language,
    facts: { name: 'Acme Cloud', headline: '', valueProposition: '', callToAction: null, sections: [], pageText, ...extra },
    scenes: [{ section: null, seconds }],
  });
  const check = (request: ModelScriptRequest, text: unknown) => validateModelScript(request, { scenes: [text] });

  test('shape', () => {
    expect(validateModelScript(EN_REQUEST, { scenes: EN_GOOD })).toBeNull();
    expect(validateModelScript(EN_REQUEST, EN_GOOD)).toBeNull();
    expect(validateModelScript(EN_REQUEST, { narration: EN_GOOD })).toBe('the answer is not {"scenes": [...]}');
    expect(validateModelScript(EN_REQUEST, 'text')).toBe('the answer is not {"scenes": [...]}');
    expect(validateModelScript(EN_REQUEST, { scenes: [...EN_GOOD.slice(0, 3), 42] })).toBe('scene 4: narration is not a string');
    expect(validateModelScript(EN_REQUEST, { scenes: [...EN_GOOD.slice(0, 3), '  '] })).toBe('scene 4: narration is empty');
  });

  test('reading time: within the scene seconds plus 15 %', () => {
    const page = 'one two three four five six seven eight nine ten eleven twelve';
    const request = one('en', page, 4); // 2.5 words/s: 10 words fit, 11 (4.4 s) still do, 12 (4.8 s) do not
    expect(check(request, 'One two three four five six seven eight nine ten eleven.')).toBeNull();
    expect(check(request, 'One two three four five six seven eight nine ten eleven twelve.')).toBe(
      'scene 1: too long, reads in about 4.8 s where the scene has 4 s',
    );
  });

  test('whole sentences, with each language its own terminator; Thai has none', () => {
    const page = 'Acme Cloud makes hosting simple';
    expect(check(one('en', page), 'Acme Cloud makes hosting simple')).toBe(
      'scene 1: does not end as a whole sentence (no . ! ? at its end)',
    );
    expect(check(one('en', page), 'Acme Cloud makes hosting simple…')).toBe(
      'scene 1: trails off in an ellipsis instead of ending as a whole sentence',
    );
    expect(check(one('en', page), '"Acme Cloud makes hosting simple!"')).toBeNull();
    expect(check(one('ja', 'Acme Cloud'), 'Acme Cloudでホスティングが簡単です')).toMatch(/does not end as a whole sentence \(no 。/);
    expect(check(one('ja', 'Acme Cloud'), 'Acme Cloudでホスティングが簡単です。')).toBeNull();
    expect(check(one('hi', 'Acme Cloud'), 'Acme Cloud होस्टिंग आसान बनाता है।')).toBeNull();
    expect(check(one('th', 'Acme Cloud'), 'Acme Cloud ทำให้การโฮสต์เว็บง่ายสำหรับทีมเล็ก')).toBeNull();
  });

  test('numbers: only those on the page, separators and digit scripts normalized', () => {
    const page = 'More than 4,000 teams. 92% stay. Plans from 9.50 a month.';
    expect(check(one('en', page), 'More than 4,000 teams, and 92% stay.')).toBeNull();
    expect(check(one('de', page), 'Mehr als 4.000 Teams, und 92 % bleiben.')).toBeNull();
    expect(check(one('fr', page), 'Plus de 4 000 équipes, dès 9,50 par mois.')).toBeNull();
    expect(check(one('ja', page), '4000以上のチームが利用しています。')).toBeNull();
    expect(check(one('ar', page), 'أكثر من ٤٬٠٠٠ فريق يستخدمونه.')).toBeNull();
    expect(check(one('en', page), 'More than 5,000 teams, and 92% stay.')).toBe('scene 1: number "5,000" is not on the page');
    expect(check(one('en', page), 'Over 12,345 teams and 99% stay.')).toBe('scene 1: numbers "12,345", "99" are not on the page');
  });

  test('names: capitalized words not at a sentence start, any Latin word in a non-Latin narration', () => {
    const page = 'Acme Cloud hosts sites. Connect GitHub in a minute.';
    expect(check(one('en', page), 'Connect GitHub to Acme Cloud. Every push ships.')).toBeNull();
    expect(check(one('en', page), 'Connect GitHub and Salesforce to Acme Cloud.')).toBe('scene 1: name "Salesforce" is not on the page');
    expect(check(one('en', page), 'I think Salesforce users love Acme Cloud.')).toBe('scene 1: name "Salesforce" is not on the page');
    expect(check(one('en', page, 8, { domain: 'acme.io' }), 'Visit Acme Cloud at acme.io.')).toBeNull();
    // German capitalizes every noun: only brand-shaped words count there.
    expect(check(one('de', page), 'Verbinden Sie GitHub mit Acme Cloud in einer Minute.')).toBeNull();
    expect(check(one('de', page), 'Verbinden Sie HubSpot mit Acme Cloud.')).toBe('scene 1: name "HubSpot" is not on the page');
    expect(check(one('ja', page), 'GitHubとAcme Cloudをつなげます。')).toBeNull();
    expect(check(one('ja', page), 'SalesforceとAcme Cloudをつなげます。')).toBe('scene 1: name "Salesforce" is not on the page');
  });

  test('several problems are listed together, each with its scene', () => {
    const reason = validateModelScript(EN_REQUEST, { scenes: [EN_GOOD[0], 'Used by Salesforce', EN_GOOD[2], 'Over 12,345 teams.'] });
    expect(reason).toBe(
      'scene 2: does not end as a whole sentence (no . ! ? at its end); scene 2: name "Salesforce" is not on the page; ' +
        'scene 4: number "12,345" is not on the page',
    );
  });
});

describe('textIsInLanguage', () => {
  const SAMPLES: Record<string, string> = {
    en: 'Acme Cloud makes hosting simple for small teams.',
    es: 'Acme Cloud hace que el alojamiento sea sencillo para equipos pequeños.',
    fr: "Acme Cloud rend l'hébergement simple pour les petites équipes.",
    de: 'Acme Cloud macht Hosting einfach für kleine Teams.',
    pt: 'Acme Cloud torna a hospedagem simples para pequenas equipes.',
    it: 'Inizia oggi la tua prova gratuita.',
    nl: 'Acme Cloud maakt hosting eenvoudig voor kleine teams.',
    pl: 'Acme Cloud ułatwia hosting małym zespołom.',
    tr: 'Acme Cloud küçük ekipler için barındırmayı kolaylaştırır.',
    id: 'Acme Cloud membuat hosting menjadi mudah untuk tim kecil.',
    vi: 'Acme Cloud giúp việc lưu trữ trở nên đơn giản cho các nhóm nhỏ.',
    sv: 'Acme Cloud gör webbhotell enkelt för små team.',
    ja: 'Acme Cloudなら、小さなチームでもホスティングが簡単です。',
    ko: 'Acme Cloud는 소규모 팀을 위한 간편한 호스팅입니다.',
    zh: 'Acme Cloud 让小团队轻松托管网站。',
    ar: 'يجعل Acme Cloud الاستضافة سهلة للفرق الصغيرة.',
    hi: 'Acme Cloud छोटी टीमों के लिए होस्टिंग आसान बनाता है।',
    th: 'Acme Cloud ทำให้การโฮสต์เว็บง่ายสำหรับทีมเล็ก',
    ru: 'Acme Cloud делает хостинг простым для небольших команд.',
    uk: 'Спробуйте Acme Cloud вже сьогодні на сайті.',
  };

  test.each(Object.entries(SAMPLES))('a %s sentence is in its own language', (language, text) => {
    expect(textIsInLanguage(text, language as LanguageCode)).toBe(true);
    expect(textIsInLanguage(text, language as LanguageCode, ['Acme Cloud'])).toBe(true);
  });

  test.each([
    ['en', 'es'],
    ['en', 'ko'],
    ['en', 'fr'],
    ['en', 'de'],
    ['en', 'ja'],
    ['en', 'ru'],
    ['en', 'th'],
    ['es', 'en'],
    ['es', 'pt'],
    ['fr', 'en'],
    ['de', 'nl'],
    ['ja', 'zh'],
    ['ja', 'ko'],
    ['zh', 'ja'],
    ['ko', 'ja'],
    ['ko', 'en'],
    ['ar', 'hi'],
    ['ar', 'en'],
    ['hi', 'ar'],
    ['th', 'en'],
    ['ru', 'uk'],
    ['uk', 'ru'],
    ['ru', 'en'],
  ])('a %s sentence is not %s', (written, asked) => {
    expect(textIsInLanguage(SAMPLES[written], asked as LanguageCode)).toBe(false);
  });

  test('short English sentences are not Spanish or Korean; the product name belongs to no language', () => {
    expect(textIsInLanguage('Start your free trial today.', 'es')).toBe(false);
    expect(textIsInLanguage('Acme Cloud is trusted by 4,000 teams.', 'nl')).toBe(false);
    expect(textIsInLanguage('Deploy in one click.', 'ko')).toBe(false);
    expect(textIsInLanguage('Acme Cloud.', 'ko')).toBe(false);
    expect(textIsInLanguage('Acme Cloud.', 'ko', ['Acme Cloud'])).toBe(true);
    expect(textIsInLanguage('2024.', 'en')).toBe(false);
  });
});

describe('createScriptModel and config.scriptWriter', () => {
  test('undefined when no script model is configured', () => {
    expect(createScriptModel(undefined)).toBeUndefined();
    expect(createScriptModel({ baseUrl: ' ', model: MODEL, timeoutMs: 1000 })).toBeUndefined();
  });

  test('a ChatScriptModel when configured; a clear error when it cannot work', async () => {
    const m = createScriptModel({ baseUrl: api.baseUrl, apiKey: API_KEY, model: MODEL, timeoutMs: 1000 });
    expect(m).toBeInstanceOf(ChatScriptModel);
    expect(m!.name).toBe(`openai-chat:${MODEL}`);
    expect((await m!.write(EN_REQUEST)).ok).toBe(true);
    expect(() => createScriptModel({ baseUrl: api.baseUrl, model: ' ', timeoutMs: 1000 })).toThrow(/SCRIPT_MODEL/);
    expect(() => createScriptModel({ baseUrl: 'nope', model: MODEL, timeoutMs: 1000 })).toThrow(/Script model base URL is not a valid URL/);
  });

  test('loadConfig reads SCRIPT_BASE_URL, SCRIPT_API_KEY, SCRIPT_MODEL, SCRIPT_TIMEOUT', () => {
    expect(loadConfig({}).scriptWriter).toBeUndefined();
    expect(loadConfig({ SCRIPT_BASE_URL: '', SCRIPT_MODEL: MODEL }).scriptWriter).toBeUndefined();
    expect(loadConfig({ SCRIPT_BASE_URL: 'http://127.0.0.1:8080/v1', SCRIPT_MODEL: 'qwen2.5-7b-instruct' }).scriptWriter).toEqual({
      baseUrl: 'http://127.0.0.1:8080/v1',
      apiKey: undefined,
      model: 'qwen2.5-7b-instruct',
      timeoutMs: 60_000,
    });
    expect(
      loadConfig({ SCRIPT_BASE_URL: 'https://api.openai.com', SCRIPT_API_KEY: API_KEY, SCRIPT_MODEL: MODEL, SCRIPT_TIMEOUT: '2s' })
        .scriptWriter,
    ).toEqual({ baseUrl: 'https://api.openai.com', apiKey: API_KEY, model: MODEL, timeoutMs: 2000 });
    expect(() => loadConfig({ SCRIPT_BASE_URL: 'http://127.0.0.1:8080' })).toThrow('SCRIPT_BASE_URL is set but SCRIPT_MODEL is not');
    expect(() => loadConfig({ SCRIPT_BASE_URL: 'localhost:8080', SCRIPT_MODEL: MODEL })).toThrow('SCRIPT_BASE_URL must be an http(s) URL');
    expect(() => loadConfig({ SCRIPT_BASE_URL: 'http://127.0.0.1:8080', SCRIPT_MODEL: MODEL, SCRIPT_TIMEOUT: '0' })).toThrow(
      'SCRIPT_TIMEOUT must be more than 0',
    );
  });
});
