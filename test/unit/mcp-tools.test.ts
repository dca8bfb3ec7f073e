/**
 * The MCP tools (lib/mcp/tools.ts) are the public API's operations, not a copy of them: each names an action the
 * gateway serves, its input is that action's own params schema (the same object) with the path's ids renamed, its
 * output schema the action's documented response; a refusal carries the API's code and message, from either error
 * body the API answers.
 */
import { publicActions } from '../../services/gateway/public-actions';
import { MCP_TOOLS, refusalOf, requestOf } from '../../lib/mcp/tools';

const actions = new Map(publicActions().map((action) => [`${action.method} ${action.path}`, action]));

test.each(MCP_TOOLS.map((tool) => [tool.name, tool]))('%s is a public action, with its own params and response schemas', (_, tool) => {
  const action = actions.get(tool.operation);
  expect(action).toBeDefined();
  expect(tool.params).toBe(action!.schema.params);
  expect(tool.response).toBe(action!.schema.openapi?.response);
  // Every property of the action's params is the tool's, the path's `:id` under the tool's name for it (a video document's
  // own campaign_id, which edit_video's path id is, included).
  const params = action!.schema.params as { properties: Record<string, unknown>; required?: string[] };
  const renamed = (name: string) => tool.pathParams.find((param) => param.api === name)?.tool ?? name;
  expect(Object.keys(tool.inputSchema.properties).sort()).toEqual([...new Set(Object.keys(params.properties).map(renamed))].sort());
  for (const [name, schema] of Object.entries(params.properties)) {
    const pathParam = tool.pathParams.find((param) => param.tool === renamed(name));
    expect(tool.inputSchema.properties[renamed(name)]).toBe(pathParam ? params.properties[pathParam.api] : schema);
  }
  expect(tool.inputSchema.required ?? []).toEqual(expect.arrayContaining((params.required ?? []).map(renamed)));
});

test('the path ids become path parameters; the rest is the body, as the document read and sent back', () => {
  const edit = MCP_TOOLS.find((tool) => tool.name === 'edit_video')!;
  const request = requestOf(edit, { campaign_id: 'c', video_id: 'v', revision: 1, scenes: [] });
  expect(request).toEqual({
    operation: 'PUT /campaigns/:id/videos/:video_id/document',
    method: 'PUT',
    path: '/campaigns/:id/videos/:video_id/document',
    pathParams: { id: 'c', video_id: 'v' },
    input: { revision: 1, scenes: [] },
  });
  expect(requestOf(edit, { video_id: 'v' })).toEqual({ code: 'invalid_input', message: 'campaign_id: required, a string.' });
});

test("a refusal is the API's code and message, the limiter's 429 rate_limited with its Retry-After", () => {
  const forbidden = { success: false, error: { code: 'forbidden', message: 'This API key lacks the campaigns:create scope.' } };
  expect(refusalOf({ status: 403, body: forbidden })).toEqual(forbidden.error);
  const quota = { success: false, error: { code: 'rate_limited', message: 'quota', details: { used: 5, limit: 5 } } };
  expect(refusalOf({ status: 429, body: quota })).toEqual(quota.error);
  expect(refusalOf({ status: 429, body: { error: 'Too many requests' }, retryAfter: '7' })).toEqual({
    code: 'rate_limited',
    message: 'Too many requests',
    details: { retry_after_seconds: 7 },
  });
});
