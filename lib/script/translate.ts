/**
 * Translation provider: one interface, and one implementation for an OpenAI-compatible chat completions endpoint
 * (base URL, key and model come from settings), spoken through the `openai` SDK with its `baseURL` (no retries of
 * its own: the pipeline's retry policy decides, from `retryable`).
 *
 * The rule is "never claim a translation that did not happen": translate() either resolves with
 * one translated string per input, same order and count, or throws TranslationError. It never
 * hands the input back as if it were a translation.
 *
 * Retryable (TranslationError.retryable = true; the pipeline stage retries, then fails the campaign):
 *   - timeouts and network errors (connection refused/reset, DNS);
 *   - HTTP 408, 409, 425, 429 and every 5xx;
 *   - a 200 answer that is unusable: not JSON, content not JSON, not an array of strings, wrong
 *     count, empty items, cut short (finish_reason "length"), or every item handed back unchanged.
 *     Language models glitch now and then and the next attempt usually succeeds; the stage's retry
 *     budget is bounded, so a provider that always does this still ends in a failed campaign.
 * Not retryable: any other 4xx (400 bad request/model, 401/403 key, 404 wrong URL or model),
 *   and an explicit refusal by the model. Asking again gives the same answer.
 *
 * Messages are for operators and never contain the API key (it is also scrubbed from any text
 * the provider sends back before that text is quoted).
 */
import { deadline } from '../deadline';
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { LanguageCode } from '../../config/catalog';

export interface Translator {
  readonly name: string;
  /** Translates each text from `from` to `to`, same order and count. Throws TranslationError on any failure — never returns the input as if translated. */
  translate(texts: string[], from: string, to: LanguageCode): Promise<string[]>;
}

export class TranslationError extends Error {
  override readonly name = 'TranslationError';
  constructor(
    message: string,
    /** True when the same request may well succeed later (timeouts, 429, 5xx, glitchy answers). */
    readonly retryable: boolean,
    /** HTTP status of the provider's answer, when there was one. */
    readonly status?: number,
    /** From a Retry-After header on 429/503, when the provider sent one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

export interface ChatTranslatorOptions {
  baseUrl: string;
  apiKey: string;
  model: string;
  /** Whole request, headers and body, in milliseconds. Default 20000. */
  timeoutMs?: number;
}

export const DEFAULT_TRANSLATION_TIMEOUT_MS = 20_000;

/** At most this many characters of a provider's error text are quoted in a message. */
const QUOTE_LIMIT = 200;

const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });
/** "ja" → "Japanese (ja)"; an unknown code stays as it is. */
export function languageLabel(code: string): string {
  let label: string | undefined;
  try {
    label = languageNames.of(code);
  } catch {
    label = undefined;
  }
  return label && label !== code ? `${label} (${code})` : code;
}

/** Primary language subtag, lower case: "en-US" → "en". */
const primary = (code: string) => code.trim().toLowerCase().split(/[-_]/)[0] ?? '';

/**
 * {baseUrl}/v1/chat/completions whether or not baseUrl already ends in /v1 (or is the full endpoint).
 * `label` names the provider in error messages ("Translation provider", "Script model").
 */
export function chatCompletionsUrl(baseUrl: string, label = 'Translation provider'): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`${label} base URL is not a valid URL: ${JSON.stringify(baseUrl)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`${label} base URL must be http or https, got ${url.protocol}`);
  }
  if (url.username || url.password) {
    throw new TypeError(`${label} base URL must not contain credentials; set the API key instead.`);
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (/\/chat\/completions$/.test(path)) url.pathname = path;
  else if (/\/v1$/.test(path)) url.pathname = `${path}/chat/completions`;
  else url.pathname = `${path}/v1/chat/completions`;
  return url.toString();
}

function systemPrompt(from: string, to: LanguageCode, count: number): string {
  return [
    `You are a professional marketing translator. Translate each string in "texts" from ${languageLabel(from)} to ${languageLabel(to)}.`,
    'Write natural, fluent copy a native marketer would publish; keep the meaning, tone and length roughly the same.',
    'Keep product names, brand names, trademarks, URLs, e-mail addresses, code and numbers exactly as they are.',
    `Answer with JSON only: an object {"translations": [...]} holding exactly ${count} strings, one per input string, in the same order.`,
    'No commentary, no notes, no transliterations, no markdown.',
  ].join('\n');
}

/** Strips a ```json … ``` (or bare ```) fence around the whole content, if any. */
export function stripFence(content: string): string {
  const match = /^\s*```[a-zA-Z0-9_-]*\s*\n?([\s\S]*?)\n?\s*```\s*$/.exec(content);
  return match ? match[1] : content.trim();
}

