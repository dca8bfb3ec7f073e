/**
 * Cancel reaches the work in flight (decisions §11): the campaign actor broadcasts `campaigns.canceled` after it
 * failed the campaign with `canceled` — or for any other reason while it generated (timed out, or one language's lane
 * failed while the others ran: their work is for nothing, decisions §3) — and every service with this mixin, on every
 * node, aborts the signal of that campaign's work. A stage takes a watch when it starts a campaign's work, checks the signal between its steps or
 * hands it on (the renderer kills its child processes with it), and lets the watch go when done.
 *
 * A campaign canceled a moment before its work starts here is remembered for a few minutes, so that work stops at
 * once. A node that misses the broadcast (Redis down at that instant) finishes the step; the actor records
 * nothing of it, as the campaign is already failed.
 */
import type { Context, Service, ServiceSchema } from 'moleculer';
import { CampaignCanceledError } from '../lib/errors';

/** The broadcast that stops a campaign's work: named for the cancel that first sent it, kept so for nodes of either version. */
export const CAMPAIGN_WORK_STOPS = 'campaigns.canceled';

/** `campaigns.canceled`'s payload. */
export interface CampaignCanceledEvent {
  campaign_id: string;
}

/** A stage's hold on one campaign's cancel signal. */
export interface CancelWatch {
  /** Aborted, with a CampaignCanceledError as its reason, when the campaign is canceled. */
  signal: AbortSignal;
  /** The work is over: the watch is let go. */
  done(): void;
}

export interface CancelableMethods {
  watchCancel(campaignId: string): CancelWatch;
}

interface CancelableLocalVars {
  /** Each campaign worked on here: its controller and how many watches hold it. */
  cancelWatches: Map<string, { controller: AbortController; holders: number }>;
  /** Campaigns canceled lately, with when: work that starts after the broadcast is stopped at once. */
  recentlyCanceled: Map<string, number>;
}

type CancelableThis = Service & CancelableMethods & CancelableLocalVars;

/** How long a cancel is remembered for work that had not started yet. */
const REMEMBER_MS = 10 * 60_000;

export const CancelableMixin: Partial<ServiceSchema> = {
  created(this: Service) {
    const self = this as CancelableThis;
    self.cancelWatches = new Map();
    self.recentlyCanceled = new Map();
  },

  events: {
    [CAMPAIGN_WORK_STOPS](this: CancelableThis, ctx: Context<CampaignCanceledEvent>) {
      const campaignId = ctx.params.campaign_id;
      const now = Date.now();
      for (const [id, at] of this.recentlyCanceled) if (now - at > REMEMBER_MS) this.recentlyCanceled.delete(id);
      this.recentlyCanceled.set(campaignId, now);
      this.cancelWatches.get(campaignId)?.controller.abort(new CampaignCanceledError(campaignId));
    },
  },

  methods: {
    watchCancel(this: CancelableThis, campaignId: string): CancelWatch {
      let entry = this.cancelWatches.get(campaignId);
      if (!entry) {
        entry = { controller: new AbortController(), holders: 0 };
        this.cancelWatches.set(campaignId, entry);
        const at = this.recentlyCanceled.get(campaignId);
        if (at !== undefined && Date.now() - at <= REMEMBER_MS) entry.controller.abort(new CampaignCanceledError(campaignId));
      }
      entry.holders += 1;
      const held = entry;
      let released = false;
      return {
        signal: held.controller.signal,
        done: () => {
          if (released) return;
          released = true;
          held.holders -= 1;
          if (held.holders === 0 && this.cancelWatches.get(campaignId) === held) this.cancelWatches.delete(campaignId);
        },
      };
    },
  },
};
