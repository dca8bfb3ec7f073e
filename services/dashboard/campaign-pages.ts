/**
 * The dashboard's campaign side beyond the list and the campaign page: the New campaign form
 * built from the API's create schema (lib/dashboard/create-form.ts) and sent to campaigns.create itself; a voice's
 * sample to play in that form (voice.sample makes it once and keeps it in the file store); the list's live figures;
 * Cancel, asked on a page of its own first (so it works without JavaScript), through campaigns.cancel; the campaign's
 * report through reports.get; its webhook deliveries (webhooks.deliveries, for the campaign campaigns.get found to be
 * the caller's) and Redeliver through campaigns.redeliverWebhook. Every refusal is the owner's, shown in words. A
 * module of the `dashboard` service (spread into services/dashboard.service.ts).
 */
import { CAMPAIGN_STATES, GENERATING_STATES, isGenerating } from '../../lib/campaign/states';
import { isOneOf, VIDEO_VARIANTS } from '../../config/catalog';
import type { ScriptDocument } from '../../lib/script/writer';
import { variantGroups, variantLabel } from '../../lib/dashboard/variants';
import { openingScene } from '../../lib/voice/variants';
import { VOICE_OPTIONS_BY_ID } from '../../config/voices';
import {
  createFormParams,
  createFormView,
  optionsSummary,
  readCreateForm,
  type AskedOptions,
  type PostedForm,
} from '../../lib/dashboard/create-form';
import { formRefusal } from '../../lib/dashboard/form-errors';
import { sentAgainWords, stateLabel } from '../../lib/dashboard/words';
import { invalidInput, notFound } from '../../lib/errors';
import { call } from '../../lib/net/calls';
import { storageFor } from '../../lib/storage/storage';
import { csrfField, type CsrfParams, type Ctx, type DashboardActionSchemas, type DashboardMethods, type DashboardThis } from './types';

interface IdParams extends CsrfParams {
  id: string;
}
interface ListQuery {
  status?: string;
  page?: string;
}

const PER_PAGE = 20;
const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 200 }, ...csrfField } } as const;
const campaignPath = (id: string) => `/dashboard/campaigns/${encodeURIComponent(id)}`;

/** The list's query as the list page reads it (services/dashboard.service.ts `campaigns`): a state, a page from 1. */
function listQuery(params: ListQuery): { status?: string; page: number } {
  const status = params.status ? params.status : undefined;
  if (status !== undefined && !isOneOf(CAMPAIGN_STATES, status)) throw invalidInput(`status must be one of ${CAMPAIGN_STATES.join(', ')}.`);
  if (params.page !== undefined && !/^[1-9]\d{0,5}$/.test(params.page)) throw invalidInput('page must be a whole number from 1.');
  return { status, page: Number(params.page ?? 1) };
}

/** What the campaign page (services/dashboard.service.ts `campaign`) shows besides the campaign: Cancel, the options asked. */
export function campaignPageExtras(campaign: AskedOptions & { status: string }): {
  generating: boolean;
  options: ReturnType<typeof optionsSummary>;
} {
  return { generating: isGenerating(campaign.status), options: optionsSummary(campaign) };
}

/**
 * The campaign page's hook variants (decisions §15): the videos grouped by language × platform, side by side, each
 * with its opening (null when the campaign has none), and a script's openings in words, one per variant.
 */
export function campaignVariants(
  videos: Parameters<typeof variantGroups>[0],
  scripts: Parameters<typeof variantGroups>[1],
): {
  variantGroups: ReturnType<typeof variantGroups>;
  openings: (script: ScriptDocument) => Array<{ variant: string; label: string; headline: string; narration: string }>;
} {
  const variants = VIDEO_VARIANTS.filter((variant) => videos.some((v) => v.variant === variant));
  return {
    variantGroups: variantGroups(videos, scripts),
    openings: (script) =>
      variants.map((variant) => {
        const scene = openingScene(script, variant);
        const narration = scene.narration.map((segment) => segment.text).join(' ');
        return { variant, label: variantLabel(variant), headline: scene.onScreenText, narration };
      }),
  };
}

