/**
 * ============================================================================================
 *  IMITATION OF A THIRD-PARTY API — NOT THE REAL SERVICE.
 *  The real OpenAI-compatible chat completions endpoint cannot be reached from the test
 *  environment, so this small local HTTP server (127.0.0.1, port 0) imitates its wire format:
 *  POST /v1/chat/completions with a JSON body, answered with a chat.completion object whose
 *  choices[0].message.content is a JSON string. It does no real translation: mode 'translate'
 *  prefixes each text with "[<to>] ". Passing tests against it show that our client speaks the
 *  wire format and handles failures; they say nothing about a real provider's translation quality.
 *  Nor does it write: a script request is answered by copying the page's own sentences (mode
 *  'script'), which is a usable narration only when the page is in the narration's language, and
 *  the bad script modes are canned mistakes. Passing tests show that our script writer asks in
 *  the right shape and refuses those mistakes; they say nothing about a real model's scripts.
 * ============================================================================================
 *
 * Modes (setMode at runtime):
 *   translate   200, {"translations": ["[ja] text", ...]} inside the content, realistic envelope
 *   timeout     never answers (the connection is held open until close())
 *   error500    500 with an OpenAI-style error body
 *   malformed   200 envelope whose content is not JSON
 *   wrong-count 200, one translation fewer than texts (one more when there is a single text)
 *   echo        200, the input texts unchanged
 *   status400   400 with an OpenAI-style invalid_request_error body (it quotes the model name)
 *   fenced-array  200, content is a bare JSON array inside a ```json fence (some models do this)
 *
 * Two kinds of request, told apart by their content (not by the mode): a translation request's user
 * message is {"from","to","texts"}; a script request's (lib/script/model-writer.ts) is
 * {"task":"narration-script","language","facts","scenes",…}. timeout, error500, status400 and
 * malformed answer both kinds alike. A script request is answered:
 *   script (also translate, echo)  {"scenes": [...]}: for each scene the first sentence of its section
 *                  (facts.sections[scene.section].sentences[0]), or of the value proposition for the hero
 *   fenced-array   the same as a bare array inside a ```json fence
 *   script-invented-number  as script, the first scene followed by "Trusted by 12,345 teams." (not on the page)
 *   script-wrong-count / wrong-count  one narration fewer than scenes (one more when there is a single scene)
 *   script-wrong-language   fixed English sentences, whatever language was asked for
 *   script-too-long         each scene's sentence said 20 times over
 *   script-invented-name    as script, the first scene followed by "Works with Salesforce."
 * A translation request in a script-* mode is answered as in 'translate'.
 * Every request is recorded: path, headers, parsed JSON body (or the raw text when not JSON).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import crypto from 'node:crypto';

export type OpenAIImitationMode =
  | 'translate'
  | 'timeout'
  | 'error500'
  | 'malformed'
  | 'wrong-count'
  | 'echo'
  | 'status400'
  | 'fenced-array'
  | 'script'
  | 'script-invented-number'
  | 'script-wrong-count'
  | 'script-wrong-language'
  | 'script-too-long'
  | 'script-invented-name';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

export interface OpenAIImitation {
  /** http://127.0.0.1:PORT — without /v1, as a provider's base URL is often written. */
  baseUrl: string;
  setMode(mode: OpenAIImitationMode): void;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** The fake "translation": deterministic, visibly different from the input. */
export const fakeTranslation = (text: string, to: string) => `[${to}] ${text}`;

/** The texts and target language the client sent in its user message ({"from","to","texts"}). */
function readTask(body: any): { to: string; texts: string[] } {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const user = [...messages].reverse().find((m) => m?.role === 'user');
  try {
    const task = JSON.parse(String(user?.content ?? ''));
    return { to: String(task.to ?? 'xx'), texts: Array.isArray(task.texts) ? task.texts.map(String) : [] };
  } catch {
    return { to: 'xx', texts: [] };
  }
}

/** The canned mistakes of the bad script modes. */
export const INVENTED_NUMBER_SENTENCE = 'Trusted by 12,345 teams.';
export const INVENTED_NAME_SENTENCE = 'Works with Salesforce.';
export const WRONG_LANGUAGE_SENTENCES = {
  hero: 'Meet the product that makes this work simple for your whole team.',
  section: 'This part of the page shows what the product can do for your team.',
};

interface ScriptTask {
  facts: { name: string; headline: string; valueProposition: string; sections: Array<{ heading: string; sentences: string[] }> };
  scenes: Array<{ section: number | null }>;
}

/** A script request's task, or undefined for any other request (told by the user message's content). */
function readScriptTask(body: any): ScriptTask | undefined {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const user = [...messages].reverse().find((m) => m?.role === 'user');
  try {
    const task = JSON.parse(String(user?.content ?? ''));
    if (task?.task !== 'narration-script' || !Array.isArray(task.scenes) || typeof task.facts !== 'object' || task.facts === null)
      return undefined;
    return task as ScriptTask;
  } catch {
    return undefined;
  }
}

