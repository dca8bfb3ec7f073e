/**
 * The MCP server (decisions §16) driven by the SDK's own client over both transports against the real product:
 * Streamable HTTP at the gateway's /mcp with an API key, and stdio (`npm run -s mcp`, API_KEY and API_URL) talking
 * to the product's HTTP API. An agent's work: create a campaign (draft, one language and platform, the fixture site),
 * follow it to review, read a video's document, edit it, see the new revision ready, publish; a batch made, read and
 * canceled over stdio. The API's rules, not a copy of them: a key without campaigns:create gets `forbidden`, a Growth
 * key's 11th create in a minute `rate_limited`, /mcp without a key 401, and /mcp is under the per-address cap.
 */
import net from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CreateCampaignBody } from '../../lib/http/api-schemas';
import { CHECK_NOT_THE_SUBJECT, startHarness, type Harness } from '../support/harness';
import { waitFor } from '../support/wait';

const ROOT = path.resolve(__dirname, '../..');
const TOOLS = [
  'create_campaign',
  'get_campaign',
  'list_campaigns',
  'cancel_campaign',
  'publish_campaign',
  'get_video_document',
  'edit_video',
  'create_batch',
  'get_batch',
];

async function httpClient(h: Harness, key: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${h.baseUrl}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}`, ...headers } },
  });
  await client.connect(transport);
  return client;
}

async function stdioClient(h: Harness, key: string): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: 'npm',
    args: ['run', '-s', 'mcp'],
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', API_KEY: key, API_URL: h.baseUrl },
    stderr: 'inherit',
  });
  await client.connect(transport);
  return client;
}

/** A tool's answer: its structured content (the API's body), its one-line text, the JSON text after it, and isError. */
async function use(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const [text, json] = result.content.map((part) => (part.type === 'text' ? part.text : ''));
  expect(text).not.toContain('\n');
  return { isError: result.isError === true, body: result.structuredContent as any, text, json: JSON.parse(json) };
}

describe('an agent over both transports, through the real pipeline', () => {
  let h: Harness;
  let key: string;
  let http: Client;
  let stdio: Client;
  const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };

  beforeAll(async () => {
    h = await startHarness({
      render: 'worker',
      config: { ...CHECK_NOT_THE_SUBJECT, rateLimits: limits, videoTargetSeconds: 20, captureMaxShots: 4 },
    });
    ({ key } = await h.newCustomer('business'));
    [http, stdio] = await Promise.all([httpClient(h, key), stdioClient(h, key)]);
  }, 120_000);
  afterAll(async () => {
    await Promise.allSettled([http?.close(), stdio?.close()]);
    await h?.stop();
  });

  test('both transports list the nine tools; input schemas are the API request schemas with the path ids', async () => {
    for (const client of [http, stdio]) {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(TOOLS);
      const create = tools.find((tool) => tool.name === 'create_campaign')!;
      expect(create.inputSchema.properties).toEqual(JSON.parse(JSON.stringify(CreateCampaignBody.properties)));
      expect(tools.find((tool) => tool.name === 'get_video_document')!.inputSchema.required).toEqual(['campaign_id', 'video_id']);
      expect(tools.find((tool) => tool.name === 'get_batch')!.inputSchema.required).toEqual(['batch_id']);
    }
  });

  test('HTTP: create, wait for review, read and edit a video document, see the revision ready, publish', async () => {
    const created = await use(http, 'create_campaign', {
      url: h.pageUrl,
      languages: ['en'],
      platforms: ['tiktok'],
      quality: 'draft',
    });
    expect(created.isError).toBe(false);
    expect(created.body).toMatchObject({ success: true, status: 'collecting' });
    const campaignId: string = created.body.campaign_id;
    expect(created.text).toContain(campaignId);
    expect(created.json).toEqual(created.body);

    const settled = await waitFor(
      () => use(http, 'get_campaign', { campaign_id: campaignId }),
      (res) => ['review', 'failed'].includes(res.body?.status),
      240_000,
      1000,
    );
    expect(settled.body.status).toBe('review');
    expect(settled.text).toMatch(/is review/);
    const videoId: string = settled.body.videos[0].id;

    const read = await use(http, 'get_video_document', { campaign_id: campaignId, video_id: videoId });
    expect(read.isError).toBe(false);
    const document = read.body.document;
    expect(document).toMatchObject({ format: 'universal-video-json', revision: 1, campaign_id: campaignId, video_id: videoId });
    const screen = document.scenes.find((scene: { kind: string }) => scene.kind === 'screen');
    const narration = 'Edited through MCP: every order, live, as it ships.';

    const edited = await use(http, 'edit_video', {
      ...document,
      scenes: document.scenes.map((scene: { id: string }) => (scene.id === screen.id ? { ...scene, narration } : scene)),
    });
    expect(edited.isError).toBe(false);
    expect(edited.body.video).toMatchObject({ id: videoId, status: 'rendering', revision: 2 });

    const ready = await waitFor(
      () => use(http, 'get_campaign', { campaign_id: campaignId }),
      (res) => res.body.videos[0].status !== 'rendering',
      180_000,
      1000,
    );
    expect(ready.body.videos[0]).toMatchObject({ status: 'ready', revision: 2, file_revision: 2 });
    const reread = await use(stdio, 'get_video_document', { campaign_id: campaignId, video_id: videoId });
    expect(reread.body.document.revision).toBe(2);
    expect(reread.body.document.scenes.find((scene: { id: string }) => scene.id === screen.id).narration).toBe(narration);

    const published = await use(http, 'publish_campaign', { campaign_id: campaignId });
    expect(published.isError).toBe(false);
    expect(published.body.status).toBe('published');
    // A second publish is the API's 409, as a tool error carrying its code and message.
    const again = await use(stdio, 'publish_campaign', { campaign_id: campaignId });
    expect(again.isError).toBe(true);
    expect(again.text).toMatch(/^conflict: Only a campaign in review can be published/);

    const listed = await use(stdio, 'list_campaigns', { status: 'published', limit: 5 });
    expect(listed.body.campaigns.map((c: { campaign_id: string }) => c.campaign_id)).toContain(campaignId);
  }, 480_000);

  test('stdio: a batch is made, read and its campaign canceled; an unknown id is the API not_found', async () => {
    const batch = await use(stdio, 'create_batch', { items: [{ url: h.pageUrl }], defaults: { languages: ['en'], quality: 'draft' } });
    expect(batch.isError).toBe(false);
    const campaignId: string = batch.body.campaigns[0].campaign_id;
    const canceled = await use(stdio, 'cancel_campaign', { campaign_id: campaignId });
    expect(canceled.isError).toBe(false);
    expect(canceled.body).toMatchObject({ status: 'failed', error: { code: 'canceled' } });
    const read = await use(stdio, 'get_batch', { batch_id: batch.body.batch_id });
    expect(read.body.counts.failed).toBe(1);
    expect(read.text).toBe(`Batch ${batch.body.batch_id}: 1 failed.`);

    for (const client of [http, stdio]) {
      const unknown = await use(client, 'get_campaign', { campaign_id: '00000000-0000-4000-8000-000000000000' });
      expect(unknown.isError).toBe(true);
      expect(unknown.text).toMatch(/^not_found: /);
    }
  }, 120_000);
});

describe("the API's rules at /mcp (pipeline paused)", () => {
  let h: Harness;
  const CAP = 3;
  beforeAll(async () => {
    h = await startHarness({
      config: {
        pipelinePaused: true,
        rateLimits: { ipUnauthenticated: 1000, ipAuthenticated: 1000, windowMs: 60_000 },
        http: { maxConnectionsPerIp: CAP, keepAliveTimeoutMs: 15_000 },
      },
    });
  });
  afterAll(async () => h?.stop());

  test('a key without campaigns:create: create_campaign is a tool error naming forbidden; reads still work', async () => {
    const { key } = await h.newCustomer('business', ['campaigns:read']);
    const client = await httpClient(h, key);
    try {
      const refused = await use(client, 'create_campaign', { url: h.pageUrl, languages: ['en'] });
      expect(refused.isError).toBe(true);
      expect(refused.text).toMatch(/^forbidden: This API key lacks the campaigns:create scope/);
      expect(refused.json.error.code).toBe('forbidden');
      expect(refused.body).toBeUndefined();
      expect((await use(client, 'list_campaigns', {})).isError).toBe(false);
    } finally {
      await client.close();
    }
  });

  test("a Growth key: the 11th create_campaign in a minute is rate_limited (the plan's rate); a client's Idempotency-Key header replays nothing", async () => {
    const { key } = await h.newCustomer('growth');
    // Configured headers go with every request: a create is not replayed by one (each is a campaign of its own).
    const client = await httpClient(h, key, { 'Idempotency-Key': 'configured-once' });
    try {
      const ids = new Set<string>();
      for (let i = 0; i < 10; i += 1) {
        const created = await use(client, 'create_campaign', { url: h.pageUrl, languages: ['en'], platforms: ['tiktok'] });
        expect(created.isError).toBe(false);
        ids.add(created.body.campaign_id);
      }
      expect(ids.size).toBe(10);
      const eleventh = await use(client, 'create_campaign', { url: h.pageUrl, languages: ['en'], platforms: ['tiktok'] });
      expect(eleventh.isError).toBe(true);
      expect(eleventh.text).toMatch(/^rate_limited: /);
      expect(eleventh.json.error.details.retry_after_seconds).toBeGreaterThanOrEqual(1);
    } finally {
      await client.close();
    }
  }, 120_000);

  test('/mcp without a key is refused 401 unauthorized, and the SDK client cannot connect', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const res = await h.request('POST', '/mcp', { body: initialize, headers: { Accept: 'application/json, text/event-stream' } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
    const client = new Client({ name: 'mcp-test', version: '1.0.0' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(`${h.baseUrl}/mcp`)))).rejects.toThrow(/"code":"unauthorized"/);
    // GET and DELETE: a stateless server has neither a stream nor a session (405, Allow: POST).
    const { key } = await h.newCustomer('business');
    const get = await h.request('GET', '/mcp', { key });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  test('/mcp is under the per-address connection cap', async () => {
    const port = Number(new URL(h.baseUrl).port);
    const open = (localAddress: string) =>
      new Promise<net.Socket>((resolve, reject) => {
        const socket = net.connect({ host: '127.0.0.1', port, localAddress }, () => resolve(socket));
        socket.once('error', reject);
      });
    /** An MCP POST on a fresh connection from `localAddress`: the status line, or 'closed' when the socket is destroyed unanswered. */
    const post = async (localAddress: string) => {
      const socket = await open(localAddress);
      socket.on('error', () => undefined); // a refused connection is reset: its close is what is checked
      const body = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
      let data = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (data += chunk));
      await new Promise((resolve) => socket.once('close', resolve));
      return data ? data.split('\r\n')[0] : 'closed';
    };
    const held = await Promise.all(Array.from({ length: CAP }, () => open('127.0.0.2')));
    try {
      expect(await post('127.0.0.2')).toBe('closed');
      expect(await post('127.0.0.3')).toBe('HTTP/1.1 401 Unauthorized');
    } finally {
      for (const socket of held) socket.destroy();
    }
  });
});
