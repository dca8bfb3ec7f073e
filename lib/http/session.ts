/**
 * Dashboard sign-in: passwords as argon2id (@node-rs/argon2, OWASP's parameters), session tokens
 * (32 random bytes, only their SHA-256 stored) and the CSRF synchronizer token bound to a session.
 */
import crypto from 'node:crypto';
import { Algorithm, hash, verify } from '@node-rs/argon2';
import type { PlanLimits } from '../../config/plans';
import { API_SCOPES, type AuthContext } from './auth';

/** What the gateway learns from a dashboard request (services/api.service.ts, the /dashboard route). */
export interface DashboardHttp {
  sessionToken?: string;
  signInNonce?: string;
  csrfHeader?: string;
  /** The one-time flash's id (lib/dashboard/flash.ts), from its cookie. */
  flashId?: string;
  /** The request is answered as JSON (the status polls), not as a page: its errors too. */
  json?: boolean;
  ip: string;
  secure: boolean;
}

/** A signed-in user's session as accounts.session answers it: who, their role, and their organization's plan. */
export interface SessionInfo {
  session_id: string;
  user_id: string;
  email: string;
  role: string;
  org_id: string;
  org_name: string;
  plan: string;
  limits: PlanLimits;
}

/**
 * The signed-in user's organization as the owners' actions know callers: the same shape an API key gives, with every
 * scope (a user acts in the dashboard as a full key would), so the broker's rules (mixins/action-rules.ts) are one.
 */
export function authOfSession(session: SessionInfo): AuthContext {
  return {
    orgId: session.org_id,
    keyId: `session:${session.session_id}`,
    plan: session.plan,
    scopes: [...API_SCOPES],
    limits: {
      campaignsPerMonth: session.limits.campaignsPerMonth,
      languagesPerCampaign: session.limits.languagesPerCampaign,
      ratePerMinute: session.limits.ratePerMinute,
      apiAccess: session.limits.apiAccess,
      batchItems: session.limits.batchItems,
      variantsPerCampaign: session.limits.variantsPerCampaign,
    },
  };
}

/** OWASP's argon2id baseline: 19 MiB, 2 passes, 1 lane. */
const ARGON2 = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 200;
export const SESSION_COOKIE = 'cv_session';

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2);
}

/** False for a wrong password and for a stored hash that cannot be read. */
export async function verifyPassword(encoded: string, password: string): Promise<boolean> {
  try {
    return await verify(encoded, password);
  } catch {
    return false;
  }
}

/** The cookie's value: 32 random bytes, base64url. */
export function generateSessionToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

export const SESSION_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** Only this is stored: a database read gives no usable cookie. */
export function hashSessionToken(token: string): string {
  return crypto.createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The CSRF token of a session: HMAC of its id under a key derived from the signing key, so it is stable per session. */
export function csrfToken(signingKey: Buffer, sessionId: string): string {
  const key = crypto.createHmac('sha256', signingKey).update('dashboard-csrf').digest();
  return crypto.createHmac('sha256', key).update(sessionId).digest('base64url');
}

export function sameToken(expected: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

/** `Set-Cookie` for the session (Secure when the dashboard is reached over https). */
export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure ? '; Secure' : ''}`;
}

/** The named cookie of a `Cookie` header (RFC 6265 §5.4 pairs), or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === name) return pair.slice(eq + 1).trim();
  }
  return undefined;
}
