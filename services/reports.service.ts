/**
 * The reports of decisions §11 (scope reports:read). This actor owns no table: it asks each owner for its facts
 * (campaigns for the campaign, its transitions and the month's counts; script for the scripts; voice for the
 * storyboards as spoken; rendering for the render attempts) and lib/ops/reports.ts assembles them. The campaign actor
 * checks the caller's organization first, so nothing is asked of the others for a campaign that is not theirs.
 */
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import { CampaignReportSchema, ReportIdParams, UsageReportQuery, UsageReportSchema } from '../lib/http/api-schemas';
import { isGenerating } from '../lib/campaign/states';
import { notFound } from '../lib/errors';
import {
  buildCampaignReport,
  campaignIdOfReport,
  REPORT_ID_PREFIX,
  type CampaignReport,
  type ReportInputs,
  type UsageReport,
} from '../lib/ops/reports';
import { call } from '../lib/net/calls';
import type { CampaignMeta, UsageReportParams } from './campaigns/types';

export interface ReportByIdParams {
  report_id: string;
}

/** The actions others call (the dashboard's report pages), for `call` (lib/net/calls.ts). */
export interface ReportsActions {
  'reports.get': { params: ReportByIdParams; result: CampaignReport & { success: true } };
  'reports.usage': { params: UsageReportParams; result: UsageReport & { success: true } };
}

const reportNotFound = () => notFound('Report not found.');

type ReportsThis = Service<ServiceSettingSchema>;

const ReportsService: ServiceSchema<ServiceSettingSchema, Record<string, never>, Record<string, never>> = {
  name: 'reports',

  actions: {
    // Declared before `get`: the gateway's aliases keep this order, so /reports/usage is not taken for a report id.
    usage: {
      rest: 'GET /reports/usage',
      scope: 'reports:read',
      params: UsageReportQuery,
      openapi: {
        summary: "A month's usage: quota, campaigns by state, videos and seconds rendered by language and platform",
        description:
          "The organization's month (default the current UTC month): the quota counter and limit, that month's campaigns by their state now, and the videos rendered, with their seconds, by language and by platform.",
        successStatus: 200,
        response: UsageReportSchema,
      },
      async handler(this: ReportsThis, ctx: Context<UsageReportParams, CampaignMeta>): Promise<UsageReport & { success: true }> {
        const report = await call(ctx, 'campaigns.usageReport', ctx.params);
        return { success: true, ...report };
      },
    },

    get: {
      rest: 'GET /reports/:report_id',
      scope: 'reports:read',
      params: ReportIdParams,
      openapi: {
        summary: "A campaign's report: scripts as spoken, scene timings, voices, render attempts, time in each state",
        description:
          "Once a campaign has an outcome, GET shows its report_id. The report: per language the script as spoken with each scene's start and length and the voice used; per video its render attempts (node, time, outcome); the time spent in each state.",
        successStatus: 200,
        response: CampaignReportSchema,
      },
      async handler(this: ReportsThis, ctx: Context<ReportByIdParams, CampaignMeta>): Promise<CampaignReport & { success: true }> {
        const id = campaignIdOfReport(ctx.params.report_id);
        if (!id) throw reportNotFound();
        // Ownership first: someone else's campaign, or none, is the contract's 404 for a report id.
        let campaign: ReportInputs['campaign'];
        try {
          campaign = await call(ctx, 'campaigns.get', { id });
        } catch (err) {
          throw (err as { type?: string }).type === 'not_found' ? reportNotFound() : err;
        }
        if (isGenerating(campaign.status)) throw reportNotFound();
        const stage = { campaign_id: id };
        const [timeline, outputs, storyboards, attempts] = await Promise.all([
          call(ctx, 'campaigns.timeline', { id }),
          call(ctx, 'script.outputs', stage),
          call(ctx, 'voice.storyboards', stage),
          call(ctx, 'rendering.attempts', stage),
        ]);
        const report = buildCampaignReport(`${REPORT_ID_PREFIX}${id}`, {
          campaign,
          timeline,
          scripts: outputs.scripts,
          storyboards,
          attempts,
        });
        return { success: true, ...report };
      },
    },
  },
};

export default ReportsService;
