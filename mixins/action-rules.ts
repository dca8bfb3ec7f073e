/**
 * The rules an action declares (types/moleculer.d.ts) — `dashboard: { access, write }`, `scope`, `rateLimit: 'plan'` —
 * enforced by the broker for every call of the action, whoever makes it: the gateway's API route, the dashboard's pages,
 * the REPL, the admin tool or a later client all meet the same check and the same error, since no door has its own copy.
 *
 * Registered just outside moleculer's validator (broker-options.ts withActionRules), so a caller without the right is
 * refused before its params are read, as the gateway's hook did: a key without the scope gets 403, not a 400 about a
 * field, and an invalid create still counts against the plan's rate.
 *
 * - `dashboard`: the call must come through the gateway's /dashboard route (meta.http); 'session' needs a signed-in
 *   user, whose organization becomes `meta.auth` (authOfSession); `write` needs the CSRF token of the session (or, before
 *   sign-in, of the sign-in form's nonce).
 * - `scope`: a caller carrying a customer's identity (meta.auth) must hold the scope (403 forbidden). A call without one
 *   is the pipeline's or an operator's; the owner's actions scope by organization and refuse a customer call without it.
 * - `rateLimit: 'plan'`: the organization's per-minute budget (429 with Retry-After), counted once per request: a broker
 *   retry or a nested call of the same request is not counted again. The layer's state is left in meta (`planRate`)
 *   for the gateway's X-RateLimit-* headers. A limiter that cannot answer refuses (503): no unmetered traffic.
 */
import type { ActionHandler, ActionSchema, Context, Middleware, Service, ServiceBroker } from 'moleculer';
import { configOf } from '../config';
import type { AuthContext } from '../lib/http/auth';
import { forbidden, serviceUnavailable, TooManyRequestsError, unauthorized } from '../lib/errors';
import {
  createRateLimiter,
  mostConstrained,
  RateLimiterUnavailableError,
  type LayerState,
  type RateLimiter,
} from '../lib/http/rate-limiter';
import { authOfSession, csrfToken, sameToken, SESSION_TOKEN_PATTERN, type DashboardHttp, type SessionInfo } from '../lib/http/session';
import { call } from '../lib/net/calls';
import { loadSigningKey } from '../lib/storage/file-links';

/** The meta these rules read and write; every service's meta type that meets them extends it. */
export interface RulesMeta {
  /** The customer the call acts for: an API key's organization (the gateway) or a signed-in user's (the dashboard). */
  auth?: AuthContext;
  /** What the gateway's /dashboard route learned from the HTTP request. */
  http?: DashboardHttp;
  /** The signed-in user (a dashboard action with access 'session'). */
  session?: SessionInfo;
  /** The plan layer's state once this request was counted, for the gateway's X-RateLimit-* headers. */
  planRate?: LayerState;
  /** The request id the plan's rate already counted. */
  planRateCountedFor?: string;
}

/** Where the session token goes once checked: the handler's locals, never a later call's meta. */
export const SESSION_TOKEN_LOCAL = 'sessionToken';

/** The name moleculer knows the middleware by (broker-options.ts places it by this name's position). */
export const ACTION_RULES = 'ActionRules';

type Ctx = Context<{ _csrf?: unknown } | undefined, RulesMeta>;

/** The broker's `accounts.session` for a token, as the dashboard's access rule needs it. */
function sessionOf(ctx: Ctx, token: string): Promise<SessionInfo | null> {
  return call(ctx, 'accounts.session', { token });
}

/** One broker's limiter and signing key, made on first use (a node without such actions opens no Redis connection). */
class BrokerRules {
  private limiter?: RateLimiter;
  private signingKey?: Buffer;

  constructor(private readonly broker: ServiceBroker) {}

  private get limiterInUse(): RateLimiter {
    const config = configOf(this.broker);
    return (this.limiter ??= createRateLimiter({
      redisUrl: config.redisUrl,
      prefix: `${config.redisPrefix}rl:`,
      windowMs: config.rateLimits.windowMs,
      commandTimeoutMs: config.rateLimits.redisTimeoutMs,
    }));
  }

  private get key(): Buffer {
    return (this.signingKey ??= loadSigningKey(configOf(this.broker)));
  }

