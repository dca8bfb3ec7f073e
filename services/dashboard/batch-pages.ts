/**
 * The dashboard's batches (decisions §14): New batch from pasted page URLs or a CSV file with shared defaults, a
 * preview of its rows with each one's refusal in words before anything is created (the campaign actor's own checks,
 * campaigns.checkBatch: no page loaded), then "Create N campaigns" through campaigns.createBatch itself, as
 * POST /api/v1/batches (the same quota, plan item limit and rate); the batch's page with its progress, live while a
 * campaign is generating; the list of batches, newest first. A module of the `dashboard` service (spread into
 * services/dashboard.service.ts); every form answers 303 with its words in a flash (post/redirect/get).
 */
import { isGenerating, SETTLED_STATES } from '../../lib/campaign/states';
import {
  BATCH_DEFAULT_FIELDS,
  batchItems,
  CsvError,
  readBatchDefaults,
  readBatchRows,
  rowRefusal,
  rowsAsCsv,
  type BatchRow,
} from '../../lib/dashboard/batch-form';
import { createFormView, type PostedForm } from '../../lib/dashboard/create-form';
import { flashCookie } from '../../lib/dashboard/flash';
import { formRefusal } from '../../lib/dashboard/form-errors';
import { batchCountsWords, sentAgainWords, stateLabel } from '../../lib/dashboard/words';
import { call } from '../../lib/net/calls';
import { csrfField, type CsrfParams, type Ctx, type DashboardActionSchemas, type DashboardThis } from './types';

interface BatchForm extends CsrfParams {
  rows?: string;
  file?: string;
  languages?: string | string[];
  platforms?: string | string[];
  variants?: string;
  quality?: string;
  /** The batch's own webhook_url (batch.completed), not the items'. */
  webhook_url?: string;
}
interface IdParams {
  id: string;
}

const NEW_BATCH = '/dashboard/batches/new';
const batchPath = (id: string) => `/dashboard/batches/${encodeURIComponent(id)}`;
const choices = {
  anyOf: [
    { type: 'string', maxLength: 64 },
    { type: 'array', maxItems: 64, items: { type: 'string', maxLength: 64 } },
  ],
};
/** The text of the rows: a file's whole CSV (the gateway reads at most 1 MiB of a form). */
const formParams = {
  rows: { type: 'string', maxLength: 1024 * 1024 },
  file: { type: 'string', maxLength: 1024 * 1024 },
  languages: choices,
  platforms: choices,
  variants: { type: 'string', maxLength: 8 },
  quality: { type: 'string', maxLength: 64 },
  webhook_url: { type: 'string', maxLength: 2048 },
  ...csrfField,
} as const;
const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 200 } } } as const;

/** The defaults' fields and the batch's webhook URL as posted, kept in the flash beside the rows and sent on by Create. */
function keptDefaults(form: BatchForm): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const name of BATCH_DEFAULT_FIELDS) {
    const value = form[name];
    if (value !== undefined) kept[name] = value;
  }
  if (form.webhook_url?.trim()) kept.webhook_url = form.webhook_url.trim();
  return kept;
}

/**
 * An API refusal naming an item ("items[2].url: …") said by the row's number ("Row 3: Url: …"); one about the items
 * as a whole ("items: the growth plan allows …") said as a sentence of its own.
 */
function rowWords(message: string): string {
  const named = /^items\[(\d+)\]\.?\s*(.*)$/s.exec(message);
  if (named) return rowRefusal({ number: Number(named[1]) + 1 }, named[2]);
  const whole = /^items: (.*?)\.?$/s.exec(message);
  return whole ? `${whole[1].charAt(0).toUpperCase()}${whole[1].slice(1)}.` : message;
}

/** Each campaign's live figures as the campaigns list's poller reads them (lib/dashboard/static/dashboard.js). */
function liveCampaigns(list: Array<{ campaign_id: string; status: string; progress: number }>) {
  return list.map((c) => ({ campaign_id: c.campaign_id, status: c.status, status_label: stateLabel(c.status), progress: c.progress }));
}

