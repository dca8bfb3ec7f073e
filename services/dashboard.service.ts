/**
 * The dashboard: server-rendered pages for an organization's users under /dashboard on the gateway.
 * Every page acts through the owners' actions with the signed-in user's organization as `meta.auth`, exactly as
 * an API key's call would (campaigns.create, get, publish, browse, usage, timeline; accounts.* for keys and the
 * webhook secret), so validation, quota, scope and plan rate are the API's own. Each action declares its access
 * (`dashboard: { access, write }`); the broker's action rules (mixins/action-rules.ts) resolve the session and check
 * the CSRF token, before the action's params are read. The scene editor (campaigns.videoDocument, editVideo) is its own
 * module, services/dashboard/editor.ts, and so are the account's pages (usage, people, an invitation, the user's
 * password), services/dashboard/account-pages.ts, and so are batches, services/dashboard/batch-pages.ts; the types the parts share are in services/dashboard/types.ts.
 * Every form answers 303 (post/redirect/get); what it has to say goes through a one-time server-side flash
 * (lib/dashboard/flash.ts, `redirectWithFlash`), so a reload or back-navigation never sends it again nor shows a secret.
 */
import { UUID_ANY_CASE } from '../lib/ids';
import crypto from 'node:crypto';
import type { ServiceSchema } from 'moleculer';
import { configOf } from '../config';
import { isOneOf } from '../config/catalog';
import { API_SCOPES } from '../lib/http/auth';
import { CAMPAIGN_STATES } from '../lib/campaign/states';
import { errorHeading, loadStaticFiles, renderView, sameOriginLink } from '../lib/dashboard/render';
import { clearedFlashCookie, createFlashStore, flashCookie, type Flash } from '../lib/dashboard/flash';
import { forbidden, invalidInput, notFound, serviceUnavailable, toErrorResponse } from '../lib/errors';
import { refusalWords } from '../lib/dashboard/form-errors';
import { stateLabel } from '../lib/dashboard/words';
import { createRateLimiter, RateLimiterUnavailableError, type LayerCheck } from '../lib/http/rate-limiter';
import { SESSION_TOKEN_LOCAL } from '../mixins/action-rules';
import { clearedSessionCookie, csrfToken, generateSessionToken, sessionCookie, SESSION_TOKEN_PATTERN } from '../lib/http/session';
import { call } from '../lib/net/calls';
import { loadSigningKey } from '../lib/storage/file-links';
import { editorActions, editorMethods } from './dashboard/editor';
import { accountActions } from './dashboard/account-pages';
import { campaignPageActions, campaignPageExtras, campaignPageMethods, campaignVariants } from './dashboard/campaign-pages';
import { batchPageActions } from './dashboard/batch-pages';
import {
  csrfField,
  type CsrfParams,
  type Ctx,
  type DashboardLocalVars,
  type DashboardMethods,
  type DashboardSettings,
  type DashboardThis,
  type FormList,
} from './dashboard/types';

export type { DashboardHttp, DashboardMeta } from './dashboard/types';

interface SignInForm extends CsrfParams {
  email?: string;
  password?: string;
}
interface ListQuery {
  status?: string;
  page?: string;
}
interface IdParams extends CsrfParams {
  id: string;
}
interface KeyForm extends CsrfParams {
  name?: string;
  scopes?: FormList;
}
const SIGN_IN_COOKIE = 'cv_signin';
/** Where the request's flash id goes once read from its cookie: the handler's locals, never a later call's meta. */
const FLASH_ID_LOCAL = 'flashId';
/** Each request's flash once taken (read once, shown by whichever page renders), and the answers that set the nonce cookie. */
const takenFlashes = new WeakMap<Ctx, Flash | null>();
const nonceCookieSet = new WeakSet<Ctx>();
const PER_PAGE = 20;

const formList = {
  anyOf: [
    { type: 'string', maxLength: 2048 },
    { type: 'array', maxItems: 64, items: { type: 'string', maxLength: 64 } },
  ],
};
const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 200 }, ...csrfField } } as const;

