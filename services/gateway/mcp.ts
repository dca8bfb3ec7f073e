/**
 * The MCP server's Streamable HTTP side (decisions §16), at the gateway's /mcp: the tools of lib/mcp/tools.ts bound to
 * the public API's own actions. A request reaches here as an /api/v1 request does — per-IP limit, the API key
 * (Authorization: Bearer or X-API-Key) and its plan's API access, the JSON body checks, then `authorize`, which puts the
 * key's organization in meta — and each tool calls its action from the request's context, with the /api/v1 route's
 * call options: the broker's action rules then check the key's scope and count the plan's rate, and the action its
 * params and the quota, exactly as for the REST route. A refusal is the same error, turned into the same answer
 * (lib/errors.ts toErrorResponse), which the tool reports.
 *
 * Stateless: a server and a transport per POST, no session kept (any gateway node answers any request); answers are
 * plain JSON, not an event stream (the tools send no progress). One JSON-RPC message per POST (the body checks refuse
 * an array): the request's id is the call's, so the plan's rate counts each tool call once.
 */
import type { CallingOptions, Context } from 'moleculer';
import type { RulesMeta } from '../../mixins/action-rules';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { toErrorResponse } from '../../lib/errors';
import { mcpServer, type CallApi } from '../../lib/mcp/tools';
import { publicActions } from './public-actions';
import type { Req, Res } from './request';

/** The public actions by their `rest` ('POST /campaigns'), as the tools name them. */
const ACTIONS = new Map(publicActions().map((action) => [`${action.method} ${action.path}`, action.name]));

/** The tools' operations carried out as broker calls from the HTTP request's context (its meta holds the key's auth). */
function brokerApi(ctx: Context, options: CallingOptions): CallApi {
  return async ({ operation, pathParams, input }) => {
    const action = ACTIONS.get(operation);
    // A tool names an operation of the API: one that is not there is a programming error (test/unit/mcp-tools.test.ts).
    if (!action) throw new Error(`MCP tool operation ${operation} is no public action`);
    try {
      // As moleculer-web merges them: the body (or query), then the path's parameters.
      const body = await ctx.call<unknown, Record<string, unknown>>(action, { ...input, ...pathParams }, options);
      return { status: 200, body };
    } catch (err) {
      const { status, body, headers } = toErrorResponse(err);
      return { status, body, retryAfter: headers['Retry-After'] };
    }
  };
}

/** POST /mcp: one JSON-RPC message answered by a fresh server over the key's API. */
export async function answerMcp(req: Req, res: Res, options: CallingOptions): Promise<void> {
  if (!req.$ctx) throw new Error('moleculer-web gave /mcp no context');
  // An MCP client sends the headers it was configured with on every request: an Idempotency-Key among them would make
  // every create after the first a replay of it. Tools are not replayed by key.
  const meta = req.$ctx.meta as RulesMeta & { idempotencyKey?: string };
  delete meta.idempotencyKey;
  const server = mcpServer(brokerApi(req.$ctx, options));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
}