/** A batch's progress: the mean of its campaigns' (a settled one counts as done), and its counts in words. */
function batchSummary(counts: Record<string, number>, campaigns: Array<{ status: string; progress: number }>) {
  const settled = campaigns.filter((c) => (SETTLED_STATES as readonly string[]).includes(c.status)).length;
  const progress = campaigns.length
    ? Math.round(
        campaigns.reduce((sum, c) => sum + ((SETTLED_STATES as readonly string[]).includes(c.status) ? 100 : c.progress), 0) /
          campaigns.length,
      )
    : 100;
  return { counts_words: batchCountsWords(counts), settled, total: campaigns.length, progress };
}

export const batchPageActions: DashboardActionSchemas = {
  /** The batches, newest first, in pages of 20 (the API's keyset cursor). */
  batches: {
    visibility: 'published',
    dashboard: { access: 'session' },
    params: { type: 'object', properties: { after: { type: 'string', maxLength: 200 } } },
    async handler(this: DashboardThis, ctx: Ctx<{ after?: string }>): Promise<string> {
      const list = await call(ctx, 'campaigns.listBatches', { limit: 20, ...(ctx.params.after ? { cursor: ctx.params.after } : {}) });
      return this.page(ctx, 'batches', {
        title: 'Batches',
        nav: 'batches',
        batches: list.batches.map((b) => ({
          ...b,
          summary: batchSummary(
            b.counts,
            b.campaigns.map((c) => ({ ...c, progress: 0 })),
          ),
        })),
        next: list.next_cursor ? `/dashboard/batches?${new URLSearchParams({ after: list.next_cursor })}` : null,
      });
    },
  },

  /** New batch: the form; after Preview (its flash) the rows with their refusals, and Create when every row is valid. */
  newBatch: {
    visibility: 'published',
    dashboard: { access: 'session' },
    async handler(this: DashboardThis, ctx: Ctx): Promise<string> {
      const flash = await this.takeFlash(ctx);
      const form = (flash?.form ?? undefined) as BatchForm | undefined;
      // The form as previewed is kept for another read, so a reload (or a second look) shows the same preview.
      const scope = this.flashScope(ctx);
      if (form && scope)
        this.addCookie(ctx, flashCookie(await this.flashes.put(scope, { form: flash!.form }), Boolean(ctx.meta.http?.secure)));
      let preview: Record<string, unknown> | undefined;
      let error = flash?.error;
      if (form?.rows && !error) {
        try {
          const rows = readBatchRows(form.rows);
          const { defaults } = readBatchDefaults(form as PostedForm);
          const readable = rows.filter((row) => !row.error);
          const { errors } = readable.length
            ? await call(ctx, 'campaigns.checkBatch', { items: batchItems(readable), defaults })
            : { errors: [] as Array<string | null> };
          const checked = rows.map((row): BatchRow & { refusal?: string } => {
            const at = readable.indexOf(row);
            const refusal = row.error ?? (at >= 0 ? errors[at] : null);
            return refusal ? { ...row, refusal: rowRefusal(row, refusal) } : row;
          });
          const refused = checked.filter((row) => row.refusal);
          preview = { rows: checked, refused, csv: rowsAsCsv(rows), defaults: keptDefaults(form) };
        } catch (err) {
          // The whole refused (a broken CSV, the plan's items per batch): said above the form.
          if (err instanceof CsvError) error = err.message;
          else error = rowWords(formRefusal(err).message);
        }
      }
      return this.page(ctx, 'new-batch', {
        title: 'New batch',
        nav: 'batches',
        error,
        rowsText: form?.rows ?? '',
        webhookUrl: form?.webhook_url ?? '',
        defaults: createFormView(form as PostedForm | undefined)
          .flatMap((section) => section.fields)
          .filter((field) => (BATCH_DEFAULT_FIELDS as readonly string[]).includes(field.name)),
        preview,
      });
    },
  },

  /** Preview: the rows (a chosen file replaces the pasted text) and the defaults, kept for the form's next showing. */
  previewBatch: {
    visibility: 'published',
    dashboard: { access: 'session', write: true },
    params: { type: 'object', properties: formParams },
    async handler(this: DashboardThis, ctx: Ctx<BatchForm>): Promise<string> {
      const rows = ctx.params.file?.trim() ? ctx.params.file : (ctx.params.rows ?? '');
      const form = { rows, ...keptDefaults(ctx.params) };
      const { error } = readBatchDefaults(ctx.params as PostedForm);
      if (error) return this.redirectWithFlash(ctx, NEW_BATCH, { error, form });
      try {
        readBatchRows(rows);
      } catch (err) {
        if (!(err instanceof CsvError)) throw err;
        return this.redirectWithFlash(ctx, NEW_BATCH, { error: err.message, form });
      }
      return this.redirectWithFlash(ctx, `${NEW_BATCH}#preview`, { form });
    },
  },

  /** Create: campaigns.createBatch itself (POST /api/v1/batches): refused whole or made whole, its refusal in words. */
  createBatch: {
    visibility: 'published',
    dashboard: { access: 'session', write: true },
    params: { type: 'object', properties: formParams },
    async handler(this: DashboardThis, ctx: Ctx<BatchForm>): Promise<string> {
      const text = ctx.params.rows ?? '';
      const form = { rows: text, ...keptDefaults(ctx.params) };
      const refused = (error: string) => this.redirectWithFlash(ctx, NEW_BATCH, { error, form });
      const { defaults, error } = readBatchDefaults(ctx.params as PostedForm);
      if (error) return refused(error);
      let rows: BatchRow[];
      try {
        rows = readBatchRows(text);
      } catch (err) {
        if (!(err instanceof CsvError)) throw err;
        return refused(err.message);
      }
      const unreadable = rows.find((row) => row.error);
      if (unreadable) return refused(rowRefusal(unreadable, unreadable.error!));
      try {
        const webhookUrl = ctx.params.webhook_url?.trim();
        const created = await call(ctx, 'campaigns.createBatch', {
          items: batchItems(rows),
          defaults,
          ...(webhookUrl ? { webhook_url: webhookUrl } : {}),
        });
        const n = created.campaigns.length;
        return await this.redirectWithFlash(ctx, batchPath(created.batch_id), {
          notice: `${n} ${n === 1 ? 'campaign' : 'campaigns'} created. Their videos are being made.`,
        });
      } catch (err) {
        return refused(rowWords(formRefusal(err, (wait) => `Too many requests this minute on your plan. Try again in ${wait} s.`).message));
      }
    },
  },

  /** A batch: its progress, and its campaigns with their status and progress. */
  batch: {
    visibility: 'published',
    dashboard: { access: 'session' },
    params: idParams,
    async handler(this: DashboardThis, ctx: Ctx<IdParams>): Promise<string> {
      const batch = await call(ctx, 'campaigns.getBatch', { id: ctx.params.id });
      const list = await call(ctx, 'campaigns.browse', { batch_id: batch.batch_id, per_page: 100 });
      return this.page(ctx, 'batch', {
        title: `Batch of ${batch.campaigns.length}`,
        nav: 'batches',
        batch,
        campaigns: list.campaigns,
        summary: batchSummary(batch.counts, list.campaigns),
        generating: list.campaigns.some((c) => isGenerating(c.status)),
      });
    },
  },

  /**
   * Redeliver on the batch's page: campaigns.redeliverBatchWebhook (the API's POST /api/v1/batches/{id}/webhook/redeliver),
   * its batch.completed sent again; its refusals (not complete, no webhook URL, the day's allowance) in words.
   */
  redeliverBatchWebhook: {
    visibility: 'published',
    dashboard: { access: 'session', write: true },
    params: idParams,
    async handler(this: DashboardThis, ctx: Ctx<IdParams>): Promise<string> {
      const id = ctx.params.id;
      try {
        const result = await call(ctx, 'campaigns.redeliverBatchWebhook', { id });
        return await this.redirectWithFlash(ctx, batchPath(id), { notice: sentAgainWords(result.redeliveries_left, 'batch.completed') });
      } catch (err) {
        const refusal = formRefusal(err);
        if (refusal.status === 404) throw err;
        return this.redirectWithFlash(ctx, batchPath(id), { error: refusal.message });
      }
    },
  },

  /** What the batch page polls: its summary and each campaign's status and progress. */
  batchStatus: {
    visibility: 'published',
    dashboard: { access: 'session' },
    params: idParams,
    async handler(this: DashboardThis, ctx: Ctx<IdParams>): Promise<Record<string, unknown>> {
      const batch = await call(ctx, 'campaigns.getBatch', { id: ctx.params.id });
      const list = await call(ctx, 'campaigns.browse', { batch_id: batch.batch_id, per_page: 100 });
      ctx.meta.$statusCode = 200;
      return { summary: batchSummary(batch.counts, list.campaigns), campaigns: liveCampaigns(list.campaigns) };
    },
  },
};
