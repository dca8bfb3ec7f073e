/**
 * The MCP server's tools (decisions §16), written once for both transports: each tool is one operation of the public
 * API, its input schema the operation's own request schema (lib/http/api-schemas.ts, the object the action validates
 * its params with and the OpenAPI document is built from) with the path's ids named for an agent (campaign_id,
 * video_id, batch_id), its result the API's body. How an operation is carried out is the transport's: the gateway's
 * /mcp route calls the broker's actions with the API key's meta (services/gateway/mcp.ts), `npm run mcp` sends HTTP
 * requests to a running product (scripts/mcp.ts). Either way the API's own rules (scope, plan rate, quota) decide,
 * and a refusal becomes a tool error carrying the API's `code` and `message`.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  BatchIdParams,
  BatchSchema,
  CampaignIdParams,
  CampaignListSchema,
  CampaignSchema,
  CreateBatchBody,
  CreateCampaignBody,
  CreatedBatch,
  CreatedCampaign,
  EditedVideo,
  EditVideoDocumentParams,
  ListCampaignsQuery,
  UniversalVideoJsonSchema,
  VideoDocumentParams,
  VideoDocumentResponse,
} from '../http/api-schemas';

/** A JSON Schema of an object, as the API's request and response schemas are written. */
export interface ObjectSchema {
  type: 'object';
  properties: Record<string, object>;
  required?: string[];
  [keyword: string]: unknown;
}

/** One request of the public API, in the terms of its action: `rest` as the action declares it, params by the API's names. */
export interface ApiRequest {
  /** The action's `rest`, e.g. 'PUT /campaigns/:id/videos/:video_id/document' (paths under /api/v1). */
  operation: string;
  method: 'GET' | 'POST' | 'PUT';
  /** The path's template, e.g. '/campaigns/:id'. */
  path: string;
  /** The path's parameters by the API's names (`id`, `video_id`). */
  pathParams: Record<string, string>;
  /** The rest of the arguments: a GET's query, a POST's or PUT's JSON body. */
  input: Record<string, unknown>;
}

/** The API's answer: its HTTP status and body, and Retry-After when it sent one. */
export interface ApiAnswer {
  status: number;
  body: unknown;
  retryAfter?: string;
}

/** How a transport carries out an API request. */
export type CallApi = (request: ApiRequest) => Promise<ApiAnswer>;

interface ToolSpec {
  name: string;
  title: string;
  description: string;
  operation: string;
  /** What the tool calls the path's `:id`. */
  idName?: 'campaign_id' | 'batch_id';
  /** The action's params schema: the very object the API validates with. */
  params: object;
  /** The API's success body (the OpenAPI document's response schema). */
  response: object;
  /** One line saying what happened, from the body. */
  summary(body: Record<string, unknown>): string;
}

export interface McpTool extends ToolSpec {
  method: ApiRequest['method'];
  path: string;
  /** The path's parameters: the API's name and the tool's. */
  pathParams: Array<{ api: string; tool: string }>;
  inputSchema: ObjectSchema;
  outputSchema: ObjectSchema;
}

type Body = Record<string, unknown>;
type VideoBody = { id?: unknown; status?: unknown; revision?: unknown };

const videosOf = (body: Body): VideoBody[] => (Array.isArray(body.videos) ? (body.videos as VideoBody[]) : []);
function campaignLine(body: Body): string {
  const videos = videosOf(body);
  const ready = videos.filter((video) => video.status === 'ready').length;
  return `Campaign ${String(body.campaign_id)} is ${String(body.status)} (${String(body.progress)} %), ${ready} of ${videos.length} videos ready.`;
}