/** The first sentence of a text: up to the first sentence terminator (before a space or the end; CJK ones anywhere). */
const firstSentence = (text: string) => /^.*?(?:[.!?।؟](?=\s|$)|[。！？])/su.exec(text.trim())?.[0] ?? text.trim();

/** No writing happens: each scene gets the first sentence the page itself has for it. */
function copiedScript(task: ScriptTask): string[] {
  const { facts } = task;
  return task.scenes.map((scene) => {
    const section = scene.section === null ? undefined : facts.sections?.[scene.section];
    const source = section ? (section.sentences?.[0] ?? section.heading) : facts.valueProposition || facts.headline || facts.name;
    return firstSentence(String(source ?? ''));
  });
}

function scriptAnswer(mode: OpenAIImitationMode, task: ScriptTask): string {
  const good = copiedScript(task);
  const scenes = (list: string[]) => JSON.stringify({ scenes: list });
  switch (mode) {
    case 'fenced-array':
      return '```json\n' + JSON.stringify(good) + '\n```';
    case 'script-invented-number':
      return scenes(good.map((text, i) => (i === 0 ? `${text} ${INVENTED_NUMBER_SENTENCE}` : text)));
    case 'script-invented-name':
      return scenes(good.map((text, i) => (i === 0 ? `${text} ${INVENTED_NAME_SENTENCE}` : text)));
    case 'script-wrong-count':
    case 'wrong-count':
      return scenes(good.length > 1 ? good.slice(0, -1) : [...good, good[0] ?? 'Extra.']);
    case 'script-wrong-language':
      return scenes(
        task.scenes.map((scene) => (scene.section === null ? WRONG_LANGUAGE_SENTENCES.hero : WRONG_LANGUAGE_SENTENCES.section)),
      );
    case 'script-too-long':
      return scenes(good.map((text) => Array.from({ length: 20 }, () => text).join(' ')));
    default:
      return scenes(good);
  }
}

function completion(model: string, content: string, promptChars: number) {
  const promptTokens = Math.ceil(promptChars / 4);
  const completionTokens = Math.ceil(content.length / 4);
  return {
    id: `chatcmpl-${crypto.randomBytes(12).toString('base64url')}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    system_fingerprint: 'fp_imitation',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'x-request-id': crypto.randomUUID(),
  });
  res.end(text);
}

const openAIError = (message: string, type: string, code: string | null) => ({ error: { message, type, param: null, code } });

export async function startOpenAIImitation(): Promise<OpenAIImitation> {
  let mode: OpenAIImitationMode = 'translate';
  const requests: RecordedRequest[] = [];

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: any = raw;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        // recorded as raw text
      }
      const path = req.url ?? '/';
      requests.push({ method: req.method ?? '', path, headers: { ...req.headers }, body });

      if (req.method !== 'POST' || path.split('?')[0] !== '/v1/chat/completions') {
        sendJson(res, 404, openAIError(`Invalid URL (${req.method} ${path})`, 'invalid_request_error', null));
        return;
      }
      if (!String(req.headers.authorization ?? '').startsWith('Bearer ')) {
        sendJson(res, 401, openAIError("You didn't provide an API key.", 'invalid_request_error', null));
        return;
      }
      if (typeof body !== 'object' || body === null) {
        sendJson(res, 400, openAIError('We could not parse the JSON body of your request.', 'invalid_request_error', null));
        return;
      }

      const model = String(body.model ?? 'unknown');
      const script = readScriptTask(body);
      if (script && mode !== 'timeout' && mode !== 'error500' && mode !== 'status400' && mode !== 'malformed') {
        sendJson(res, 200, completion(model, scriptAnswer(mode, script), raw.length));
        return;
      }
      const { to, texts } = readTask(body);
      switch (mode) {
        case 'timeout':
          return; // hold the connection; close() destroys it
        case 'error500':
          sendJson(res, 500, openAIError('The server had an error while processing your request. Sorry about that!', 'server_error', null));
          return;
        case 'status400':
          sendJson(
            res,
            400,
            openAIError(`The model \`${model}\` does not support this request.`, 'invalid_request_error', 'invalid_request'),
          );
          return;
        case 'malformed':
          sendJson(res, 200, completion(model, 'Sure! Here are your translations: 1. ...', raw.length));
          return;
        case 'echo':
          sendJson(res, 200, completion(model, JSON.stringify({ translations: texts }), raw.length));
          return;
        case 'wrong-count': {
          const translated = texts.map((t) => fakeTranslation(t, to));
          const wrong = translated.length > 1 ? translated.slice(0, -1) : [...translated, fakeTranslation('extra', to)];
          sendJson(res, 200, completion(model, JSON.stringify({ translations: wrong }), raw.length));
          return;
        }
        case 'fenced-array':
          sendJson(
            res,
            200,
            completion(model, '```json\n' + JSON.stringify(texts.map((t) => fakeTranslation(t, to))) + '\n```', raw.length),
          );
          return;
        case 'translate':
        default:
          sendJson(res, 200, completion(model, JSON.stringify({ translations: texts.map((t) => fakeTranslation(t, to)) }), raw.length));
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    setMode(next) {
      mode = next;
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // includes requests held open by 'timeout'
      }),
  };
}
