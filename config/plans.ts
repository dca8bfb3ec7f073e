/** The plan table (campaign-api.md §8). The only place plan limits are written down. */
import { isOneOf, VIDEO_VARIANTS } from './catalog';

export const PLAN_NAMES = ['free', 'starter', 'growth', 'business', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface PlanLimits {
  apiAccess: boolean;
  campaignsPerMonth: number;
  languagesPerCampaign: number;
  /** Campaign creations per minute, per organization. */
  ratePerMinute: number;
  maxApiKeys: number;
  /** Items (campaigns) in one POST /api/v1/batches (decisions §14). */
  batchItems: number;
  /** Hook variants per language × platform a campaign may ask for (decisions §15 `variants`). */
  variantsPerCampaign: number;
}

/* One row per plan, read as the table it is. */
// prettier-ignore
export const PLANS: Record<PlanName, PlanLimits> = {
  free: { apiAccess: false, campaignsPerMonth: 0, languagesPerCampaign: 0, ratePerMinute: 0, maxApiKeys: 0, batchItems: 0, variantsPerCampaign: 1 },
  starter: { apiAccess: false, campaignsPerMonth: 0, languagesPerCampaign: 0, ratePerMinute: 0, maxApiKeys: 0, batchItems: 0, variantsPerCampaign: 1 },
  growth: { apiAccess: true, campaignsPerMonth: 40, languagesPerCampaign: 5, ratePerMinute: 10, maxApiKeys: 2, batchItems: 20, variantsPerCampaign: 2 },
  business: { apiAccess: true, campaignsPerMonth: 150, languagesPerCampaign: 8, ratePerMinute: 90, maxApiKeys: 20, batchItems: 100, variantsPerCampaign: 3 },
  /** Enterprise limits are set per organization; these are the starting values. */
  enterprise: { apiAccess: true, campaignsPerMonth: 500, languagesPerCampaign: 8, ratePerMinute: 120, maxApiKeys: 50, batchItems: 100, variantsPerCampaign: 3 },
};

/** Per-organization overrides (enterprise contracts); null keeps the plan's value. */
export interface LimitOverrides {
  campaignsPerMonth?: number | null;
  languagesPerCampaign?: number | null;
  ratePerMinute?: number | null;
  maxApiKeys?: number | null;
}

/** No plan may request more languages than the product supports per campaign. */
export const MAX_LANGUAGES_PER_CAMPAIGN = 8;

/** The most items any plan allows in one batch: the request schema's bound (each plan's own is checked by the actor). */
export const MAX_BATCH_ITEMS = Math.max(...Object.values(PLANS).map((plan) => plan.batchItems));

/** The most hook variants any plan allows: the request schema's bound (each plan's own is checked by the actor). */
export const MAX_VARIANTS = Math.min(VIDEO_VARIANTS.length, Math.max(...Object.values(PLANS).map((plan) => plan.variantsPerCampaign)));

export function isPlanName(value: string): value is PlanName {
  return isOneOf(PLAN_NAMES, value);
}

export function effectiveLimits(plan: PlanName, overrides: LimitOverrides = {}): PlanLimits {
  const base = PLANS[plan];
  const pick = (value: number | null | undefined, fallback: number) => (value == null ? fallback : value);
  return {
    apiAccess: base.apiAccess,
    campaignsPerMonth: pick(overrides.campaignsPerMonth, base.campaignsPerMonth),
    languagesPerCampaign: Math.min(MAX_LANGUAGES_PER_CAMPAIGN, pick(overrides.languagesPerCampaign, base.languagesPerCampaign)),
    ratePerMinute: pick(overrides.ratePerMinute, base.ratePerMinute),
    maxApiKeys: pick(overrides.maxApiKeys, base.maxApiKeys),
    batchItems: base.batchItems,
    variantsPerCampaign: base.variantsPerCampaign,
  };
}
