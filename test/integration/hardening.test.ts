/**
 * What a black-box fuzz and fault campaign found, held at the gateway with real PostgreSQL,
 * SQLite, Redis and Chromium: each test here failed on the code before its fix.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import { startHarness, type Harness } from '../support/harness';
import { startDnsServer, type TestDnsServer } from '../support/dns-server';

let h: Harness;
let dnsServer: TestDnsServer;
let customer: { orgId: string; key: string; keyId: string };
/** Each test speaks from a client address of its own (the gateway trusts X-Forwarded-For from loopback here). */
let clientCounter = 0;
const newClientIp = () => `198.51.100.${(clientCounter += 1)}`;

const UNAUTHENTICATED_PER_MINUTE = 5;
const DNS_DEADLINE_MS = 6000;

beforeAll(async () => {
  dnsServer = await startDnsServer();
  h = await startHarness({
    config: {
      pipelinePaused: true,
      trustedProxies: ['127.0.0.1'],
      rateLimits: { ipUnauthenticated: UNAUTHENTICATED_PER_MINUTE, ipAuthenticated: 1000, windowMs: 60_000 },
      // Customers' names are asked of the test's own DNS server; a lookup may take 6 s at most.
      dns: { servers: [dnsServer.address], queryTimeoutMs: 3000, tries: 2, lookupDeadlineMs: DNS_DEADLINE_MS },
    },
  });
  customer = await h.newCustomer('business');
});
afterAll(async () => {
  await h?.stop();
  await dnsServer?.close();
});

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** A request with the path sent byte for byte as given (fetch would normalize it). */
function raw(method: string, path: string, init: { headers?: Record<string, string>; body?: Buffer | string } = {}): Promise<RawResponse> {
  const { port, hostname } = new URL(h.baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: hostname, port, method, path, headers: { 'X-Forwarded-For': newClientIp(), ...init.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

const auth = () => ({ Authorization: `Bearer ${customer.key}` });
const expectErrorBody = (res: { body: any }, code: string, message?: RegExp) => {
  expect(res.body).toEqual({ success: false, error: { code, message: expect.any(String) } });
  if (message) expect(res.body.error.message).toMatch(message);
};

const MALFORMED = ['%E0%A4%A', '%', '%ZZ', '%C0%AF', '%ED%A0%80', '%FF', '%u0041', '00000000-0000-4000-8000-000000000000%'];

describe('1. malformed percent-encoding in a path', () => {
  test.each(MALFORMED)('%s as a campaign id: 404 not_found on GET and on publish', async (id) => {
    const read = await raw('GET', `/api/v1/campaigns/${id}`, { headers: auth() });
    const publish = await raw('POST', `/api/v1/campaigns/${id}/publish`, { headers: auth() });
    for (const res of [read, publish]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, error: { code: 'not_found', message: 'Campaign not found.' } });
    }
  });

  test('without a key: 401 like any request, and counted by the per-IP limiter until 429', async () => {
    const ip = newClientIp();
    const statuses: number[] = [];
    let last: RawResponse | undefined;
    for (let i = 0; i < UNAUTHENTICATED_PER_MINUTE + 2; i += 1) {
      last = await raw('GET', '/api/v1/campaigns/%E0%A4%A', { headers: { 'X-Forwarded-For': ip } });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([...Array(UNAUTHENTICATED_PER_MINUTE).fill(401), 429, 429]);
    expect(last!.body).toEqual({ error: 'Too many requests' });
    expect(Number(last!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  test('a download path that does not decode: 400 invalid_input on GET and HEAD, and no log line holds the signature', async () => {
    const api = h.api.getLocalService('api') as unknown as {
      logger: Record<string, (...args: unknown[]) => void>;
      settings: Record<string, unknown>;
    };
    const lines: string[] = [];
    const saved = { ...api.logger };
    for (const level of ['trace', 'debug', 'info', 'warn', 'error', 'fatal'])
      api.logger[level] = (...args: unknown[]) => lines.push(args.map(String).join(' '));
    const query = '?expires=9999999999&signature=feedfacecafe0123456789';
    let answers: RawResponse[];
    try {
      answers = [
        await raw('GET', `/files/videos/%E0%A4%A.mp4${query}`),
        await raw('HEAD', `/files/videos/%E0%A4%A.mp4${query}`),
        await raw('GET', `/files/videos/00000000-0000-4000-8000-000000000000.mp4${query}`),
      ];
    } finally {
      Object.assign(api.logger, saved);
    }
    // moleculer-web logs every request and response at info: the paths are there, the credential is not.
    expect(lines.some((line) => line.includes('/files/videos/'))).toBe(true);
    expect(lines.filter((line) => /feedfacecafe|signature=/.test(line))).toEqual([]);
    const [get, head, tampered] = answers;
    expect(get.status).toBe(400);
    expectErrorBody(get, 'invalid_input', /percent-encoding/);
    expect(head.status).toBe(400);
    expect(tampered.status).toBe(403);
  });
});

describe('2. compressed request bodies', () => {
  const body = () => JSON.stringify({ url: h.pageUrl, title: 'Compressed' });
  const post = (encoding: string, payload: Buffer) =>
    raw('POST', '/api/v1/campaigns', {
      headers: { ...auth(), 'Content-Type': 'application/json', 'Content-Encoding': encoding },
      body: payload,
    });

  test('gzip, deflate, br and zstd bodies are accepted', async () => {
    const results = await Promise.all([
      post('gzip', zlib.gzipSync(body())),
      post('deflate', zlib.deflateSync(body())),
      post('br', zlib.brotliCompressSync(body())),
      post('zstd', zlib.zstdCompressSync(body())),
    ]);
    expect(results.map((res) => res.status)).toEqual([201, 201, 201, 201]);
  });

  test.each([
    ['gzip', 'not gzip at all', () => Buffer.from(body())],
    ['gzip', 'truncated gzip', () => zlib.gzipSync(body()).subarray(0, 20)],
    ['deflate', 'bad deflate', () => Buffer.from('x\x9c garbage that is not deflate', 'latin1')],
    ['deflate', 'raw deflate without its zlib header', () => zlib.deflateRawSync(body())],
    ['br', 'bad brotli', () => Buffer.from('\xff\xff\xff\xff not brotli', 'latin1')],
    ['zstd', 'garbage zstd', () => Buffer.from('\x28\xb5\x2f\xfd garbage', 'latin1')],
  ])('%s: %s → 400 invalid_input', async (encoding, _name, payload) => {
    const res = await post(encoding, payload());
    expect(res.status).toBe(400);
    expectErrorBody(res, 'invalid_input', new RegExp(`could not be decompressed as Content-Encoding: ${encoding}`));
  });

  test('an encoding we do not accept → 415 invalid_input naming what is accepted', async () => {
    const res = await post('compress', Buffer.from(body()));
    expect(res.status).toBe(415);
    expectErrorBody(res, 'invalid_input', /Content-Encoding "compress" is not supported.*gzip, deflate, br, zstd/);
  });

  test('a body that inflates past 64 KiB → 413, however small it was on the wire', async () => {
    const bomb = zlib.gzipSync(Buffer.concat([Buffer.from('{"url":"x","title":"'), Buffer.alloc(8 * 1024 * 1024, 'a'), Buffer.from('"}')]));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const res = await post('gzip', bomb);
    expect(res.status).toBe(413);
    expectErrorBody(res, 'invalid_input');
  });
});

describe("3. one tenant's hanging DNS", () => {
  test("40 creates naming hosts whose lookups hang answer 422 at the deadline; another organization's create is not held up", async () => {
    const other = await h.newCustomer('business');
    const order: string[] = [];
    const started = Date.now();
    const hanging = Array.from({ length: 40 }, (_, i) =>
      raw('POST', '/api/v1/campaigns', {
        headers: { ...auth(), 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: `https://site${i}.hang.test/` }),
      }).then((res) => {
        order.push('hanging answered');
        return { res, ms: Date.now() - started };
      }),
    );
    // Give the 40 a head start: their lookups are under way before the other organization asks.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const localhostPage = h.pageUrl.replace('127.0.0.1', 'localhost'); // a name, resolved through the hosts file
    const own = await raw('POST', '/api/v1/campaigns', {
      headers: { Authorization: `Bearer ${other.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: localhostPage }),
    });
    order.push('other answered');
    expect(own.status).toBe(201);
    const results = await Promise.all(hanging);
    expect(order[0]).toBe('other answered');
    for (const { res, ms } of results) {
      expect(res.status).toBe(422);
      expectErrorBody(
        res,
        'invalid_input',
        /^url host name site\d+\.hang\.test did not resolve within 6 s; check the name, or retry later$/,
      );
      expect(ms).toBeGreaterThanOrEqual(DNS_DEADLINE_MS - 100);
    }
    // One query per name (A and AAAA), never one per waiting request.
    expect(dnsServer.queries.get('site0.hang.test')).toBeGreaterThan(0);
  });
});

describe('4. an over-long id', () => {
  test('201 × "a" is a malformed id: 404 on GET and publish', async () => {
    const id = 'a'.repeat(201);
    const read = await raw('GET', `/api/v1/campaigns/${id}`, { headers: auth() });
    const publish = await raw('POST', `/api/v1/campaigns/${id}/publish`, { headers: auth() });
    for (const res of [read, publish]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, error: { code: 'not_found', message: 'Campaign not found.' } });
    }
  });
});

describe('5. query parameters on POST', () => {
  test('never override the body: 400 naming them, and nothing is created', async () => {
    const res = await raw('POST', '/api/v1/campaigns?title=FromQuery&languages[]=ko', {
      headers: { ...auth(), 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: h.pageUrl, title: 'FromBody', languages: ['en'] }),
    });
    expect(res.status).toBe(400);
    expectErrorBody(res, 'invalid_input', /Query parameters are not accepted on POST.*\(got: title, languages\[\]\)/);
    const rows = await h.sql("SELECT count(*)::int AS n FROM campaigns WHERE title IN ('FromQuery', 'FromBody')");
    expect(rows[0].n).toBe(0);
  });

  test('on publish too', async () => {
    const res = await raw('POST', '/api/v1/campaigns/00000000-0000-4000-8000-000000000000/publish?id=other', { headers: auth() });
    expect(res.status).toBe(400);
    expectErrorBody(res, 'invalid_input', /\(got: id\)/);
  });
});

describe.each(['postgres', 'sqlite'] as const)('6 and 7. titles on %s', (dialect) => {
  let db: Harness;
  let owner: { key: string };
  beforeAll(async () => {
    db =
      dialect === 'postgres' ? h : await startHarness({ dialect, config: { pipelinePaused: true, rateLimits: { ipAuthenticated: 1000 } } });
    owner = await db.newCustomer('business');
  });
  afterAll(async () => {
    if (db !== h) await db?.stop();
  });

  const create = (title: unknown) => db.request('POST', '/api/v1/campaigns', { key: owner.key, body: { url: db.pageUrl, title } });
  const readTitle = async (id: string) => (await db.request('GET', `/api/v1/campaigns/${id}`, { key: owner.key })).body.title;

  test.each([
    ['NUL', 'before\u0000after'],
    ['line feed', 'one\ntwo'],
    ['carriage return', 'one\rtwo'],
    ['tab', 'tab\there'],
    ['escape', 'esc\u001b[31m'],
    ['DEL', 'del\u007f'],
  ])('a %s in the title → 400', async (_name, title) => {
    const res = await create(title);
    expect(res.status).toBe(400);
    expectErrorBody(res, 'invalid_input', /^title must be one line, without control characters/);
  });

  test('length counts characters (code points), after trimming, and the title reads back as sent', async () => {
    const poo150 = '💩'.repeat(150);
    const poo200 = '💩'.repeat(200);
    const a = await create(poo150);
    const b = await create(`  ${poo200}  `);
    const c = await create('💩'.repeat(201));
    expect([a.status, b.status, c.status]).toEqual([201, 201, 400]);
    expect(c.body.error.message).toBe('title must be at most 200 characters');
    expect(await readTitle(a.body.campaign_id)).toBe(poo150);
    expect(await readTitle(b.body.campaign_id)).toBe(poo200);
  });
});

test('the served OpenAPI document states the limits the validator applies', async () => {
  const doc = await h.request('GET', '/api/v1/openapi.json', { key: customer.key });
  const create = doc.body.paths['/api/v1/campaigns'].post;
  const title = create.requestBody.content['application/json'].schema.properties.title;
  expect(title).toMatchObject({ type: 'string', minLength: 1, maxLength: 200, transform: ['trim'] });
  expect(new RegExp(title.pattern, 'u').test('a\u0000b')).toBe(false);
  expect(create.responses['415']).toBeDefined();
  const id = doc.body.paths['/api/v1/campaigns/{id}'].get.parameters.find((p: { name: string }) => p.name === 'id');
  expect(id.schema.maxLength).toBeUndefined();
});
