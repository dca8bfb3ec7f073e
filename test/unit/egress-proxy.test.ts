/**
 * EgressProxy with real sockets: plain Node clients speak CONNECT / absolute-form HTTP / upgrades
 * to it, and a real headless Chromium is pointed at it with chromiumProxyArgs. Loopback "sinks"
 * count every TCP connection they receive: with allowLoopback false they must see none.
 */
import http from 'node:http';
import dgram from 'node:dgram';
import net from 'node:net';
import os from 'node:os';
import type { Browser } from 'puppeteer-core';
import { chromiumProxyArgs, EgressProxy, type EgressDecision, type EgressProxyOptions } from '../../lib/net/egress-proxy';

const PUBLIC_IP = '93.184.215.14';
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

interface Sink {
  port: number;
  /** TCP connections accepted, on 127.0.0.1 and ::1 together. */
  connections: number;
  requests: http.IncomingMessage[];
  close(): Promise<void>;
}

function listen(server: net.Server, host: string, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as net.AddressInfo).port));
  });
}

const closeServer = (server: net.Server) => new Promise<void>((resolve) => server.close(() => resolve()));

/** An HTTP server on 127.0.0.1 and ::1 (same port) that records everything; ws upgrades echo. */
async function startHttpSink(): Promise<Sink> {
  const servers: http.Server[] = [];
  const sink: Sink = { port: 0, connections: 0, requests: [], close: async () => {} };
  const make = () => {
    const server = http.createServer((req, res) => {
      sink.requests.push(req);
      if (req.url === '/redirect') return res.writeHead(302, { location: '/final', 'x-sink': 'yes' }).end('moved');
      res.writeHead(200, { 'content-type': 'text/plain', 'x-sink': 'yes' }).end('sink body');
    });
    server.on('connection', () => sink.connections++);
    server.on('upgrade', (req: http.IncomingMessage, socket: net.Socket) => {
      sink.requests.push(req);
      socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
      socket.pipe(socket);
    });
    servers.push(server);
    return server;
  };
  sink.port = await listen(make(), '127.0.0.1');
  try {
    await listen(make(), '::1', sink.port);
  } catch (err) {
    // A machine (or container) without IPv6 loopback: nothing can reach [::1], so there is no v6 leak to watch for.
    if ((err as NodeJS.ErrnoException).code !== 'EADDRNOTAVAIL') throw err;
    servers.pop();
  }
  sink.close = async () => {
    for (const s of servers) s.closeAllConnections();
    await Promise.all(servers.map(closeServer));
  };
  return sink;
}

async function startEchoSink(): Promise<{ port: number; connections: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    echo.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.pipe(socket);
  });
  const echo = {
    port: await listen(server, '127.0.0.1'),
    connections: 0,
    close: () => {
      for (const s of sockets) s.destroy();
      return closeServer(server);
    },
  };
  return echo;
}

const proxies: EgressProxy[] = [];
async function startProxy(opts: Partial<EgressProxyOptions> & { allowLoopback: boolean }) {
  const decisions: EgressDecision[] = [];
  const proxy = new EgressProxy({ ...opts, onDecision: (d) => decisions.push(d) });
  await proxy.start();
  proxies.push(proxy);
  return { proxy, decisions };
}

/** Sends CONNECT on a raw socket; resolves with the status and the socket (tunnel if 200). */
function connectVia(proxy: EgressProxy, authority: string): Promise<{ status: number; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(proxy.port, '127.0.0.1');
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end === -1) return;
      socket.off('data', onData);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(buffered.toString('latin1'))?.[1]);
      resolve({ status, socket });
    };
    socket.on('data', onData).on('error', reject);
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
  });
}

function echoThrough(socket: net.Socket, text: string): Promise<string> {
  return new Promise((resolve) => {
    socket.once('data', (chunk) => resolve(chunk.toString()));
    socket.write(text);
  });
}

interface ProxiedResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** An absolute-form request to the proxy, as a browser configured with an HTTP proxy sends it. */
function getVia(proxy: EgressProxy, url: string, headers: http.OutgoingHttpHeaders = {}): Promise<ProxiedResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port: proxy.port,
      path: url,
      headers: { host: new URL(url).host, ...headers },
      agent: false,
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject).end();
  });
}