  async checkDashboardAccess(ctx: Ctx, rule: NonNullable<ActionSchema['dashboard']>): Promise<void> {
    const http = ctx.meta.http;
    if (!http) throw forbidden('The dashboard is reached through the gateway.');
    // The token stays on this node, with this call: later calls carry the organization (meta.auth), never the cookie.
    const token = http.sessionToken;
    ctx.locals[SESSION_TOKEN_LOCAL] = token;
    delete http.sessionToken;
    const given = http.csrfHeader ?? ctx.params?._csrf;
    if (rule.access === 'public') {
      if (rule.write && !(http.signInNonce && sameToken(csrfToken(this.key, `sign-in:${http.signInNonce}`), given)))
        throw forbidden('This form has expired. Reload the page and try again.');
      return;
    }
    const session = token && SESSION_TOKEN_PATTERN.test(token) ? await sessionOf(ctx, token) : null;
    if (!session) throw unauthorized('Sign in to continue.');
    ctx.meta.session = session;
    ctx.meta.auth = authOfSession(session);
    if (rule.write && !sameToken(csrfToken(this.key, session.session_id), given))
      throw forbidden('This form has expired or did not come from this dashboard. Reload the page and try again.');
  }

  async countPlanRate(ctx: Ctx, auth: AuthContext): Promise<void> {
    if (ctx.requestID && ctx.meta.planRateCountedFor === ctx.requestID) return;
    let decision;
    try {
      decision = await this.limiterInUse.check([{ key: `plan:${auth.orgId}`, limit: Math.max(1, auth.limits.ratePerMinute) }]);
    } catch (err) {
      if (err instanceof RateLimiterUnavailableError) {
        this.broker.logger.warn(`rate limiter unavailable, refusing ${ctx.action?.name ?? 'the call'}: ${err.message}`);
        throw serviceUnavailable('Rate limiting is unavailable, and the API refuses unmetered traffic. Retry with backoff.');
      }
      throw err;
    }
    if (ctx.requestID) ctx.meta.planRateCountedFor = ctx.requestID;
    ctx.meta.planRate = mostConstrained(decision.layers);
    if (!decision.allowed) throw new TooManyRequestsError(Math.max(1, decision.retryAfterSeconds));
  }

  async close(): Promise<void> {
    await this.limiter?.close();
  }
}

const rulesByBroker = new WeakMap<ServiceBroker, BrokerRules>();
function rulesOf(broker: ServiceBroker): BrokerRules {
  let rules = rulesByBroker.get(broker);
  if (!rules) rulesByBroker.set(broker, (rules = new BrokerRules(broker)));
  return rules;
}

/** One object for every broker (moleculer hands each hook its broker); the state is per broker (rulesOf). */
export const ActionRulesMiddleware: Middleware = {
  name: ACTION_RULES,
  localAction(this: ServiceBroker, next: ActionHandler, action: ActionSchema): ActionHandler {
    const { dashboard, scope, rateLimit } = action;
    if (!dashboard && !scope && !rateLimit) return next;
    const rules = rulesOf(this);
    return async function enforceActionRules(this: Service, ctx: Ctx) {
      if (dashboard) await rules.checkDashboardAccess(ctx, dashboard);
      const auth = ctx.meta.auth;
      if (auth) {
        if (scope && !auth.scopes.includes(scope)) throw forbidden(`This API key lacks the ${scope} scope. Create a new key to obtain it.`);
        if (rateLimit === 'plan') await rules.countPlanRate(ctx, auth);
      }
      return next.call(this, ctx) as unknown;
    } as ActionHandler;
  },
  async stopped(broker: ServiceBroker) {
    await rulesByBroker.get(broker)?.close();
    rulesByBroker.delete(broker);
  },
};

/**
 * Moleculer's own middlewares with ActionRules placed just outside its validator. Moleculer wraps an action in the
 * order middlewares are listed (the first innermost) and lists a user's before its own, which would put the rules
 * inside the validator; so the broker's list is written out here, from moleculer's own (ServiceBroker.INTERNAL_MIDDLEWARES).
 */
export function withActionRules(internal: readonly string[]): (Middleware | string)[] {
  const at = internal.indexOf('Validator');
  if (at < 0) throw new Error("moleculer's internal middlewares no longer name 'Validator'");
  return [...internal.slice(0, at + 1), ActionRulesMiddleware, ...internal.slice(at + 1)];
}