/** The session cookie's token, which the action rules moved from meta into this call's locals. */
function sessionTokenOf(ctx: Ctx): string | undefined {
  const token: unknown = ctx.locals[SESSION_TOKEN_LOCAL];
  return typeof token === 'string' ? token : undefined;
}

function listOf(value: FormList | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).filter((item) => item !== '');
}
function optional(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

const DashboardService: ServiceSchema<DashboardSettings, DashboardMethods, DashboardLocalVars> = {
  name: 'dashboard',

  created() {
    const config = configOf(this.broker);
    this.limiter = createRateLimiter({
      redisUrl: config.redisUrl,
      prefix: `${config.redisPrefix}rl:`,
      windowMs: config.rateLimits.windowMs,
      commandTimeoutMs: config.rateLimits.redisTimeoutMs,
    });
    this.signingKey = loadSigningKey(config);
    this.staticFiles = loadStaticFiles();
    this.flashes = createFlashStore({ redisUrl: config.redisUrl, prefix: `${config.redisPrefix}flash:` });
  },

  async stopped() {
    await this.limiter?.close();
    await this.flashes?.close();
  },

  hooks: {
    before: {
      /** The flash's id stays with this call (as the session token does): later calls' meta never carries it. */
      '*'(ctx: Ctx) {
        if (!ctx.meta.http) return;
        ctx.locals[FLASH_ID_LOCAL] = ctx.meta.http.flashId;
        delete ctx.meta.http.flashId;
      },
    },
    // A method named here, as moleculer allows: its types say an error hook answers nothing, and this one answers the page.
    error: { '*': 'refusalAsPage' },
  },

  actions: {
    asset: {
      visibility: 'published',
      dashboard: { access: 'public' },
      params: { type: 'object', required: ['file'], properties: { file: { type: 'string', maxLength: 100 } } },
      handler(this: DashboardThis, ctx: Ctx<{ file: string }>): Buffer {
        const file = this.staticFiles.get(ctx.params.file);
        if (!file) throw notFound('No such file.');
        ctx.meta.$responseType = file.type;
        ctx.meta.$responseHeaders = { 'Cache-Control': 'public, max-age=3600' };
        return file.body;
      },
    },

    home: {
      visibility: 'published',
      dashboard: { access: 'public' },
      handler(this: DashboardThis, ctx: Ctx): string {
        return this.redirect(ctx, sessionTokenOf(ctx) ? '/dashboard/campaigns' : '/dashboard/sign-in');
      },
    },

    signInPage: {
      visibility: 'published',
      dashboard: { access: 'public' },
      async handler(this: DashboardThis, ctx: Ctx): Promise<string> {
        const token = sessionTokenOf(ctx);
        if (token && SESSION_TOKEN_PATTERN.test(token)) {
          const session = await call(ctx, 'accounts.session', { token });
          if (session) return this.redirect(ctx, '/dashboard/campaigns');
        }
        // After a refused attempt (its flash): the email kept, the focus on the password.
        const flash = await this.takeFlash(ctx);
        const email = typeof flash?.form?.email === 'string' ? flash.form.email : '';
        return this.page(ctx, 'sign-in', { title: 'Sign in', ownBrand: true, email, focusPassword: Boolean(email) });
      },
    },

    signIn: {
      visibility: 'published',
      dashboard: { access: 'public', write: true },
      params: {
        type: 'object',
        properties: { email: { type: 'string', maxLength: 320 }, password: { type: 'string', maxLength: 200 }, ...csrfField },
      },
      async handler(this: DashboardThis, ctx: Ctx<SignInForm>): Promise<string> {
        const http = ctx.meta.http!;
        const email = (ctx.params.email ?? '').trim().toLowerCase();
        const again = (error: string) => this.redirectWithFlash(ctx, '/dashboard/sign-in', { error, form: { email } });
        if (!email || !ctx.params.password) return again('Enter your email and password.');
        const config = configOf(this.broker);
        const emailKey = crypto.createHash('sha256').update(email).digest('hex').slice(0, 32);
        const wait = await this.limit([
          { key: `signin:ip:${http.ip}`, limit: config.dashboard.signInPerIp },
          { key: `signin:email:${emailKey}`, limit: config.dashboard.signInPerEmail },
        ]);
        if (wait > 0) return again(`Too many sign-in attempts. Try again in ${wait} s.`);
        const result = await call(ctx, 'accounts.signIn', { email, password: ctx.params.password });
        if (!result) return again('That email and password do not match an account.');
        const maxAge = Math.floor(config.dashboard.sessionMaxMs / 1000);
        return this.redirect(ctx, '/dashboard/campaigns', [
          sessionCookie(result.token, maxAge, http.secure),
          `${SIGN_IN_COOKIE}=; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=0${http.secure ? '; Secure' : ''}`,
        ]);
      },
    },

    signOut: {
      visibility: 'published',
      dashboard: { access: 'session', write: true },
      params: { type: 'object', properties: csrfField },
      async handler(this: DashboardThis, ctx: Ctx<CsrfParams>): Promise<string> {
        const token = sessionTokenOf(ctx) ?? '';
        await call(ctx, 'accounts.signOut', { token });
        return this.redirect(ctx, '/dashboard/sign-in', [clearedSessionCookie(ctx.meta.http!.secure)]);
      },
    },

    campaigns: {
      visibility: 'published',
      dashboard: { access: 'session' },
      params: {
        type: 'object',
        properties: { status: { type: 'string', maxLength: 20 }, page: { type: 'string', maxLength: 7 } },
      },
      async handler(this: DashboardThis, ctx: Ctx<ListQuery>): Promise<string> {
        const status = ctx.params.status ? ctx.params.status : undefined;
        if (status !== undefined && !isOneOf(CAMPAIGN_STATES, status))
          throw invalidInput(`status must be one of ${CAMPAIGN_STATES.join(', ')}.`);
        if (ctx.params.page !== undefined && !/^[1-9]\d{0,5}$/.test(ctx.params.page))
          throw invalidInput('page must be a whole number from 1.');
        const page = Number(ctx.params.page ?? 1);
        const list = await call(ctx, 'campaigns.browse', { status, page, per_page: PER_PAGE });
        const pages = Math.max(1, Math.ceil(list.total / PER_PAGE));
        const link = (n: number) => `/dashboard/campaigns?${new URLSearchParams({ ...(status ? { status } : {}), page: String(n) })}`;
        return this.page(ctx, 'campaigns', {
          title: 'Campaigns',
          nav: 'campaigns',
          list,
          status,
          states: CAMPAIGN_STATES,
          pages,
          // What the list polls for its live figures (services/dashboard/campaign-pages.ts campaignsLive): this page.
          liveQuery: new URLSearchParams({ ...(status ? { status } : {}), page: String(page) }).toString(),
          prev: page > 1 ? link(page - 1) : null,
          next: page < pages ? link(page + 1) : null,
        });
      },
    },

    campaign: {
      visibility: 'published',
      dashboard: { access: 'session' },
      params: idParams,
      async handler(this: DashboardThis, ctx: Ctx<IdParams>): Promise<string> {
        const id = ctx.params.id;
        const campaign = await call(ctx, 'campaigns.get', { id });
        const [timeline, outputs] = await Promise.all([
          call(ctx, 'campaigns.timeline', { id }),
          // The campaign is the caller's (campaigns.get above); the script service answers for that id.
          call(ctx, 'script.outputs', { campaign_id: campaign.campaign_id }).catch(() => null),
        ]);
        for (const video of campaign.videos) {
          for (const field of ['file_url', 'captions_url', 'captions_srt_url', 'thumbnail_url'] as const) {
            video[field] = sameOriginLink(video[field]);
          }
        }
        const { variantGroups, openings } = campaignVariants(campaign.videos, outputs?.scripts ?? []);
        const scripts = (outputs?.scripts ?? []).map((s) => ({
          language: s.language,
          script_source: s.script_source,
          scenes: [s.script.title, ...s.script.screens, s.script.closing].map((scene) => ({
            onScreenText: scene.onScreenText,
            narration: scene.narration.map((segment) => segment.text).join(' '),
          })),
          ...(variantGroups ? { openings: openings(s.script) } : {}),
        }));
        return this.page(ctx, 'campaign', {
          title: campaign.title,
          campaign,
          timeline,
          scripts,
          variantGroups,
          readyCount: campaign.videos.filter((v) => v.status === 'ready').length,
          renderingCount: campaign.videos.filter((v) => v.status === 'rendering').length,
          ...campaignPageExtras(campaign),
        });
      },
    },

    /** What the campaign page polls: status, progress and how many videos are ready. */
    campaignStatus: {
      visibility: 'published',
      dashboard: { access: 'session' },
      params: idParams,
      async handler(this: DashboardThis, ctx: Ctx<IdParams>): Promise<Record<string, unknown>> {
        const view = await call(ctx, 'campaigns.get', { id: ctx.params.id });
        ctx.meta.$statusCode = 200;
        return {
          status: view.status,
          status_label: stateLabel(view.status),
          progress: view.progress,
          ready: view.videos.filter((v) => v.status === 'ready').length,
          // A campaign in review whose videos are being edited: rendering again (decisions §12).
          rendering: view.videos.filter((v) => v.status === 'rendering').length,
        };
      },
    },

    publish: {
      visibility: 'published',
      dashboard: { access: 'session', write: true },
      params: idParams,
      async handler(this: DashboardThis, ctx: Ctx<IdParams>): Promise<string> {
        await call(ctx, 'campaigns.publish', { id: ctx.params.id });
        return this.redirectWithFlash(ctx, `/dashboard/campaigns/${encodeURIComponent(ctx.params.id)}`, { notice: 'Published.' });
      },
    },

    /** The API's own retry: a new campaign where this one failed (its quota, its refusals in words on the campaign page). */
    retryCampaign: {
      visibility: 'published',
      dashboard: { access: 'session', write: true },
      params: idParams,
      async handler(this: DashboardThis, ctx: Ctx<IdParams>): Promise<string> {
        const retried = await call(ctx, 'campaigns.retry', { id: ctx.params.id });
        return this.redirect(ctx, `/dashboard/campaigns/${encodeURIComponent(retried.campaign_id)}`);
      },
    },

    /** The keys; after "Create key", the new key once (its flash), never again on a reload. */
    keys: {
      visibility: 'published',
      dashboard: { access: 'session' },
      async handler(this: DashboardThis, ctx: Ctx): Promise<string> {
        const flash = await this.takeFlash(ctx);
        return this.keysPage(ctx, { newKey: flash?.newKey, keyName: flash?.form?.name });
      },
    },

    createKey: {
      visibility: 'published',
      dashboard: { access: 'session', write: true },
      params: { type: 'object', properties: { name: { type: 'string', maxLength: 1000 }, scopes: formList, ...csrfField } },
      async handler(this: DashboardThis, ctx: Ctx<KeyForm>): Promise<string> {
        const session = this.requireManager(ctx);
        const name = optional(ctx.params.name);
        const scopes = listOf(ctx.params.scopes);
        try {
          if (!name) throw invalidInput('Give the key a name, so you can tell it apart later.');
          if (name.length > 100) throw invalidInput('A key name is at most 100 characters.');
          if (!scopes.length) throw invalidInput('Choose at least one scope.');
          const bad = scopes.find((s) => !isOneOf(API_SCOPES, s));
          if (bad) throw invalidInput(`Unknown scope ${JSON.stringify(bad.slice(0, 40))}.`);
          const created = await call(ctx, 'accounts.createKey', {
            org_id: session.org_id,
            by: session.email,
            name,
            scopes,
          });
          return await this.redirectWithFlash(ctx, '/dashboard/keys', { newKey: created.key, notice: `Key “${name}” created.` });
        } catch (err) {
          return this.redirectWithFlash(ctx, '/dashboard/keys', { error: refusalWords(err), form: { name: name ?? '' } });
        }
      },
    },

    revokeKeyPage: {
      visibility: 'published',
      dashboard: { access: 'session' },
      params: idParams,
      async handler(this: DashboardThis, ctx: Ctx<IdParams>): Promise<string> {
        const session = this.requireManager(ctx);
        const keys = await call(ctx, 'accounts.listKeys', { org_id: session.org_id });
        const key = keys.find((k) => k.key_id === ctx.params.id && !k.revoked_at);
        if (!key) throw notFound('No such active key in your organization.');
        return this.page(ctx, 'revoke', { title: 'Revoke key', nav: 'keys', key });
      },
    },

    revokeKey: {
      visibility: 'published',
      dashboard: { access: 'session', write: true },
      params: idParams,
      async handler(this: DashboardThis, ctx: Ctx<IdParams>): Promise<string> {
        const session = this.requireManager(ctx);
        if (!UUID_ANY_CASE.test(ctx.params.id)) throw notFound('No such key in your organization.');
        await call(ctx, 'accounts.revokeKey', {
          key_id: ctx.params.id,
          by: session.email,
          org_id: session.org_id,
        });
        return this.redirectWithFlash(ctx, '/dashboard/keys', { notice: 'The key is revoked: it no longer works.' });
      },
    },

    rotateWebhookSecret: {
      visibility: 'published',
      dashboard: { access: 'session', write: true },
      params: { type: 'object', properties: csrfField },
      async handler(this: DashboardThis, ctx: Ctx<CsrfParams>): Promise<string> {
        const session = this.requireManager(ctx);
        await call(ctx, 'accounts.webhookSecret', { org_id: session.org_id, rotate: true });
        return this.redirectWithFlash(ctx, '/dashboard/keys', {
          notice: 'The webhook signing secret was rotated: webhooks are signed with the new one from now on.',
        });
      },
    },

    ...editorActions,
    ...accountActions,
    ...campaignPageActions,
    ...batchPageActions,
  },

  methods: {
    ...editorMethods,
    ...campaignPageMethods,

    csrfFor(ctx: Ctx) {
      const session = ctx.meta.session;
      if (session) return csrfToken(this.signingKey, session.session_id);
      // Before sign-in: a nonce in a cookie of its own, and its token in the form (a sign-in can only come from our page).
      const nonce =
        ctx.meta.http?.signInNonce && /^[A-Za-z0-9_-]{43}$/.test(ctx.meta.http.signInNonce)
          ? ctx.meta.http.signInNonce
          : generateSessionToken();
      const secure = ctx.meta.http?.secure ? '; Secure' : '';
      // Once per answer (a page may ask for its token more than once), and kept on the request: its flashes' scope.
      if (!nonceCookieSet.has(ctx)) {
        nonceCookieSet.add(ctx);
        if (ctx.meta.http) ctx.meta.http.signInNonce = nonce;
        this.addCookie(ctx, `${SIGN_IN_COOKIE}=${nonce}; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=3600${secure}`);
      }
      return csrfToken(this.signingKey, `sign-in:${nonce}`);
    },

    async page(ctx: Ctx, view: string, data: Record<string, unknown>, status = 200) {
      const session = ctx.meta.session;
      const [usage, flash] = await Promise.all([session ? call(ctx, 'campaigns.usage').catch(() => null) : null, this.takeFlash(ctx)]);
      const said = { notice: flash?.notice, error: flash?.error };
      const defined = Object.fromEntries(Object.entries(data).filter(([, value]) => value !== undefined));
      const html = renderView(view, { session, usage, csrf: this.csrfFor(ctx), flash, ...said, ...defined });
      // Set after every call: a called action's $statusCode and $location (campaigns.create's 201) come back in meta.
      ctx.meta.$statusCode = status;
      delete ctx.meta.$location;
      ctx.meta.$responseType = 'text/html; charset=utf-8';
      return html;
    },

    async refusalAsPage(ctx: Ctx, err: unknown) {
      const { status, body, headers } = toErrorResponse(err);
      if (!ctx.meta.session || ctx.meta.http?.json || status === 401 || status >= 500) throw err;
      const heading = errorHeading(status);
      const message = 'success' in body ? body.error.message : body.error;
      const html = await this.page(ctx, 'error', { title: heading, heading, message }, status);
      ctx.meta.$responseHeaders = { ...ctx.meta.$responseHeaders, ...headers };
      return html;
    },

    redirect(ctx: Ctx, location: string, cookies?: string[]) {
      ctx.meta.$statusCode = 303;
      ctx.meta.$location = location;
      for (const cookie of cookies ?? []) this.addCookie(ctx, cookie);
      ctx.meta.$responseType = 'text/plain; charset=utf-8';
      return `See ${location}`;
    },

    async redirectWithFlash(ctx: Ctx, location: string, flash: Flash, options: { scope?: string; cookies?: string[] } = {}) {
      const scope = options.scope ?? this.flashScope(ctx);
      // No scope (a public form without its nonce cookie, refused by the CSRF rule before this): nothing to keep.
      const id = scope ? await this.flashes.put(scope, flash) : undefined;
      return this.redirect(ctx, location, [...(options.cookies ?? []), ...(id ? [flashCookie(id, Boolean(ctx.meta.http?.secure))] : [])]);
    },

    async takeFlash(ctx: Ctx) {
      const taken = takenFlashes.get(ctx);
      if (taken !== undefined) return taken;
      const id: unknown = ctx.locals[FLASH_ID_LOCAL];
      const scope = this.flashScope(ctx);
      let flash: Flash | null = null;
      if (typeof id === 'string') {
        this.addCookie(ctx, clearedFlashCookie(Boolean(ctx.meta.http?.secure)));
        // A store that cannot answer loses a notice, not the page.
        if (scope)
          flash = await this.flashes.take(scope, id).catch((err: unknown) => {
            this.logger.warn(`dashboard flash unavailable: ${err instanceof Error ? err.message : String(err)}`);
            return null;
          });
      }
      takenFlashes.set(ctx, flash);
      return flash;
    },

    flashScope(ctx: Ctx) {
      if (ctx.meta.session) return ctx.meta.session.session_id;
      const nonce = ctx.meta.http?.signInNonce;
      return nonce && /^[A-Za-z0-9_-]{43}$/.test(nonce) ? `sign-in:${nonce}` : undefined;
    },

    addCookie(ctx: Ctx, cookie: string) {
      const set = ctx.meta.$responseHeaders?.['Set-Cookie'];
      const cookies = set === undefined ? [] : Array.isArray(set) ? set : [set];
      ctx.meta.$responseHeaders = { ...ctx.meta.$responseHeaders, 'Set-Cookie': [...cookies, cookie] };
    },

    requireManager(ctx: Ctx) {
      const session = ctx.meta.session!;
      if (session.role !== 'owner' && session.role !== 'admin')
        throw forbidden('Only an owner or admin can manage API keys and the webhook secret.');
      return session;
    },

    /** Seconds to wait, 0 when admitted. A limiter that cannot answer refuses (fail closed, as the API does). */
    async limit(layers: LayerCheck[]) {
      try {
        const decision = await this.limiter.check(layers);
        return decision.allowed ? 0 : Math.max(1, decision.retryAfterSeconds);
      } catch (err) {
        if (err instanceof RateLimiterUnavailableError) throw serviceUnavailable('Rate limiting is unavailable. Try again shortly.');
        throw err;
      }
    },

    async keysPage(ctx: Ctx, extra: Record<string, unknown>, status = 200) {
      const session = ctx.meta.session!;
      const canManage = session.role === 'owner' || session.role === 'admin';
      const [keys, secret] = await Promise.all([
        call(ctx, 'accounts.listKeys', { org_id: session.org_id }),
        canManage ? call(ctx, 'accounts.webhookSecret', { org_id: session.org_id }) : null,
      ]);
      keys.sort((a, b) => new Date(b.created_at).getTime() - new Date(a.created_at).getTime());
      return this.page(
        ctx,
        'keys',
        {
          title: 'API keys',
          nav: 'keys',
          keys,
          canManage,
          scopes: API_SCOPES,
          activeCount: keys.filter((k) => !k.revoked_at).length,
          webhookSecret: secret?.secret,
          ...extra,
        },
        status,
      );
    },
  } satisfies DashboardMethods & ThisType<DashboardThis>,
};

export default DashboardService;
