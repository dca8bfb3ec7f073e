/**
 * ChatTranslator against a local IMITATION of an OpenAI-compatible chat completions API
 * (test/support/openai-imitation.ts — the real third-party service cannot be reached from here).
 * These tests cover the wire format and every failure path; they say nothing about real
 * translation quality.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChatTranslator, chatCompletionsUrl, createTranslator, TranslationError } from '../../lib/script/translate';
import { fakeTranslation, startOpenAIImitation, type OpenAIImitation } from '../support/openai-imitation';

const API_KEY = 'sk-test-7f3c9a1e5b2d4c6e8f0a1b3c5d7e9f1a';
const MODEL = 'gpt-4o-mini';
const TEXTS = ['Ship product videos in every language.', 'Start your free trial today', 'Acme Cloud makes hosting simple for small teams.'];

let api: OpenAIImitation;

beforeAll(async () => {
  api = await startOpenAIImitation();
});
afterAll(async () => {
  await api.close();
});
beforeEach(() => {
  api.setMode('translate');
  api.requests.length = 0;
});

const translator = (options: Partial<{ baseUrl: string; apiKey: string; model: string; timeoutMs: number }> = {}) =>
  new ChatTranslator({ baseUrl: api.baseUrl, apiKey: API_KEY, model: MODEL, timeoutMs: 5000, ...options });

/** The TranslationError a promise rejects with (fails the test if it resolves or throws something else). */
async function failure(promise: Promise<unknown>): Promise<TranslationError> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a TranslationError, got a result: ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(TranslationError);
  return outcome.error as TranslationError;
}

describe('ChatTranslator: success', () => {
  test('translates every text, same order and count', async () => {
    const out = await translator().translate(TEXTS, 'en', 'ja');
    expect(out).toEqual(TEXTS.map((t) => fakeTranslation(t, 'ja')));
  });

  test('request shape: POST /v1/chat/completions, Bearer key, model, messages, json_object', async () => {
    await translator().translate(TEXTS, 'en', 'ko');
    expect(api.requests).toHaveLength(1);
    const [req] = api.requests;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(req.headers['content-type']).toMatch(/^application\/json/);
    expect(req.body.model).toBe(MODEL);
    expect(req.body.response_format).toEqual({ type: 'json_object' });
    const [system, user] = req.body.messages;
    expect(system.role).toBe('system');
    expect(system.content).toMatch(/professional marketing translator/);
    expect(system.content).toMatch(/Korean \(ko\)/);
    expect(system.content).toMatch(/product names/);
    expect(system.content).toMatch(/JSON/);
    expect(system.content).toMatch(/exactly 3 strings/);
    expect(user.role).toBe('user');
    expect(JSON.parse(user.content)).toEqual({ from: 'en', to: 'ko', texts: TEXTS });
    expect(req.body.messages).toHaveLength(2);
  });

  test.each([
    ['without /v1', (base: string) => base],
    ['without /v1, trailing slash', (base: string) => `${base}/`],
    ['with /v1', (base: string) => `${base}/v1`],
    ['with /v1/', (base: string) => `${base}/v1/`],
  ])('base URL %s reaches /v1/chat/completions', async (_label, make) => {
    const out = await translator({ baseUrl: make(api.baseUrl) }).translate(['Hello there, friend'], 'en', 'fr');
    expect(out).toEqual([fakeTranslation('Hello there, friend', 'fr')]);
    expect(api.requests.map((r) => r.path)).toEqual(['/v1/chat/completions']);
  });

  test('chatCompletionsUrl keeps a path prefix and rejects non-HTTP or credentialed URLs', () => {
    expect(chatCompletionsUrl('https://gateway.example/openai')).toBe('https://gateway.example/openai/v1/chat/completions');
    expect(chatCompletionsUrl('https://gateway.example/openai/v1/')).toBe('https://gateway.example/openai/v1/chat/completions');
    expect(chatCompletionsUrl('https://api.example/v1/chat/completions')).toBe('https://api.example/v1/chat/completions');
    expect(() => chatCompletionsUrl('ftp://api.example')).toThrow(/http or https/);
    expect(() => chatCompletionsUrl('not a url')).toThrow(/not a valid URL/);
    expect(() => chatCompletionsUrl('https://user:pw@api.example')).toThrow(/credentials/);
  });

  test('accepts a bare array inside a ```json fence', async () => {
    api.setMode('fenced-array');
    const out = await translator().translate(TEXTS, 'en', 'de');
    expect(out).toEqual(TEXTS.map((t) => fakeTranslation(t, 'de')));
  });

  test('blank items keep their place and are not sent', async () => {
    const out = await translator().translate(['', TEXTS[0], '  ', TEXTS[1]], 'en', 'ja');
    expect(out).toEqual(['', fakeTranslation(TEXTS[0], 'ja'), '  ', fakeTranslation(TEXTS[1], 'ja')]);
    expect(JSON.parse(api.requests[0].body.messages[1].content).texts).toEqual([TEXTS[0], TEXTS[1]]);
  });

  test('no request when there is nothing to translate (empty list, all blank, same language)', async () => {
    const t = translator();
    await expect(t.translate([], 'en', 'ja')).resolves.toEqual([]);
    await expect(t.translate(['', ' '], 'en', 'ja')).resolves.toEqual(['', ' ']);
    await expect(t.translate(TEXTS, 'en-US', 'en')).resolves.toEqual(TEXTS);
    expect(api.requests).toHaveLength(0);
  });
});

