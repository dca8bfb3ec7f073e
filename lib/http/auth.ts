/** API keys (campaign-api.md §5, decisions.md §6): format, hashing, scopes. */
import crypto from 'node:crypto';
import { isOneOf } from '../../config/catalog';

export const API_SCOPES = ['campaigns:create', 'campaigns:read', 'reports:read'] as const;
export type ApiScope = (typeof API_SCOPES)[number];
export const KEY_PATTERN = /^sk_live_[0-9a-f]{32}$/;
export const USER_ROLES = ['owner', 'admin', 'member'] as const;
export type UserRole = (typeof USER_ROLES)[number];

export function isApiScope(value: string): value is ApiScope {
  return isOneOf(API_SCOPES, value);
}

export function generateApiKey(): string {
  return `sk_live_${crypto.randomBytes(16).toString('hex')}`;
}

/** Only this hash is stored; the key itself is shown once. */
export function hashApiKey(key: string): string {
  return crypto.createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Enough to recognise a key in a list, far too little to use it. */
export function displayPrefix(key: string): string {
  return key.slice(0, 12);
}

export function generateWebhookSecret(): string {
  return `whsec_${crypto.randomBytes(32).toString('hex')}`;
}

/** Authorization: Bearer wins over X-API-Key when both are sent. Returns undefined when neither header is present. */
export function keyFromHeaders(headers: Record<string, string | string[] | undefined>): string | undefined {
  const authorization = headerValue(headers.authorization);
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return match ? match[1] : '';
  }
  return headerValue(headers['x-api-key'])?.trim();
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** What the gateway knows about the caller once the key checks out. */
export interface AuthContext {
  orgId: string;
  keyId: string;
  scopes: ApiScope[];
  plan: string;
  limits: {
    campaignsPerMonth: number;
    languagesPerCampaign: number;
    ratePerMinute: number;
    apiAccess: boolean;
    batchItems: number;
    variantsPerCampaign: number;
  };
}