/** A text worth translating: some letters and at least three words, or twelve letters (scripts without spaces). */
function isProse(text: string): boolean {
  const letters = text.match(/\p{L}/gu)?.length ?? 0;
  if (letters === 0) return false;
  const words = text.split(/\s+/).filter((w) => /\p{L}/u.test(w)).length;
  return words >= 3 || letters >= 12;
}

const normalize = (text: string) => text.normalize('NFC').replace(/\s+/g, ' ').trim();

/**
 * An `openai` SDK client for an OpenAI-compatible endpoint (from chatCompletionsUrl): no retries of its own, the
 * SDK's timeout a backstop 5 s behind the caller's own deadline, and no Authorization header at all without a key.
 */
export function createChatClient(endpoint: string, apiKey: string, timeoutMs: number): OpenAI {
  return new OpenAI({
    baseURL: endpoint.replace(/\/chat\/completions$/, ''),
    // A provider without keys gets no Authorization header at all, not a made-up key.
    apiKey: apiKey || 'unused',
    defaultHeaders: apiKey ? {} : { authorization: null },
    timeout: timeoutMs + 5_000,
    maxRetries: 0,
  });
}

/** The parts of an OpenAI-style chat completion read here; any of them may be missing or of another type. */
export interface ChatCompletion {
  choices?: Array<{ finish_reason?: unknown; message?: { refusal?: unknown; content?: unknown } }>;
}

export class ChatTranslator implements Translator {
  readonly name: string;
  readonly endpoint: string;
  private readonly apiKey: string;
  private readonly model: string;
  private readonly timeoutMs: number;
  private readonly client: OpenAI;

  constructor(options: ChatTranslatorOptions) {
    this.endpoint = chatCompletionsUrl(options.baseUrl);
    if (!options.model || !options.model.trim()) throw new TypeError('Translation provider model is required.');
    this.model = options.model.trim();
    this.apiKey = (options.apiKey ?? '').trim();
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TRANSLATION_TIMEOUT_MS;
    if (!Number.isFinite(this.timeoutMs) || this.timeoutMs <= 0)
      throw new TypeError('Translation provider timeout must be a positive number of milliseconds.');
    this.name = `openai-chat:${this.model}`;
    this.client = createChatClient(this.endpoint, this.apiKey, this.timeoutMs);
  }

  async translate(texts: string[], from: string, to: LanguageCode): Promise<string[]> {
    if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) {
      throw new TypeError('translate() takes an array of strings.');
    }
    // Nothing to translate: blank items stay blank (no request for them), and a text already in
    // the target language is its own translation. Neither claims work that was not done.
    const indexes: number[] = [];
    texts.forEach((t, i) => {
      if (t.trim() !== '') indexes.push(i);
    });
    if (indexes.length === 0 || primary(from) === primary(to)) return texts.slice();
    const input = indexes.map((i) => texts[i]);

    const translated = await this.request(input, from, to);

