/**
 * The MCP server over stdio (decisions §16): `npm run -s mcp` with API_KEY (an API key, sk_live_…) and API_URL (the
 * product's base URL, e.g. http://localhost:3000) in the environment. It offers the same tools as the gateway's /mcp
 * (lib/mcp/tools.ts) and carries each out as a request to the running product's HTTP API through the typed client
 * (clients/typescript), so the key's scopes, the plan's rate and the quota are the API's, applied by the product.
 * stdout is the protocol's: nothing else is written there (hence `npm run -s`, whose banner would otherwise go there).
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createCampaignClient } from '../clients/typescript/src';
import { mcpServer, type ApiRequest, type CallApi } from '../lib/mcp/tools';

/** openapi-fetch's request, as a tool calls it: any documented path, its parameters and body. */
type AnyRequest = (
  method: string,
  url: string,
  init: { params: { path: Record<string, string>; query?: Record<string, unknown> }; body?: Record<string, unknown> },
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

function httpApi(baseUrl: string, apiKey: string): CallApi {
  const client = createCampaignClient({ baseUrl, apiKey });
  const request = client.request.bind(client) as unknown as AnyRequest;
  return async ({ method, path, pathParams, input }: ApiRequest) => {
    // The action's path ('/campaigns/:id') as the OpenAPI document writes it ('/api/v1/campaigns/{id}').
    const url = `/api/v1${path.replace(/:(\w+)/g, '{$1}')}`;
    try {
      const { data, error, response } = await request(method.toLowerCase(), url, {
        params: { path: pathParams, ...(method === 'GET' ? { query: input } : {}) },
        ...(method === 'GET' ? {} : { body: input }),
      });
      return { status: response.status, body: data ?? error, retryAfter: response.headers.get('retry-after') ?? undefined };
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      return {
        status: 503,
        body: { success: false, error: { code: 'internal', message: `The API at ${baseUrl} did not answer: ${reason}` } },
      };
    }
  };
}

async function main(): Promise<void> {
  const apiKey = process.env.API_KEY;
  const baseUrl = process.env.API_URL;
  if (!apiKey || !baseUrl) {
    process.stderr.write('npm run mcp needs API_KEY (an API key, sk_live_…) and API_URL (the product, e.g. http://localhost:3000).\n');
    process.exit(2);
  }
  const server = mcpServer(httpApi(baseUrl, apiKey));
  await server.connect(new StdioServerTransport());
}

main().catch((err: unknown) => {
  process.stderr.write(`mcp: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
