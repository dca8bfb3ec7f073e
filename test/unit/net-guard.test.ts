import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AddressBlockedError,
  assertAllowedHostLiteral,
  assertPublicUrl,
  checkAddress,
  guardedLookup,
  normalizeUrlInput,
  UrlRejectedError,
  type UrlCheckOptions,
} from '../../lib/net/net-guard';

const PUBLIC_IP = '93.184.215.14';
const strict = { allowLoopback: false };
const dev = { allowLoopback: true };

/** Fake of a third-party DNS for made-up names; anything else is NXDOMAIN. */
const fakeDns: Record<string, string[]> = {
  'example.com': [PUBLIC_IP],
  'internal.example': ['10.0.0.5'],
  'split.example': [PUBLIC_IP, '192.168.0.7'],
  'v6-private.example': ['2606:2800:220:1:248:1893:25c8:1946', 'fd12::1'],
  'empty.example': [],
};
async function fakeResolve(host: string): Promise<string[]> {
  const found = fakeDns[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found;
}

function pageOpts(over: Partial<UrlCheckOptions> = {}): UrlCheckOptions {
  return { field: 'url', httpsOnly: false, allowLoopback: false, resolve: fakeResolve, ...over };
}

async function rejection(p: Promise<unknown>): Promise<UrlRejectedError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(UrlRejectedError);
    return err as UrlRejectedError;
  }
  throw new Error('expected the URL to be rejected');
}

describe('checkAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback address 127.0.0.1'],
    ['127.255.0.9', 'loopback address 127.255.0.9'],
    ['::1', 'loopback address ::1'],
    ['[::1]', 'loopback address ::1'],
    ['::ffff:127.0.0.1', 'loopback address 127.0.0.1 (from ::ffff:127.0.0.1)'],
    ['::ffff:7f00:1', 'loopback address 127.0.0.1 (from ::ffff:7f00:1)'],
    ['::7f00:1', 'loopback address 127.0.0.1 (from ::7f00:1)'],
    ['::127.0.0.1', 'loopback address 127.0.0.1 (from ::127.0.0.1)'],
    ['10.1.2.3', 'private address 10.1.2.3'],
    ['::ffff:10.1.2.3', 'private address 10.1.2.3 (from ::ffff:10.1.2.3)'],
    ['::a01:203', 'private address 10.1.2.3 (from ::a01:203)'],
    ['172.16.0.1', 'private address 172.16.0.1'],
    ['192.168.255.255', 'private address 192.168.255.255'],
    ['169.254.169.254', 'link-local address 169.254.169.254'],
    ['::ffff:169.254.169.254', 'link-local address 169.254.169.254 (from ::ffff:169.254.169.254)'],
    ['100.64.0.1', 'carrier-grade NAT address 100.64.0.1'],
    ['224.0.0.1', 'multicast address 224.0.0.1'],
    ['255.255.255.255', 'broadcast address 255.255.255.255'],
    ['0.0.0.0', 'unspecified address 0.0.0.0'],
    ['::', 'unspecified address ::'],
    ['fe80::1', 'link-local address fe80::1'],
    ['fe80::1%eth0', 'link-local address fe80::1%eth0'],
    ['fd00::1', 'unique local address fd00::1'],
    ['ff02::1', 'multicast address ff02::1'],
    ['192.0.2.1', 'reserved address 192.0.2.1'],
    ['240.0.0.1', 'reserved address 240.0.0.1'],
    ['2002:7f00:1::', '6to4 address 2002:7f00:1::'],
    ['2001:0:4136:e378::1', 'teredo address 2001:0:4136:e378::1'],
    ['64:ff9b::7f00:1', 'NAT64 address 64:ff9b::7f00:1'],
  ])('refuses %s', (ip, reason) => {
    expect(checkAddress(ip, strict)).toEqual({ allowed: false, reason });
  });

  it.each([PUBLIC_IP, '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '[2001:4860:4860::8888]'])(
    'allows public unicast %s',
    (ip) => {
      expect(checkAddress(ip, strict)).toEqual({ allowed: true });
      expect(checkAddress(ip, dev)).toEqual({ allowed: true });
    },
  );

  it('refuses strings that are not canonical IP addresses', () => {
    for (const text of ['', 'localhost', 'example.com', '127.1', '0x7f.0.0.1', '2130706433', '1.2.3.4.5', '[]', ':::1']) {
      expect(checkAddress(text, dev)).toEqual({ allowed: false, reason: `not an IP address: ${text}` });
    }
  });

  it('with allowLoopback allows loopback forms and nothing else', () => {
    for (const ip of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', '::ffff:127.0.0.1', '::ffff:7f00:1']) {
      expect(checkAddress(ip, dev)).toEqual({ allowed: true });
    }
    for (const ip of ['10.0.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::', 'fd00::1', 'fe80::1', '224.0.0.1']) {
      expect(checkAddress(ip, dev).allowed).toBe(false);
    }
  });
});

