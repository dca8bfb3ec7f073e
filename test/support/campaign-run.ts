/** A campaign created through the API and followed to its outcome (review or failed): what most pipeline tests do first. */
import type { Harness } from './harness';
import { waitFor } from './wait';

/** What the tests read of GET's body (the OpenAPI document has all of it). */
export interface CampaignBody {
  status: string;
  report_id?: string;
  videos: Array<{ id: string; language: string; platform: string; status: string; file_url: string; [field: string]: unknown }>;
  [field: string]: unknown;
}

export async function runCampaign(
  h: Harness,
  key: string,
  body: Record<string, unknown>,
  timeoutMs = 240_000,
): Promise<{ id: string; campaign: CampaignBody }> {
  const created = await h.request('POST', '/api/v1/campaigns', { key, body: { url: h.pageUrl, ...body } });
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
  const id: string = created.body.campaign_id;
  return { id, campaign: await untilSettled(h, id, key, timeoutMs) };
}

/** GET of a campaign until it has an outcome (review or failed): its body then. */
export async function untilSettled(h: Harness, id: string, key: string, timeoutMs = 240_000): Promise<CampaignBody> {
  const done = await waitFor(
    () => h.request('GET', `/api/v1/campaigns/${id}`, { key }),
    (res) => ['review', 'failed'].includes(res.body.status),
    timeoutMs,
    500,
  );
  return done.body as CampaignBody;
}