const SPECS: ToolSpec[] = [
  {
    name: 'create_campaign',
    title: 'Create a campaign',
    description:
      'Starts generating narrated demo videos of a public page, one per language and platform (POST /api/v1/campaigns). Answers once the page is loaded and checked, with the campaign collecting; follow it with get_campaign until review (or failed). Draws one campaign from the monthly quota; counted against the plan rate. quality: draft makes a cheap preview.',
    operation: 'POST /campaigns',
    params: CreateCampaignBody,
    response: CreatedCampaign,
    summary: (body) => `Campaign ${String(body.campaign_id)} created; it is ${String(body.status)}.`,
  },
  {
    name: 'get_campaign',
    title: 'Read a campaign',
    description:
      "A campaign's status, progress, and its videos with signed download links once ready (GET /api/v1/campaigns/{id}). Its videos' ids are what get_video_document and edit_video take.",
    operation: 'GET /campaigns/:id',
    idName: 'campaign_id',
    params: CampaignIdParams,
    response: CampaignSchema,
    summary: campaignLine,
  },
  {
    name: 'list_campaigns',
    title: 'List campaigns',
    description: 'Campaigns, newest first, a page at a time (GET /api/v1/campaigns): pass next_cursor as cursor for the next page.',
    operation: 'GET /campaigns',
    params: ListCampaignsQuery,
    response: CampaignListSchema,
    summary: (body) => {
      const count = Array.isArray(body.campaigns) ? body.campaigns.length : 0;
      return `${count} campaign${count === 1 ? '' : 's'}${body.has_more ? `; more with cursor ${String(body.next_cursor)}` : ''}.`;
    },
  },
  {
    name: 'cancel_campaign',
    title: 'Cancel a campaign',
    description:
      'Stops a campaign that is still generating (POST /api/v1/campaigns/{id}/cancel): it becomes failed with error.code canceled and its quota is refunded. From review, published or failed: conflict.',
    operation: 'POST /campaigns/:id/cancel',
    idName: 'campaign_id',
    params: CampaignIdParams,
    response: CampaignSchema,
    summary: campaignLine,
  },
  {
    name: 'publish_campaign',
    title: 'Publish a campaign',
    description: 'Moves a campaign in review to published (POST /api/v1/campaigns/{id}/publish). From any other state: conflict.',
    operation: 'POST /campaigns/:id/publish',
    idName: 'campaign_id',
    params: CampaignIdParams,
    response: CampaignSchema,
    summary: campaignLine,
  },
  {
    name: 'get_video_document',
    title: "Read a video's document",
    description:
      'One video as a Universal Video JSON document (GET /api/v1/campaigns/{id}/videos/{video_id}/document): its settings, its scenes in order (narration, headline, screenshot) and every screenshot the campaign captured. Exists once the video is narrated. Edit it and pass it to edit_video.',
    operation: 'GET /campaigns/:id/videos/:video_id/document',
    idName: 'campaign_id',
    params: VideoDocumentParams,
    response: VideoDocumentResponse,
    summary: (body) => {
      const document = (body.document ?? {}) as Body;
      const scenes = Array.isArray(document.scenes) ? document.scenes.length : 0;
      return `Video ${String(document.video_id)} (${String(document.language)}, ${String(document.platform)}) at revision ${String(document.revision)}: ${scenes} scenes.`;
    },
  },
  {
    name: 'edit_video',
    title: 'Edit a video',
    description:
      'Re-renders a video from its edited document (PUT /api/v1/campaigns/{id}/videos/{video_id}/document): pass the document get_video_document returned (its campaign_id and video_id name the video), with the revision read and your changes: narration and headlines, scene order, removed or added screen scenes, another captured screenshot, voice, captions, quality (draft for a cheap preview), brand colour. Only while the campaign is in review. The video renders at the next revision; follow it with get_campaign.',
    operation: 'PUT /campaigns/:id/videos/:video_id/document',
    idName: 'campaign_id',
    params: EditVideoDocumentParams,
    response: EditedVideo,
    summary: (body) => {
      const video = (body.video ?? {}) as VideoBody;
      return `Video ${String(video.id)} is ${String(video.status)} at revision ${String(video.revision)}.`;
    },
  },
  {
    name: 'create_batch',
    title: 'Create a batch of campaigns',
    description:
      'One campaign per item, all or nothing (POST /api/v1/batches): defaults apply to every item, an item’s own fields win. Draws one campaign per item from the monthly quota; the batch counts once against the plan rate.',
    operation: 'POST /batches',
    params: CreateBatchBody,
    response: CreatedBatch,
    summary: (body) => {
      const count = Array.isArray(body.campaigns) ? body.campaigns.length : 0;
      return `Batch ${String(body.batch_id)} created with ${count} campaign${count === 1 ? '' : 's'}.`;
    },
  },
  {
    name: 'get_batch',
    title: 'Read a batch',
    description: "A batch's campaigns with their statuses, and their counts by status (GET /api/v1/batches/{id}).",
    operation: 'GET /batches/:id',
    idName: 'batch_id',
    params: BatchIdParams,
    response: BatchSchema,
    summary: (body) => {
      const counts = Object.entries((body.counts ?? {}) as Record<string, number>).filter(([, n]) => n > 0);
      return `Batch ${String(body.batch_id)}: ${counts.map(([status, n]) => `${n} ${status}`).join(', ') || 'no campaigns'}.`;
    },
  },
];

/** The OpenAPI document's references (a video document's schema is a component there), resolved for a schema that stands alone. */
const COMPONENTS: Record<string, unknown> = { '#/components/schemas/UniversalVideoJson': UniversalVideoJsonSchema };
function standalone(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(standalone);
  if (!schema || typeof schema !== 'object') return schema;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && ref in COMPONENTS) return COMPONENTS[ref];
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, standalone(value)]));
}

/** The tool's input: the action's params schema with the path's `:id` renamed as the tool names it. */
function inputSchemaOf(spec: ToolSpec): ObjectSchema {
  const { properties = {}, required = [], ...rest } = spec.params as Partial<ObjectSchema> & { required?: readonly string[] };
  const rename = (name: string) => (name === 'id' && spec.idName ? spec.idName : name);
  return {
    ...rest,
    type: 'object',
    properties: Object.fromEntries(Object.entries(properties).map(([name, schema]) => [rename(name), schema])),
    ...(required.length ? { required: [...new Set(required.map(rename))] } : {}),
  };
}