let sink: Sink;
let echo: Awaited<ReturnType<typeof startEchoSink>>;
/** Counts UDP datagrams (WebRTC STUN) on 127.0.0.1. */
const udp = { socket: dgram.createSocket('udp4'), port: 0, packets: 0 };

beforeAll(async () => {
  sink = await startHttpSink();
  echo = await startEchoSink();
  udp.socket.on('message', () => udp.packets++);
  await new Promise<void>((resolve) => udp.socket.bind(0, '127.0.0.1', resolve));
  udp.port = udp.socket.address().port;
});

beforeEach(() => {
  sink.connections = 0;
  sink.requests = [];
  echo.connections = 0;
  udp.packets = 0;
});

afterEach(async () => {
  jest.restoreAllMocks();
  await Promise.all(proxies.splice(0).map((p) => p.stop()));
});

afterAll(async () => {
  await sink?.close();
  await echo?.close();
  await new Promise<void>((resolve) => udp.socket.close(() => resolve()));
});

describe('CONNECT tunnels', () => {
  test('refuses a loopback target with 403 and never connects to it', async () => {
    const { proxy, decisions } = await startProxy({ allowLoopback: false });
    const { status, socket } = await connectVia(proxy, `127.0.0.1:${echo.port}`);
    socket.destroy();
    expect(status).toBe(403);
    expect(echo.connections).toBe(0);
    expect(decisions).toEqual([
      expect.objectContaining({
        host: '127.0.0.1',
        port: echo.port,
        address: '127.0.0.1',
        allowed: false,
        reason: expect.stringContaining('loopback'),
      }),
    ]);
  });

  test('refuses the bracketed IPv6 loopback literal and IPv4-mapped forms', async () => {
    const { proxy, decisions } = await startProxy({ allowLoopback: false });
    for (const authority of [`[::1]:${echo.port}`, `[::ffff:127.0.0.1]:${echo.port}`]) {
      const { status, socket } = await connectVia(proxy, authority);
      socket.destroy();
      expect(status).toBe(403);
    }
    expect(decisions.map((d) => d.allowed)).toEqual([false, false]);
    expect(echo.connections).toBe(0);
  });

  test('with allowLoopback, tunnels bytes both ways', async () => {
    const { proxy, decisions } = await startProxy({ allowLoopback: true });
    const { status, socket } = await connectVia(proxy, `127.0.0.1:${echo.port}`);
    expect(status).toBe(200);
    expect(await echoThrough(socket, 'ping through the tunnel')).toBe('ping through the tunnel');
    socket.destroy();
    expect(echo.connections).toBe(1);
    expect(decisions).toEqual([expect.objectContaining({ allowed: true, address: '127.0.0.1' })]);
  });

  test('answers 400 to a CONNECT without a port and 502 when the target refuses', async () => {
    const { proxy } = await startProxy({ allowLoopback: true });
    const noPort = await connectVia(proxy, '127.0.0.1');
    noPort.socket.destroy();
    expect(noPort.status).toBe(400);
    const closed = net.createServer();
    const closedPort = await listen(closed, '127.0.0.1');
    await closeServer(closed);
    const refused = await connectVia(proxy, `127.0.0.1:${closedPort}`);
    refused.socket.destroy();
    expect(refused.status).toBe(502);
  });

  test('answers 502 when connecting takes longer than connectTimeoutMs', async () => {
    const realConnect = net.connect;
    jest
      .spyOn(net, 'connect')
      .mockImplementation((...args: unknown[]) =>
        typeof args[0] === 'object' ? new net.Socket() : (realConnect as (...a: unknown[]) => net.Socket)(...args),
      );
    const { proxy } = await startProxy({ allowLoopback: true, connectTimeoutMs: 200 });
    const started = Date.now();
    const { status, socket } = await connectVia(proxy, `127.0.0.1:${echo.port}`);
    socket.destroy();
    expect(status).toBe(502);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  test('listens on 127.0.0.1 only, and stop() closes open tunnels', async () => {
    const tcpConnect = (host: string, port: number) =>
      new Promise<void>((resolve, reject) => {
        const socket = net.connect(port, host, () => resolve(void socket.destroy())).on('error', reject);
      });
    const { proxy } = await startProxy({ allowLoopback: true });
    const port = proxy.port;
    expect(proxy.url).toBe(`http://127.0.0.1:${port}`);
    const otherAddresses = Object.values(os.networkInterfaces())
      .flat()
      .filter((i) => i && !i.internal && i.family === 'IPv4');
    for (const other of ['::1', ...otherAddresses.map((i) => i!.address)]) {
      await expect(tcpConnect(other, port)).rejects.toThrow(/ECONNREFUSED/);
    }

    const { status, socket } = await connectVia(proxy, `127.0.0.1:${echo.port}`);
    expect(status).toBe(200);
    const closed = new Promise((resolve) => socket.on('close', resolve));
    await proxy.stop();
    await closed;
    await expect(tcpConnect('127.0.0.1', port)).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('names and DNS rebinding', () => {
  test('checks every address a name resolves to and refuses the name as a whole', async () => {
    const fakeDns: Record<string, string[]> = {
      'loopback.test': ['127.0.0.1'],
      'split.test': [PUBLIC_IP, '127.0.0.1'],
      'metadata.test': ['169.254.169.254'],
    };
    const { proxy, decisions } = await startProxy({ allowLoopback: false, resolve: async (host) => fakeDns[host] });
    for (const host of Object.keys(fakeDns)) {
      const { status, socket } = await connectVia(proxy, `${host}:${echo.port}`);
      socket.destroy();
      expect(status).toBe(403);
    }
    expect(echo.connections).toBe(0);
    expect(decisions.map((d) => [d.host, d.address, d.allowed])).toEqual([
      ['loopback.test', '127.0.0.1', false],
      ['split.test', '127.0.0.1', false],
      ['metadata.test', '169.254.169.254', false],
    ]);
    expect(decisions[2].reason).toContain('link-local');
  });

  test('connects to the exact address it checked, never re-resolving the name', async () => {
    // The fake DNS rebinds: public the first time, loopback after that.
    let lookups = 0;
    const resolve = jest.fn(async (_host: string): Promise<string[]> => (lookups++ === 0 ? [PUBLIC_IP] : ['127.0.0.1']));
    // Stand-in for the public server: connections to PUBLIC_IP land on the echo sink.
    const realConnect = net.connect;
    const connectedTo: string[] = [];
    jest.spyOn(net, 'connect').mockImplementation((...args: unknown[]) => {
      if (typeof args[0] !== 'object') return (realConnect as (...a: unknown[]) => net.Socket)(...args); // the test's own client
      const { host, port } = args[0] as net.TcpNetConnectOpts;
      connectedTo.push(String(host));
      return realConnect({ host: host === PUBLIC_IP ? '127.0.0.1' : host, port });
    });
    const { proxy, decisions } = await startProxy({ allowLoopback: false, resolve });

    const first = await connectVia(proxy, `rebind.test:${echo.port}`);
    expect(first.status).toBe(200);
    expect(await echoThrough(first.socket, 'hello')).toBe('hello');
    first.socket.destroy();
    expect(connectedTo).toEqual([PUBLIC_IP]);
    expect(resolve).toHaveBeenCalledTimes(1);

    const second = await connectVia(proxy, `rebind.test:${echo.port}`);
    second.socket.destroy();
    expect(second.status).toBe(403);
    expect(connectedTo).toEqual([PUBLIC_IP]);
    expect(decisions.map((d) => [d.address, d.allowed])).toEqual([
      [PUBLIC_IP, true],
      ['127.0.0.1', false],
    ]);
  });

  test('a name that does not resolve is a 502 and is reported', async () => {
    const resolve = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.test'), { code: 'ENOTFOUND' });
    };
    const { proxy, decisions } = await startProxy({ allowLoopback: false, resolve });
    const res = await getVia(proxy, 'http://nowhere.test/');
    expect(res.status).toBe(502);
    expect(decisions).toEqual([expect.objectContaining({ host: 'nowhere.test', allowed: false, reason: 'DNS lookup failed (ENOTFOUND)' })]);
  });
});

describe('plain HTTP proxy requests', () => {
  test('refuses a loopback target with 403 and a short body, without contacting it', async () => {
    const { proxy, decisions } = await startProxy({ allowLoopback: false });
    for (const host of ['127.0.0.1', '[::1]']) {
      const res = await getVia(proxy, `http://${host}:${sink.port}/`);
      expect(res.status).toBe(403);
      expect(res.body).toMatch(/^refused: loopback address/);
    }
    expect(sink.connections).toBe(0);
    expect(decisions.map((d) => [d.address, d.allowed])).toEqual([
      ['127.0.0.1', false],
      ['::1', false],
    ]);
  });

  test('with allowLoopback, forwards the request and streams the response back', async () => {
    const { proxy } = await startProxy({ allowLoopback: true });
    const res = await getVia(proxy, `http://127.0.0.1:${sink.port}/page?q=1`, {
      'proxy-connection': 'keep-alive',
      'proxy-authorization': 'Basic c2VjcmV0',
      'x-custom': 'kept',
    });
    expect(res).toMatchObject({ status: 200, body: 'sink body', headers: { 'x-sink': 'yes' } });
    expect(sink.requests).toHaveLength(1);
    const received = sink.requests[0];
    expect(received.url).toBe('/page?q=1');
    expect(received.headers.host).toBe(`127.0.0.1:${sink.port}`);
    expect(received.headers['x-custom']).toBe('kept');
    expect(received.headers['proxy-connection']).toBeUndefined();
    expect(received.headers['proxy-authorization']).toBeUndefined();
  });

  test('passes a redirect back unchanged instead of following it', async () => {
    const { proxy } = await startProxy({ allowLoopback: true });
    const res = await getVia(proxy, `http://127.0.0.1:${sink.port}/redirect`);
    expect(res).toMatchObject({ status: 302, body: 'moved', headers: { location: '/final', 'x-sink': 'yes' } });
    expect(sink.requests.map((r) => r.url)).toEqual(['/redirect']);
  });

  test('answers 400 to origin-form and non-http URLs', async () => {
    const { proxy, decisions } = await startProxy({ allowLoopback: true });
    for (const path of ['/just-a-path', `ftp://127.0.0.1:${sink.port}/`]) {
      const res = await new Promise<number>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port: proxy.port, path, agent: false }, (r) => resolve(r.resume().statusCode ?? 0))
          .on('error', reject);
      });
      expect(res).toBe(400);
    }
    expect(decisions).toEqual([]);
    expect(sink.connections).toBe(0);
  });

  test('websocket upgrades are checked too, then piped', async () => {
    const upgradeVia = (proxy: EgressProxy) =>
      new Promise<{ status: number; socket?: net.Socket }>((resolve, reject) => {
        const req = http.request({
          host: '127.0.0.1',
          port: proxy.port,
          path: `http://127.0.0.1:${sink.port}/ws`,
          headers: { host: `127.0.0.1:${sink.port}`, connection: 'Upgrade', upgrade: 'websocket' },
          agent: false,
        });
        req.on('upgrade', (res, socket) => resolve({ status: res.statusCode ?? 0, socket }));
        req.on('response', (res) => resolve({ status: res.resume().statusCode ?? 0 }));
        req.on('error', reject).end();
      });

    const strict = await startProxy({ allowLoopback: false });
    expect((await upgradeVia(strict.proxy)).status).toBe(403);
    expect(sink.connections).toBe(0);

    const dev = await startProxy({ allowLoopback: true });
    const { status, socket } = await upgradeVia(dev.proxy);
    expect(status).toBe(101);
    expect(await echoThrough(socket!, 'frame')).toBe('frame');
    socket!.destroy();
    expect(sink.requests.map((r) => [r.url, r.headers.upgrade])).toEqual([['/ws', 'websocket']]);
  });
});

describe('chromiumProxyArgs', () => {
  test('routes everything through the proxy, loopback included', () => {
    expect(chromiumProxyArgs('http://127.0.0.1:41234')).toEqual(
      expect.arrayContaining([
        '--proxy-server=http://127.0.0.1:41234',
        '--proxy-bypass-list=<-loopback>',
        '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
        '--webrtc-ip-handling-policy=disable_non_proxied_udp',
        '--disable-quic',
        '--no-pings',
        '--dns-prefetch-disable',
        '--disable-background-networking',
      ]),
    );
  });
});

describe('real Chromium through the proxy', () => {
  let browser: Browser | undefined;

  afterEach(async () => {
    await browser?.close();
    browser = undefined;
  });

  async function launch(proxy: EgressProxy): Promise<Browser> {
    const puppeteer = (await import('puppeteer-core')).default;
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [...CHROMIUM_ARGS, ...chromiumProxyArgs(proxy.url)],
    });
    return browser;
  }

  /** Every way a page can reach the network, all aimed at the loopback sink. */
  const leakyPage = (port: number) => `<!doctype html><html><head>
    <link rel="prefetch" href="http://127.0.0.1:${port}/prefetch">
    <link rel="stylesheet" href="http://127.0.0.1:${port}/style.css">
  </head><body>
    <img src="http://127.0.0.1:${port}/a.png">
    <img src="https://127.0.0.1:${port}/tls.png">
    <img src="http://169.254.169.254/latest/meta-data/">
    <iframe src="http://localhost:${port}/"></iframe>
    <script>
      const sink = (path, host = '127.0.0.1') => 'http://' + host + ':${port}' + path;
      fetch(sink('/x', '[::1]')).catch(() => {});
      try { new WebSocket('ws://127.0.0.1:${port}/ws'); } catch {}
      try { new Worker(sink('/w.js')); } catch {}
      const worker = "fetch('" + sink('/from-worker') + "').catch(() => {})";
      new Worker(URL.createObjectURL(new Blob([worker], { type: 'text/javascript' })));
      navigator.sendBeacon(sink('/beacon'), 'data');
      try { new EventSource(sink('/events')); } catch {}
      const xhr = new XMLHttpRequest(); xhr.open('GET', sink('/xhr')); xhr.send();
      const pc = new RTCPeerConnection({ iceServers: [
        { urls: 'stun:127.0.0.1:' + ${udp.port} },
        { urls: 'turn:127.0.0.1:${port}?transport=tcp', username: 'u', credential: 'p' },
      ] });
      pc.createDataChannel('x');
      pc.createOffer().then((o) => pc.setLocalDescription(o));
    </script>
  </body></html>`;

  async function loadLeakyPage(allowLoopback: boolean) {
    const { proxy, decisions } = await startProxy({ allowLoopback });
    const page = await (await launch(proxy)).newPage();
    await page.setContent(leakyPage(sink.port), { waitUntil: 'domcontentloaded' });
    await new Promise((r) => setTimeout(r, 1500));
    return decisions;
  }

  test('with allowLoopback false, nothing on the page reaches loopback or link-local', async () => {
    const decisions = await loadLeakyPage(false);
    expect(sink.connections).toBe(0);
    expect(udp.packets).toBe(0); // WebRTC STUN would go straight out over UDP without the policy flag
    const refused = decisions.filter((d) => !d.allowed);
    expect(refused.length).toBeGreaterThanOrEqual(3);
    const refusedHosts = new Set(refused.map((d) => d.host));
    for (const host of ['127.0.0.1', 'localhost', '::1', '169.254.169.254']) expect(refusedHosts).toContain(host);
  });

  test('with allowLoopback true, the same page does reach the sink (the test above can see a leak)', async () => {
    const decisions = await loadLeakyPage(true);
    expect(sink.connections).toBeGreaterThan(0);
    // Each vector on the page did make its request (so the zero above covers all of them).
    const paths = sink.requests.map((r) => (r.headers.upgrade ? `upgrade ${r.url}` : r.url));
    for (const path of ['/a.png', '/', '/x', '/xhr', '/beacon', '/events', '/from-worker', '/style.css', '/prefetch', 'upgrade /ws']) {
      expect(paths).toContain(path);
    }
    expect(decisions.some((d) => d.allowed)).toBe(true);
    // Link-local stays refused even in development.
    expect(decisions).toContainEqual(expect.objectContaining({ host: '169.254.169.254', allowed: false }));
  });

  test('navigation to loopback fails and never reaches it', async () => {
    const { proxy } = await startProxy({ allowLoopback: false });
    const page = await (await launch(proxy)).newPage();
    await expect(page.goto(`https://127.0.0.1:${sink.port}/`)).rejects.toThrow(/ERR_TUNNEL_CONNECTION_FAILED/);
    // For plain http the browser just shows the proxy's answer.
    const res = await page.goto(`http://127.0.0.1:${sink.port}/`);
    expect(res?.status()).toBe(403);
    expect(await res!.text()).toMatch(/^refused: loopback address/);
    expect(sink.connections).toBe(0);
  });
});
