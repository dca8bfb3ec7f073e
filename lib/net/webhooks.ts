/**
 * Webhook events (campaign-api.md §6, decisions §9): the signature, the headers, and one delivery attempt.
 * An attempt connects only to an address the net guard allows, checked at connection time (decisions §7);
 * it never follows a redirect, has one deadline for the whole exchange, and reads at most a little of the
 * answer, which is never shown to the customer.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { AddressBlockedError, assertAllowedHostLiteral, guardedLookup, type GuardOptions } from './net-guard';

/** A campaign's terminal events (contract §6): one per campaign, the one redelivery sends again. */
export const CAMPAIGN_EVENT_TYPES = ['campaign.completed', 'campaign.failed'] as const;
/**
 * The events a campaign's webhook_url can be sent, the ones a create's `webhook_events` may list (decisions §15): the
 * campaign's terminal events, an edited video's re-render finished or failed (decisions §12), and, opted into, each
 * video of the campaign's render as soon as it is ready (decisions §15); the last two are extensions.
 */
export const CAMPAIGN_WEBHOOK_EVENTS = [...CAMPAIGN_EVENT_TYPES, 'video.updated', 'video.ready'] as const;
export type CampaignWebhookEventType = (typeof CAMPAIGN_WEBHOOK_EVENTS)[number];
/** What a campaign created without `webhook_events` is sent: everything but the opt-in video.ready. */
export const DEFAULT_WEBHOOK_EVENTS: readonly CampaignWebhookEventType[] = ['campaign.completed', 'campaign.failed', 'video.updated'];
/** Every event we send: a campaign's, and a batch's whose campaigns all settled (decisions §14, extension) to the batch's own URL. */
export const WEBHOOK_EVENT_TYPES = [...CAMPAIGN_WEBHOOK_EVENTS, 'batch.completed'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Whether a campaign wants `event` at its webhook_url: its `webhook_events` (null: created before they existed, the default). */
export function wantsEvent(
  campaign: { webhook_url: string | null; webhook_events?: readonly string[] | null },
  event: CampaignWebhookEventType,
): boolean {
  return !!campaign.webhook_url && (campaign.webhook_events ?? DEFAULT_WEBHOOK_EVENTS).includes(event);
}

/**
 * video.ready's event id (decisions §15): derived from the video's id and its revision (1, the campaign's render), so the
 * same video can never make two events, however often its ready report arrives. `evt_` + a UUID (decisions §9): the
 * first 16 bytes of SHA-256 of both, with the version 5 (name-based) and variant bits set.
 */
export function videoReadyEventId(videoId: string, revision = 1): string {
  const bytes = crypto.createHash('sha256').update(`video.ready:${videoId.toLowerCase()}:${revision}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `evt_${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Self-serve redelivery (decisions §11): at most this many requests per campaign in any 24 hours, then 429. */
export const WEBHOOK_REDELIVERIES_PER_DAY = 10;
export const REDELIVERY_WINDOW_MS = 24 * 60 * 60_000;

/** webhooks.redeliver's params (the campaign actor has checked the caller owns a terminal campaign) and answer. */
export interface RedeliverParams {
  campaign_id: string;
}
/** webhooks.redeliverEvent's params: one event by its id (a batch's batch.completed, whose batch the campaign actor checked). */
export interface RedeliverEventParams {
  event_id: string;
}
export interface RedeliverResult {
  campaign_id: string;
  event_id: string;
  event: WebhookEventType;
  /** The delivery is due now: the dispatcher sends it at once, signed afresh. */
  status: 'pending';
  /** Redeliveries this campaign has left in the current 24 hours. */
  redeliveries_left: number;
}

export function newEventId(): string {
  return `evt_${crypto.randomUUID()}`;
}

/** Lowercase hex HMAC-SHA256, key = the secret's UTF-8 bytes, message = `${timestamp}.${eventId}.${body}`. */
export function signWebhook(secret: string, timestamp: number, eventId: string, body: string): string {
  return crypto.createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.${eventId}.${body}`, 'utf8').digest('hex');
}

export function webhookHeaders(secret: string, eventId: string, body: string, timestamp: number): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': 'campaign-video-webhooks/1',
    'X-Service-Event-Id': eventId,
    'X-Service-Timestamp': String(timestamp),
    'X-Service-Signature': signWebhook(secret, timestamp, eventId, body),
    'X-Service-Signature-Alg': 'HMAC-SHA256',
  };
}

export interface AttemptOptions {
  guard: GuardOptions;
  /** One deadline for connect, send and answer. */
  timeoutMs: number;
  /** The answer's body is read up to this many bytes, then dropped. */
  maxResponseBytes: number;
}

export interface AttemptResult {
  delivered: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** Sends one POST; resolves (never rejects) with what happened. */
export function attemptDelivery(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: AttemptOptions,
): Promise<AttemptResult> {
  const started = Date.now();
  const done = (statusCode: number | null, error: string | null): AttemptResult => ({
    delivered: error === null && statusCode !== null && statusCode >= 200 && statusCode < 300,
    statusCode,
    error,
    durationMs: Date.now() - started,
  });
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
      const plainHttpAllowed = options.guard.allowLoopback && target.protocol === 'http:';
      if (target.protocol !== 'https:' && !plainHttpAllowed) return resolve(done(null, `scheme ${target.protocol} is not allowed`));
      assertAllowedHostLiteral(target.hostname.replace(/^\[|\]$/g, ''), options.guard);
    } catch (err) {
      return resolve(done(null, describe(err)));
    }
    let settled = false;
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      request.destroy();
      resolve(result);
    };
    const client = target.protocol === 'https:' ? https : http;
    const request = client.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        lookup: guardedLookup(options.guard),
        agent: false,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read >= options.maxResponseBytes) finish(verdict(status));
        });
        response.on('end', () => finish(verdict(status)));
        response.on('error', () => finish(verdict(status)));
      },
    );
    const verdict = (status: number) =>
      status >= 300 && status < 400
        ? done(status, `redirect (${status}) not followed`)
        : done(status, status >= 200 && status < 300 ? null : `answered ${status}`);
    const deadline = setTimeout(() => finish(done(null, `no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    request.on('error', (err) => finish(done(null, describe(err))));
    request.end(body);
  });
}

function describe(err: unknown): string {
  if (err instanceof AddressBlockedError) return `address not allowed: ${err.message}`;
  const e = err as NodeJS.ErrnoException;
  return e.code ? `${e.code}: ${e.message}` : String(e?.message ?? err);
}