describe('ChatTranslator: failures are TranslationErrors, never the input passed off as a translation', () => {
  test('timeout → retryable, within about timeoutMs', async () => {
    api.setMode('timeout');
    const started = Date.now();
    const err = await failure(translator({ timeoutMs: 300 }).translate(TEXTS, 'en', 'ja'));
    const elapsed = Date.now() - started;
    expect(err.retryable).toBe(true);
    expect(err.message).toBe('translation provider timed out after 300 ms');
    expect(elapsed).toBeGreaterThanOrEqual(280);
    expect(elapsed).toBeLessThan(1500);
  });

  test('HTTP 500 → retryable, with the status', async () => {
    api.setMode('error500');
    const err = await failure(translator().translate(TEXTS, 'en', 'ja'));
    expect(err.retryable).toBe(true);
    expect(err.status).toBe(500);
    expect(err.message).toMatch(/^translation provider answered HTTP 500/);
  });

  test('malformed content → retryable, says malformed JSON', async () => {
    api.setMode('malformed');
    const err = await failure(translator().translate(TEXTS, 'en', 'ja'));
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/^translation provider returned malformed JSON/);
  });

  test('wrong count → error naming both counts', async () => {
    api.setMode('wrong-count');
    const err = await failure(translator().translate(TEXTS, 'en', 'ja'));
    expect(err.message).toBe('translation provider returned 2 translations for 3 texts');
    expect(err.retryable).toBe(true);
    const single = await failure(translator().translate([TEXTS[0]], 'en', 'ja'));
    expect(single.message).toBe('translation provider returned 2 translations for 1 texts');
  });

  test('echo (input handed back unchanged) → error, no claimed translation', async () => {
    api.setMode('echo');
    const err = await failure(translator().translate(TEXTS, 'en', 'ja'));
    expect(err.message).toMatch(/unchanged/);
    expect(err.retryable).toBe(true);
  });

  test('echo of names and numbers only is accepted: they legitimately stay as they are', async () => {
    api.setMode('echo');
    await expect(translator().translate(['Acme Cloud', 'v2.0', '99 €'], 'en', 'ja')).resolves.toEqual(['Acme Cloud', 'v2.0', '99 €']);
  });

  test('HTTP 400 → not retryable, quotes the provider message', async () => {
    api.setMode('status400');
    const err = await failure(translator().translate(TEXTS, 'en', 'ja'));
    expect(err.retryable).toBe(false);
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/^translation provider answered HTTP 400: The model `gpt-4o-mini` does not support/);
  });

  test('HTTP 401 (no key) → not retryable, points at the key', async () => {
    const err = await failure(translator({ apiKey: '' }).translate(TEXTS, 'en', 'ja'));
    expect(api.requests[0].headers.authorization).toBeUndefined();
    expect(err.retryable).toBe(false);
    expect(err.message).toBe('translation provider answered HTTP 401 (check the translation API key)');
  });

  test('wrong path (404) → not retryable', async () => {
    const err = await failure(translator({ baseUrl: `${api.baseUrl}/elsewhere` }).translate(TEXTS, 'en', 'ja'));
    expect(err.status).toBe(404);
    expect(err.retryable).toBe(false);
  });

  test('connection refused → retryable, says it could not be reached', async () => {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const err = await failure(translator({ baseUrl: `http://127.0.0.1:${port}` }).translate(TEXTS, 'en', 'ja'));
    expect(err.retryable).toBe(true);
    expect(err.message).toBe('translation provider could not be reached (ECONNREFUSED)');
  });

  test('the API key never appears in an error, even when the provider echoes it', async () => {
    const seen: string[] = [];
    const record = (err: TranslationError) => seen.push(err.message, String(err), err.stack ?? '', JSON.stringify(err));
    for (const mode of ['timeout', 'error500', 'malformed', 'wrong-count', 'echo', 'status400'] as const) {
      api.setMode(mode);
      record(await failure(translator({ timeoutMs: 300 }).translate(TEXTS, 'en', 'ja')));
    }
    // status400 quotes the model name; a model named after the key stands in for a provider that echoes it.
    api.setMode('status400');
    const echoed = await failure(translator({ model: `x-${API_KEY}` }).translate(TEXTS, 'en', 'ja'));
    record(echoed);
    expect(echoed.message).toMatch(/\[redacted\]/);
    expect(seen.length).toBeGreaterThan(0);
    for (const text of seen) expect(text).not.toContain(API_KEY);
  });
});

describe('createTranslator', () => {
  test('undefined when no provider is configured', () => {
    expect(createTranslator({})).toBeUndefined();
    expect(createTranslator({ baseUrl: '', apiKey: API_KEY, model: MODEL })).toBeUndefined();
    expect(createTranslator({ baseUrl: '   ', apiKey: API_KEY, model: MODEL })).toBeUndefined();
  });

  test('a ChatTranslator when configured; a clear error when the model is missing', async () => {
    const t = createTranslator({ baseUrl: api.baseUrl, apiKey: API_KEY, model: MODEL, timeoutMs: 1000 });
    expect(t).toBeInstanceOf(ChatTranslator);
    expect(t!.name).toBe(`openai-chat:${MODEL}`);
    await expect(t!.translate([TEXTS[0]], 'en', 'es')).resolves.toEqual([fakeTranslation(TEXTS[0], 'es')]);
    expect(() => createTranslator({ baseUrl: api.baseUrl, apiKey: API_KEY })).toThrow(/TRANSLATION_MODEL/);
    expect(() => createTranslator({ baseUrl: 'nope', apiKey: API_KEY, model: MODEL })).toThrow(/not a valid URL/);
  });
});