    const out = texts.slice();
    indexes.forEach((i, k) => {
      out[i] = translated[k]!;
    });
    return out;
  }

  private async request(texts: string[], from: string, to: LanguageCode): Promise<string[]> {
    let completion: unknown;
    // Our own deadline for the whole request (the SDK's `timeout` is only a backstop behind it).
    const limit = deadline(this.timeoutMs);
    try {
      completion = await this.client.chat.completions.create(
        {
          model: this.model,
          messages: [
            { role: 'system', content: systemPrompt(from, to, texts.length) },
            { role: 'user', content: JSON.stringify({ from, to, texts }) },
          ],
          response_format: { type: 'json_object' },
        },
        { signal: limit.signal },
      );
    } catch (err) {
      if (limit.passed || err instanceof APIConnectionTimeoutError)
        throw new TranslationError(`translation provider timed out after ${this.timeoutMs} ms`, true);
      if (err instanceof APIError && typeof err.status === 'number') {
        // The SDK keeps an OpenAI-style body's `error`; any other body is in its message, after the status.
        const inner: unknown = err.error;
        const body = inner === undefined ? err.message.replace(/^\d{3}\s*/, '') : JSON.stringify({ error: inner });
        const headers: unknown = err.headers;
        const retryAfter = typeof (headers as Headers | undefined)?.get === 'function' ? (headers as Headers).get('retry-after') : null;
        throw this.httpError(err.status, body, parseRetryAfter(retryAfter));
      }
      if (err instanceof APIConnectionError)
        throw new TranslationError(`translation provider could not be reached (${this.scrub(networkReason(err.cause ?? err))})`, true);
      // A 200 whose body does not parse as the JSON it claims to be.
      throw new TranslationError('translation provider returned malformed JSON (the response body is not JSON)', true, 200);
    } finally {
      limit.clear();
    }
    if (typeof completion !== 'object' || completion === null)
      throw new TranslationError('translation provider returned malformed JSON (the response body is not JSON)', true, 200);
    return this.parse(completion, texts);
  }

  private httpError(status: number, text: string, retryAfterMs: number | undefined): TranslationError {
    const retryable = status === 408 || status === 409 || status === 425 || status === 429 || status >= 500;
    let message = `translation provider answered HTTP ${status}`;
    if (status === 401 || status === 403) {
      // Never quote these: some providers echo (part of) the key back.
      message += ' (check the translation API key)';
    } else {
      const detail = providerErrorText(text);
      if (detail) message += `: ${this.scrub(detail)}`;
    }
    return new TranslationError(message, retryable, status, retryAfterMs);
  }

  private parse(envelope: ChatCompletion, input: string[]): string[] {
    const invalid = (why: string) => new TranslationError(`translation provider returned ${why}`, true, 200);
    const choice = envelope.choices?.[0];
    const message = choice?.message;
    if (message && typeof message.refusal === 'string' && message.refusal.trim()) {
      throw new TranslationError(`translation provider refused to translate: ${this.scrub(truncate(message.refusal))}`, false, 200);
    }
    if (choice?.finish_reason === 'length') throw invalid('an answer that was cut short (finish_reason "length")');
    const content = message?.content;
    if (typeof content !== 'string') throw invalid('malformed JSON (no choices[0].message.content string)');

    let parsed: unknown;
    try {
      parsed = JSON.parse(stripFence(content));
    } catch {
      throw invalid('malformed JSON (the message content is not JSON)');
    }
    const list = Array.isArray(parsed) ? parsed : (parsed as { translations?: unknown } | null)?.translations;
    if (!Array.isArray(list)) throw invalid('malformed JSON (expected {"translations": [...]} or an array)');
    if (!list.every((item) => typeof item === 'string')) throw invalid('malformed JSON (translations must all be strings)');
    if (list.length !== input.length) {
      throw invalid(`${list.length} translations for ${input.length} texts`);
    }
    const empty = list.findIndex((item) => item.trim() === '');
    if (empty !== -1) throw invalid(`an empty translation for text ${empty + 1} of ${input.length}`);

    // Every item handed back unchanged is a translation that did not happen — unless the input was
    // only names, numbers and other things that legitimately stay as they are.
    const unchanged = list.every((item, i) => normalize(item) === normalize(input[i]));
    if (unchanged && input.some(isProse)) throw invalid('the texts unchanged (nothing was translated)');
    return list;
  }

  /** Removes the API key from any text that could end up in a message or a log. */
  private scrub(text: string): string {
    return this.apiKey ? text.split(this.apiKey).join('[redacted]') : text;
  }
}

/** One line, at most QUOTE_LIMIT characters: how a provider's text is quoted in a message. */
export function truncate(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > QUOTE_LIMIT ? `${oneLine.slice(0, QUOTE_LIMIT)}…` : oneLine;
}

/** The error bodies providers send; any field may be missing or of another type. */
interface ProviderErrorBody {
  error?: string | { message?: unknown };
  message?: unknown;
}

/** OpenAI-style {"error":{"message"}}, {"error":"..."}, {"message"}, or a short plain-text body. */
export function providerErrorText(text: string): string | undefined {
  if (!text.trim()) return undefined;
  try {
    const body = JSON.parse(text) as ProviderErrorBody | null;
    const error = body?.error;
    const message = (typeof error === 'string' ? error : error?.message) ?? body?.message;
    return typeof message === 'string' && message.trim() ? truncate(message) : undefined;
  } catch {
    return /^\s*</.test(text) ? undefined : truncate(text); // HTML error pages say nothing useful
  }
}

/** A network failure's code (ECONNREFUSED, ENOTFOUND…) or short message. */
export function networkReason(err: unknown): string {
  const e = err as { cause?: { code?: unknown; message?: unknown }; code?: unknown; message?: unknown };
  const code = e?.cause?.code ?? e?.code;
  if (typeof code === 'string') return code;
  const message = e?.cause?.message ?? e?.message;
  return typeof message === 'string' ? truncate(message) : 'unknown network error';
}

function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** From settings: undefined when no provider is configured (TRANSLATION_BASE_URL unset or empty). */
export function createTranslator(settings: {
  baseUrl?: string;
  apiKey?: string;
  model?: string;
  timeoutMs?: number;
}): Translator | undefined {
  const baseUrl = settings.baseUrl?.trim();
  if (!baseUrl) return undefined;
  if (!settings.model?.trim()) throw new TypeError('TRANSLATION_BASE_URL is set but TRANSLATION_MODEL is not.');
  return new ChatTranslator({ baseUrl, apiKey: settings.apiKey ?? '', model: settings.model, timeoutMs: settings.timeoutMs });
}