describe('normalizeUrlInput', () => {
  it.each([
    ['example.com/pricing', 'https://example.com/pricing'],
    ['example.com', 'https://example.com/'],
    ['example.com:8080', 'https://example.com:8080/'],
    ['localhost:3000/x', 'https://localhost:3000/x'],
    ['localhost:3000?q=1', 'https://localhost:3000/?q=1'],
    ['127.0.0.1:3000/x', 'https://127.0.0.1:3000/x'],
    ['HTTP://Example.COM/A', 'http://example.com/A'],
    ['https://example.com/a?b=c#d', 'https://example.com/a?b=c#d'],
    ['http://2130706433/', 'http://127.0.0.1/'],
    ['http://0x7f.1/', 'http://127.0.0.1/'],
    ['http://0177.0.0.1/', 'http://127.0.0.1/'],
    ['http://127.1/', 'http://127.0.0.1/'],
    ['http://[::ffff:127.0.0.1]/', 'http://[::ffff:7f00:1]/'],
  ])('%s -> %s', (input, expected) => {
    expect(normalizeUrlInput(input, 'url').href).toBe(expected);
  });

  it.each([
    ['javascript:alert(1)', 'url must use http or https'],
    ['JavaScript:alert(1)', 'url must use http or https'],
    ['file:///etc/passwd', 'url must use http or https'],
    ['data:text/html,x', 'url must use http or https'],
    ['ftp://example.com', 'url must use http or https'],
    ['ws://example.com', 'url must use http or https'],
    ['https://user:pw@example.com', 'url must not contain a user name or password'],
    ['https://user@example.com', 'url must not contain a user name or password'],
    ['https://example.com/a b', 'url must not contain whitespace'],
    [' https://example.com', 'url must not contain whitespace'],
    ['https://example.com/\n', 'url must not contain whitespace'],
    ['https://exa\tmple.com', 'url must not contain whitespace'],
    ['', 'url must not be empty'],
    ['https://', 'url must be a valid URL'],
    ['http://exa mple', 'url must not contain whitespace'],
    ['https://[::1', 'url must be a valid URL'],
    [`https://example.com/${'a'.repeat(2048)}`, 'url must be at most 2048 characters'],
  ])('rejects %j', (input, message) => {
    let caught: unknown;
    try {
      normalizeUrlInput(input, 'url');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(UrlRejectedError);
    expect((caught as UrlRejectedError).message).toBe(message);
    expect((caught as UrlRejectedError).field).toBe('url');
  });

  it('rejects non-string input from untyped callers', () => {
    expect(() => normalizeUrlInput(42 as unknown as string, 'webhookUrl')).toThrow('webhookUrl must be a string');
  });

  it('accepts exactly 2048 characters', () => {
    const base = 'https://example.com/';
    const url = base + 'a'.repeat(2048 - base.length);
    expect(normalizeUrlInput(url, 'url').href).toBe(url);
  });
});

describe('assertPublicUrl', () => {
  // Rows always carry both values: jest treats a missing trailing argument as a `done` callback.
  const attacks: Array<[string, Partial<UrlCheckOptions>]> = [
    ['http://127.0.0.1', {}],
    ['http://[::1]', {}],
    ['http://[::ffff:7f00:1]', {}],
    ['http://[::ffff:127.0.0.1]', {}],
    ['http://[::7f00:1]', {}],
    ['http://2130706433', {}],
    ['http://0x7f.1', {}],
    ['http://0177.0.0.1', {}],
    ['http://127.1', {}],
    ['127.0.0.1:8080/admin', {}],
    ['http://169.254.169.254/latest/meta-data', {}],
    ['http://[::ffff:169.254.169.254]/latest/meta-data', {}],
    ['http://10.0.0.1', {}],
    ['http://172.16.5.4', {}],
    ['http://172.31.255.255', {}],
    ['http://192.168.1.1', {}],
    ['http://100.64.0.1', {}],
    ['http://[fd00::1]', {}],
    ['http://[fe80::1]', {}],
    ['http://0.0.0.0', {}],
    ['http://0', {}],
    ['http://[::]', {}],
    ['http://224.0.0.1', {}],
    ['http://255.255.255.255', {}],
    ['http://localhost', { resolve: undefined }],
    ['http://localhost.', { resolve: undefined }],
    ['localhost:3000/x', { resolve: undefined }],
    ['file:///etc/passwd', {}],
    ['javascript:alert(1)', {}],
    ['data:text/html,<script>alert(1)</script>', {}],
    ['https://user:pw@example.com', {}],
    ['http://internal.example/', {}],
    ['http://split.example/', {}],
    ['https://v6-private.example/', {}],
    ['https://nxdomain.example/', {}],
    ['https://empty.example/', {}],
  ];

  it.each(attacks)('refuses %s', async (input, over) => {
    const err = await rejection(assertPublicUrl(input, pageOpts(over)));
    expect(err.field).toBe('url');
    expect(err.message.startsWith('url ')).toBe(true);
  });

  it('has an attack table of at least 20 entries', () => {
    expect(attacks.length).toBeGreaterThanOrEqual(20);
  });

  it('explains why', async () => {
    expect((await rejection(assertPublicUrl('http://169.254.169.254/latest/meta-data', pageOpts()))).message).toBe(
      'url must point to a public address (link-local address 169.254.169.254)',
    );
    expect((await rejection(assertPublicUrl('http://[::ffff:7f00:1]/', pageOpts()))).message).toBe(
      'url must point to a public address (loopback address 127.0.0.1 (from ::ffff:7f00:1))',
    );
    expect((await rejection(assertPublicUrl('http://internal.example/', pageOpts()))).message).toBe(
      'url must point to a public address (private address 10.0.0.5)',
    );
    expect((await rejection(assertPublicUrl('http://split.example/', pageOpts()))).message).toBe(
      'url must point to a public address (private address 192.168.0.7)',
    );
    expect((await rejection(assertPublicUrl('https://nxdomain.example/', pageOpts()))).message).toBe('url host could not be resolved');
    expect((await rejection(assertPublicUrl('https://empty.example/', pageOpts()))).message).toBe('url host could not be resolved');
    expect((await rejection(assertPublicUrl('ftp://example.com/', pageOpts()))).message).toBe('url must use http or https');
  });

  it('refuses localhost via the real resolver', async () => {
    const err = await rejection(assertPublicUrl('http://localhost:3000/', pageOpts({ resolve: undefined })));
    expect(err.message).toMatch(/^url must point to a public address \(loopback address /);
  });

  it('accepts a public IP literal', async () => {
    expect((await assertPublicUrl(`https://${PUBLIC_IP}/x`, pageOpts())).href).toBe(`https://${PUBLIC_IP}/x`);
  });

  it('adds https:// to scheme-less input', async () => {
    expect((await assertPublicUrl('example.com/pricing', pageOpts())).href).toBe('https://example.com/pricing');
  });

  it('allows plain http for pages', async () => {
    expect((await assertPublicUrl('http://example.com/', pageOpts())).href).toBe('http://example.com/');
  });

  it('requires https for webhooks', async () => {
    const webhook = pageOpts({ field: 'webhookUrl', httpsOnly: true });
    const err = await rejection(assertPublicUrl(`http://${PUBLIC_IP}/hook`, webhook));
    expect(err).toMatchObject({ field: 'webhookUrl', message: 'webhookUrl must use https' });
    expect((await assertPublicUrl('https://example.com/hook', webhook)).href).toBe('https://example.com/hook');
  });

  it('never resolves names for refused plain http webhooks', async () => {
    const resolve = jest.fn(fakeResolve);
    await rejection(assertPublicUrl('http://example.com/hook', pageOpts({ httpsOnly: true, resolve })));
    expect(resolve).not.toHaveBeenCalled();
  });

  it('honours maxLength', async () => {
    const err = await rejection(assertPublicUrl('https://example.com/abcdef', pageOpts({ maxLength: 20 })));
    expect(err.message).toBe('url must be at most 20 characters');
  });

  describe('with allowLoopback (local development)', () => {
    const devOpts = (over: Partial<UrlCheckOptions> = {}) => pageOpts({ allowLoopback: true, ...over });

    it('accepts plain http to loopback even for https-only webhooks', async () => {
      const webhook = devOpts({ field: 'webhookUrl', httpsOnly: true });
      expect((await assertPublicUrl('http://127.0.0.1:3000/hook', webhook)).href).toBe('http://127.0.0.1:3000/hook');
      expect((await assertPublicUrl('http://[::1]:3000/hook', webhook)).href).toBe('http://[::1]:3000/hook');
      expect((await assertPublicUrl('http://localhost:3000/hook', devOpts({ httpsOnly: true, resolve: undefined }))).href).toBe(
        'http://localhost:3000/hook',
      );
    });

    it('still refuses private and metadata addresses', async () => {
      for (const input of ['http://10.0.0.1', 'http://169.254.169.254/', 'http://[fd00::1]/', 'http://internal.example/']) {
        const err = await rejection(assertPublicUrl(input, devOpts()));
        expect(err.message).toMatch(/^url must point to a public address/);
      }
    });

    it('still requires https to public hosts for https-only webhooks', async () => {
      const err = await rejection(assertPublicUrl(`http://${PUBLIC_IP}/hook`, devOpts({ httpsOnly: true })));
      expect(err.message).toBe('url must use https');
    });
  });
});

describe('assertAllowedHostLiteral', () => {
  it('throws EADDRBLOCKED for refused literals and ignores names', () => {
    expect(() => assertAllowedHostLiteral('127.0.0.1', strict)).toThrow(AddressBlockedError);
    expect(() => assertAllowedHostLiteral('[::ffff:10.0.0.1]', strict)).toThrow(/private address 10\.0\.0\.1/);
    try {
      assertAllowedHostLiteral('169.254.169.254', dev);
    } catch (err) {
      expect(err).toMatchObject({ code: 'EADDRBLOCKED', address: '169.254.169.254' });
    }
    expect.assertions(3);
    assertAllowedHostLiteral('127.0.0.1', dev);
    assertAllowedHostLiteral(PUBLIC_IP, strict);
    assertAllowedHostLiteral('localhost', strict); // names are the lookup's job
  });
});

describe('guardedLookup at connection time', () => {
  let server: http.Server;
  let port: number;
  let requests = 0;

  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      requests += 1;
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    requests = 0;
  });

  function get(options: http.RequestOptions): Promise<string> {
    return new Promise((resolve, reject) => {
      const req = http.get({ port, agent: false, ...options }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve(body));
      });
      req.on('error', reject);
    });
  }

  it.each([true, false])('refuses localhost before connecting (autoSelectFamily %s)', async (autoSelectFamily) => {
    const err = await get({ host: 'localhost', lookup: guardedLookup(strict), autoSelectFamily } as http.RequestOptions).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'EADDRBLOCKED' });
    expect((err as Error).message).toMatch(/loopback address/);
    expect(requests).toBe(0);
  });

  it('refuses numeric host spellings that getaddrinfo turns into loopback', async () => {
    for (const host of ['2130706433', '0x7f.1']) {
      await expect(get({ host, lookup: guardedLookup(strict) })).rejects.toMatchObject({ code: 'EADDRBLOCKED' });
    }
    expect(requests).toBe(0);
  });

  it.each([true, false])('connects to localhost with allowLoopback (autoSelectFamily %s)', async (autoSelectFamily) => {
    const body = await get({ host: 'localhost', family: 4, lookup: guardedLookup(dev), autoSelectFamily } as http.RequestOptions);
    expect(body).toBe('ok');
    expect(requests).toBe(1);
  });

  it('passes resolver errors through', async () => {
    await expect(get({ host: 'does-not-exist.invalid', lookup: guardedLookup(dev) })).rejects.toMatchObject({
      code: expect.stringMatching(/^(ENOTFOUND|EAI_AGAIN)$/),
    });
  });

  it('answers in the single-address form when all is not requested', (done) => {
    guardedLookup(dev)('localhost', { family: 4 }, (err, address, family) => {
      expect(err).toBeNull();
      expect(address).toBe('127.0.0.1');
      expect(family).toBe(4);
      done();
    });
  });

  it('answers with every address when all is requested', (done) => {
    guardedLookup(dev)('localhost', { all: true, family: 4 }, (err, addresses) => {
      expect(err).toBeNull();
      expect(addresses).toEqual([{ address: '127.0.0.1', family: 4 }]);
      done();
    });
  });
});