function toolOf(spec: ToolSpec): McpTool {
  const [method, path] = spec.operation.split(' ');
  if (method !== 'GET' && method !== 'POST' && method !== 'PUT') throw new Error(`${spec.name}: no tool for ${method}`);
  const pathParams = [...path.matchAll(/:(\w+)/g)].map(([, api]) => ({ api, tool: api === 'id' && spec.idName ? spec.idName : api }));
  return {
    ...spec,
    method,
    path,
    pathParams,
    inputSchema: inputSchemaOf(spec),
    outputSchema: standalone(spec.response) as ObjectSchema,
  };
}

/** The tools, in the order they are listed. */
export const MCP_TOOLS: readonly McpTool[] = SPECS.map(toolOf);

/** What an agent reads of a refusal: the API's code and message (and details), from either error body the API answers. */
export interface Refusal {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * The API's refusal as it answered: the standard body's `error`, or, for the request limiter's 429 (whose body the
 * contract fixes as `{ "error": "Too many requests" }`), `rate_limited` with Retry-After as retry_after_seconds.
 */
export function refusalOf(answer: ApiAnswer): Refusal {
  const error = (answer.body as { error?: unknown } | null)?.error;
  if (error && typeof error === 'object') {
    const { code, message, details } = error as { code?: unknown; message?: unknown; details?: Record<string, unknown> };
    if (typeof code === 'string') return { code, message: typeof message === 'string' ? message : '', ...(details ? { details } : {}) };
  }
  const retryAfter = Number(answer.retryAfter);
  if (answer.status === 429)
    return {
      code: 'rate_limited',
      message: typeof error === 'string' ? error : 'Too many requests',
      ...(Number.isFinite(retryAfter) ? { details: { retry_after_seconds: retryAfter } } : {}),
    };
  return { code: answer.status >= 500 ? 'internal' : 'invalid_input', message: `The API answered HTTP ${answer.status}.` };
}

/** A tool error: the code and message on the first line, then the refusal as JSON. */
export function refusalResult(refusal: Refusal): CallToolResult {
  return {
    isError: true,
    content: [
      { type: 'text', text: `${refusal.code}: ${refusal.message}` },
      { type: 'text', text: JSON.stringify({ error: refusal }) },
    ],
  };
}

/**
 * The API's body as structured content, a line saying what happened, and the body as JSON text too (the MCP
 * specification asks for it, for clients that do not read structured content).
 */
function resultOf(tool: McpTool, answer: ApiAnswer): CallToolResult {
  if (answer.status >= 400) return refusalResult(refusalOf(answer));
  const body = (answer.body ?? {}) as Body;
  return {
    structuredContent: body,
    content: [
      { type: 'text', text: tool.summary(body) },
      { type: 'text', text: JSON.stringify(body) },
    ],
  };
}

/** The API request a tool call makes: the path's ids from their arguments, the rest the query or body. */
export function requestOf(tool: McpTool, args: Record<string, unknown>): ApiRequest | Refusal {
  const pathParams: Record<string, string> = {};
  for (const { api, tool: name } of tool.pathParams) {
    const value = args[name];
    if (typeof value !== 'string' || value === '') return { code: 'invalid_input', message: `${name}: required, a string.` };
    pathParams[api] = value;
  }
  const named = new Set(tool.pathParams.map((param) => param.tool));
  const input = Object.fromEntries(Object.entries(args).filter(([name]) => !named.has(name)));
  return { operation: tool.operation, method: tool.method, path: tool.path, pathParams, input };
}

export async function callTool(callApi: CallApi, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const tool = MCP_TOOLS.find((candidate) => candidate.name === name);
  if (!tool) return refusalResult({ code: 'not_found', message: `No tool named ${name}.` });
  const request = requestOf(tool, args);
  if (!('operation' in request)) return refusalResult(request);
  return resultOf(tool, await callApi(request));
}

export const MCP_SERVER_INFO = { name: 'campaign-video-api', version: '1.0.0' };

/** The tools as tools/list shows them. */
export function toolListing(): Tool[] {
  return MCP_TOOLS.map(({ name, title, description, inputSchema, outputSchema }) => ({
    name,
    title,
    description,
    inputSchema,
    outputSchema,
  }));
}

/**
 * An MCP server offering the tools over `callApi`. The SDK's low-level Server: its high-level McpServer takes Zod
 * schemas, and ours are the API's JSON Schemas, offered as they are.
 */
export function mcpServer(callApi: CallApi): Server {
  const server = new Server(MCP_SERVER_INFO, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolListing() }));
  server.setRequestHandler(CallToolRequestSchema, (request) => callTool(callApi, request.params.name, request.params.arguments ?? {}));
  return server;
}