/** A posted form as the flash keeps it: its fields' values, without the empty ones. */
function keptForm(form: PostedForm): Record<string, string | string[]> {
  return Object.fromEntries(Object.entries(form).flatMap(([name, value]) => (value === undefined ? [] : [[name, value]])));
}

export const campaignPageActions: DashboardActionSchemas = {
  newCampaign: {
    visibility: 'published',
    dashboard: { access: 'session' },
    async handler(this: DashboardThis, ctx: Ctx): Promise<string> {
      // A refused create comes back here by redirect: its words and every value the form had, once (the flash).
      const flash = await this.takeFlash(ctx);
      return this.newCampaignPage(ctx, flash?.form, flash?.error);
    },
  },

  /** The API's own create: the same validation messages, quota and plan rate. */
  createCampaign: {
    visibility: 'published',
    dashboard: { access: 'session', write: true },
    params: { type: 'object', properties: { ...createFormParams(), ...csrfField } },
    async handler(this: DashboardThis, ctx: Ctx<PostedForm>): Promise<string> {
      const { _csrf: _token, ...form } = ctx.params;
      const { body, error } = readCreateForm(form);
      const refused = (message: string) =>
        this.redirectWithFlash(ctx, '/dashboard/campaigns/new', { error: message, form: keptForm(form) });
      if (error) return refused(error);
      try {
        const created = await call(ctx, 'campaigns.create', body);
        return this.redirect(ctx, campaignPath(created.campaign_id));
      } catch (err) {
        // The plan's rate, refused by the broker's rule as for an API key (429): said in words, with the wait.
        return refused(formRefusal(err, (wait) => `Too many campaigns created this minute on your plan. Try again in ${wait} s.`).message);
      }
    },
  },

  /** A voice's sample (an MP3 of one sentence), made once by the voice service and kept in the file store. */
  voiceSample: {
    visibility: 'published',
    dashboard: { access: 'session' },
    params: { type: 'object', required: ['voice_id'], properties: { voice_id: { type: 'string', maxLength: 100 } } },
    async handler(this: DashboardThis, ctx: Ctx<{ voice_id: string }>): Promise<Buffer> {
      if (!VOICE_OPTIONS_BY_ID.has(ctx.params.voice_id)) throw notFound('No such voice.');
      const { storage_key: key } = await call(ctx, 'voice.sample', { voice_id: ctx.params.voice_id });
      const bytes = await storageFor(this.broker).get(key);
      ctx.meta.$responseType = 'audio/mpeg';
      ctx.meta.$responseHeaders = { 'Cache-Control': 'private, max-age=86400' };
      return bytes;
    },
  },

  /** What the campaigns list polls: each shown campaign's state and progress (the same page of the same filter). */
  campaignsLive: {
    visibility: 'published',
    dashboard: { access: 'session' },
    params: { type: 'object', properties: { status: { type: 'string', maxLength: 20 }, page: { type: 'string', maxLength: 7 } } },
    async handler(this: DashboardThis, ctx: Ctx<ListQuery>): Promise<Record<string, unknown>> {
      const { status, page } = listQuery(ctx.params);
      const list = await call(ctx, 'campaigns.browse', { status, page, per_page: PER_PAGE });
      ctx.meta.$statusCode = 200;
      return {
        total: list.total,
        campaigns: list.campaigns.map((c) => ({
          campaign_id: c.campaign_id,
          status: c.status,
          status_label: stateLabel(c.status),
          progress: c.progress,
        })),
      };
    },
  },

  /** Cancel, asked first: a page of its own, so the question needs no JavaScript. */
  cancelCampaignPage: {
    visibility: 'published',
    dashboard: { access: 'session' },
    params: idParams,
    async handler(this: DashboardThis, ctx: Ctx<IdParams>): Promise<string> {
      const campaign = await call(ctx, 'campaigns.get', { id: ctx.params.id });
      return this.page(ctx, 'cancel', { title: `Cancel ${campaign.title}`, campaign, generating: isGenerating(campaign.status) });
    },
  },

  cancelCampaign: {
    visibility: 'published',
    dashboard: { access: 'session', write: true },
    params: idParams,
    async handler(this: DashboardThis, ctx: Ctx<IdParams>): Promise<string> {
      const id = ctx.params.id;
      try {
        await call(ctx, 'campaigns.cancel', { id });
      } catch (err) {
        // Finished meanwhile (409) or not the caller's (404, the error page): the campaign's own answer in words.
        const refusal = formRefusal(err);
        if (refusal.status === 404) throw err;
        return this.redirectWithFlash(ctx, `${campaignPath(id)}/cancel`, { error: refusal.message });
      }
      return this.redirectWithFlash(ctx, campaignPath(id), {
        notice: 'Canceled. Nothing more is made, and this month’s quota has its campaign back.',
      });
    },
  },

  /** The campaign's report (reports.get, as GET /api/v1/reports/{report_id}): time per state, render attempts, voices. */
  campaignReport: {
    visibility: 'published',
    dashboard: { access: 'session' },
    params: idParams,
    async handler(this: DashboardThis, ctx: Ctx<IdParams>): Promise<string> {
      const campaign = await call(ctx, 'campaigns.get', { id: ctx.params.id });
      const report = campaign.report_id ? await call(ctx, 'reports.get', { report_id: campaign.report_id }) : null;
      const finished = report?.finished_at ? (Date.parse(report.finished_at) - Date.parse(report.created_at)) / 1000 : null;
      return this.page(ctx, 'report', {
        title: `Report · ${campaign.title}`,
        campaign,
        report,
        totalSeconds: finished,
        generatingStates: GENERATING_STATES,
      });
    },
  },

  /** The campaign's webhook deliveries, each attempt, and Redeliver with the allowance left. */
  campaignWebhooks: {
    visibility: 'published',
    dashboard: { access: 'session' },
    params: idParams,
    async handler(this: DashboardThis, ctx: Ctx<IdParams>): Promise<string> {
      const flash = await this.takeFlash(ctx);
      return this.webhooksPage(ctx, ctx.params.id, { notice: flash?.notice, error: flash?.error });
    },
  },

  redeliverWebhook: {
    visibility: 'published',
    dashboard: { access: 'session', write: true },
    params: idParams,
    async handler(this: DashboardThis, ctx: Ctx<IdParams>): Promise<string> {
      const id = ctx.params.id;
      try {
        const result = await call(ctx, 'campaigns.redeliverWebhook', { id });
        return this.redirectWithFlash(ctx, `${campaignPath(id)}/webhooks`, { notice: sentAgainWords(result.redeliveries_left) });
      } catch (err) {
        const refusal = formRefusal(err);
        if (refusal.status === 404) throw err;
        return this.redirectWithFlash(ctx, `${campaignPath(id)}/webhooks`, { error: refusal.message });
      }
    },
  },
};

export const campaignPageMethods = {
  newCampaignPage(ctx: Ctx, form: PostedForm | undefined, error?: string, status = 200) {
    return this.page(ctx, 'new-campaign', { title: 'New campaign', nav: 'new', error, sections: createFormView(form) }, status);
  },

  async webhooksPage(ctx: Ctx, id: string, messages: { notice?: string; error?: string }, status = 200) {
    const campaign = await call(ctx, 'campaigns.get', { id });
    // The campaign is the caller's (campaigns.get above); the dispatcher reads only its rows of the caller's organization.
    const deliveries = await call(ctx, 'webhooks.deliveries', { campaign_id: campaign.campaign_id, org_id: ctx.meta.session!.org_id });
    return this.page(
      ctx,
      'webhooks',
      { title: `Webhooks · ${campaign.title}`, campaign, ...deliveries, generating: isGenerating(campaign.status), ...messages },
      status,
    );
  },
} satisfies Pick<DashboardMethods, 'newCampaignPage' | 'webhooksPage'> & ThisType<DashboardThis>;
