/**
 * Accounts: organizations and their plan, users and roles, API keys, webhook signing secrets.
 * The admin tool (scripts/admin.ts) and the REPL call these actions; none is reachable through the gateway.
 */
import { type Context, type ServiceSchema, type ServiceSettingSchema } from 'moleculer';
import type { Transaction } from 'sequelize';
import { effectiveLimits, isPlanName, MAX_LANGUAGES_PER_CAMPAIGN, PLAN_NAMES, type PlanLimits } from '../config/plans';
import {
  API_SCOPES,
  USER_ROLES,
  generateApiKey,
  generateWebhookSecret,
  hashApiKey,
  displayPrefix,
  isApiScope,
  KEY_PATTERN,
  type AuthContext,
} from '../lib/http/auth';
import { configOf } from '../config';
import {
  generateSessionToken,
  hashPassword,
  hashSessionToken,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  verifyPassword,
  type SessionInfo,
} from '../lib/http/session';
import { DbMixin, type DbMethods } from '../mixins/db.mixin';
import { peopleActions } from './accounts/people';
import type {
  AcceptInviteParams,
  AccountsLocalVars,
  AccountsMethods,
  AccountsThis,
  ActorParams,
  ChangePasswordParams,
  InviteInfo,
  InviteParams,
  InviteResult,
  InviteTokenParams,
  OrgPlanColumns,
  PeopleView,
  PersonView,
  RemoveUserParams,
  RevokeInviteParams,
  SetRoleParams,
} from './accounts/types';
import type { ApiKey, Organization, User } from '../lib/db/models';
import { findActiveKey } from '../lib/db/reads';
import { conflict, forbidden, invalidInput, notFound } from '../lib/errors';

/** last_used_at is written at most this often per key, so authentication stays a single read. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface OrgCreateParams {
  name: string;
  plan: string;
}
export interface UserAddParams {
  org_id: string;
  email: string;
  role: string;
  password?: string;
}
export interface SetPasswordParams {
  email: string;
  password: string;
  /** Needed only when the email is a user of more than one organization. */
  org_id?: string;
}
export interface SignInParams {
  email: string;
  password: string;
}
export interface SessionTokenParams {
  token: string;
}
/** A signed-in dashboard user, as accounts.session answers it. */
/** Declared with the session's other pieces (lib/http/session.ts); the dashboard's rules read it there. */
export type { SessionInfo };
export interface SignInResult {
  token: string;
  session: SessionInfo;
}
export interface KeyCreateParams {
  org_id: string;
  by: string;
  scopes?: string[] | string;
  name?: string;
}
export interface KeyRevokeParams {
  key_id: string;
  by?: string;
  /** When given, a key of another organization is answered as not found. */
  org_id?: string;
}
export interface WebhookSecretParams {
  org_id: string;
  rotate?: boolean;
}
export interface PlanSetParams {
  org_id: string;
  plan: string;
  campaigns?: number;
  languages?: number;
  rate?: number;
  keys?: number;
}
/** accounts.listKeys and accounts.getOrganization. */
export interface OrgIdParams {
  org_id: string;
}
export interface AuthenticateParams {
  key: string;
}

export interface OrgCreateResult {
  org_id: string;
}
export interface UserAddResult {
  user_id: string;
}
export interface KeyCreateResult {
  key_id: string;
  key: string;
}
export interface KeyRevokeResult {
  revoked: true;
}
export interface KeyListItem {
  key_id: string;
  name: string | null;
  prefix: string;
  scopes: string[];
  revoked_at: Date | null;
  last_used_at: Date | null;
  created_at: Date;
}
export interface WebhookSecretResult {
  secret: string;
}
export interface OrganizationResult {
  org_id: string;
  plan: string;
  limits: PlanLimits;
}
export interface OrganizationInfo extends OrganizationResult {
  name: string;
}

/** The actions others call (the gateway, the dashboard, webhooks, benchmarks), for `call` (lib/net/calls.ts). */
export interface AccountsActions {
  'accounts.authenticate': { params: AuthenticateParams; result: AuthContext | null };
  'accounts.session': { params: SessionTokenParams; result: SessionInfo | null };
  'accounts.signIn': { params: SignInParams; result: SignInResult | null };
  'accounts.signOut': { params: SessionTokenParams; result: { signed_out: boolean } };
  'accounts.createKey': { params: KeyCreateParams; result: KeyCreateResult };
  'accounts.revokeKey': { params: KeyRevokeParams; result: KeyRevokeResult };
  'accounts.listKeys': { params: OrgIdParams; result: KeyListItem[] };
  'accounts.webhookSecret': { params: WebhookSecretParams; result: WebhookSecretResult };
  'accounts.setPlan': { params: PlanSetParams; result: OrganizationResult };
  'accounts.getOrganization': { params: OrgIdParams; result: OrganizationInfo };
  'accounts.people': { params: ActorParams; result: PeopleView };
  'accounts.invite': { params: InviteParams; result: InviteResult };
  'accounts.inviteInfo': { params: InviteTokenParams; result: InviteInfo | null };
  'accounts.acceptInvite': { params: AcceptInviteParams; result: SignInResult };
  'accounts.revokeInvite': { params: RevokeInviteParams; result: { revoked: boolean } };
  'accounts.setRole': { params: SetRoleParams; result: PersonView };
  'accounts.removeUser': { params: RemoveUserParams; result: { removed: true } };
  'accounts.changePassword': { params: ChangePasswordParams; result: { changed: true; other_sessions_ended: number } };
}

type AccountsSettings = ServiceSettingSchema;

const uuid = { type: 'string', pattern: '^[0-9a-fA-F-]{36}$' } as const;
const passwordSchema = { type: 'string', minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH } as const;

const AccountsService: ServiceSchema<AccountsSettings, AccountsMethods, AccountsLocalVars> = {
  name: 'accounts',
  mixins: [DbMixin({ owner: 'accounts' })],

  created() {
    this.dummyHash = hashPassword(generateSessionToken());
    this.dummyHash.catch(() => undefined);
  },

  actions: {
    ...peopleActions,

    createOrganization: {
      visibility: 'public',
      params: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'plan'],
        properties: { name: { type: 'string', minLength: 1, maxLength: 200 }, plan: { type: 'string', enum: [...PLAN_NAMES] } },
      },
      async handler(ctx: Context<OrgCreateParams>): Promise<OrgCreateResult> {
        const org = await this.db.models.Organization.create({ name: ctx.params.name.trim(), plan: ctx.params.plan });
        return { org_id: org.id };
      },
    },

    addUser: {
      visibility: 'public',
      params: {
        type: 'object',
        additionalProperties: false,
        required: ['org_id', 'email', 'role'],
        properties: {
          org_id: uuid,
          email: { type: 'string', format: 'email', maxLength: 320 },
          role: { type: 'string', enum: [...USER_ROLES] },
          password: passwordSchema,
        },
      },
      async handler(ctx: Context<UserAddParams>): Promise<UserAddResult> {
        await this.findOrg(ctx.params.org_id);
        const email = ctx.params.email.trim().toLowerCase();
        const existing = await this.db.models.User.findOne({ where: { org_id: ctx.params.org_id, email } });
        if (existing) throw conflict(`user ${email} already exists in this organization`);
        const password_hash = ctx.params.password === undefined ? null : await hashPassword(ctx.params.password);
        const user = await this.db.models.User.create({ org_id: ctx.params.org_id, email, role: ctx.params.role, password_hash });
        return { user_id: user.id };
      },
    },

    /** Operators set or reset a user's dashboard password (scripts/admin.ts); the user's sessions end. */
    setPassword: {
      visibility: 'public',
      params: {
        type: 'object',
        additionalProperties: false,
        required: ['email', 'password'],
        properties: { email: { type: 'string', minLength: 3, maxLength: 320 }, password: passwordSchema, org_id: uuid },
      },
      async handler(ctx: Context<SetPasswordParams>): Promise<{ user_id: string }> {
        const { models } = this.db;
        const email = ctx.params.email.trim().toLowerCase();
        const users = await models.User.findAll({ where: { email, ...(ctx.params.org_id ? { org_id: ctx.params.org_id } : {}) } });
        if (users.length === 0) throw notFound(`no user ${email}`);
        if (users.length > 1) throw invalidInput(`${email} is a user of ${users.length} organizations; name one with --org`);
        const user = users[0];
        await user.update({ password_hash: await hashPassword(ctx.params.password) });
        await models.UserSession.destroy({ where: { user_id: user.id } });
        return { user_id: user.id };
      },
    },

    /**
     * The dashboard's sign-in: a new session, or null. An unknown email is verified against a dummy hash, so
     * both refusals take one argon2 verification and answer alike. The rate limit is the caller's (per IP and email).
     */
    signIn: {
      visibility: 'public',
      params: {
        type: 'object',
        additionalProperties: false,
        required: ['email', 'password'],
        properties: { email: { type: 'string', maxLength: 320 }, password: { type: 'string', maxLength: PASSWORD_MAX_LENGTH } },
      },
      async handler(ctx: Context<SignInParams>): Promise<SignInResult | null> {
        const { models } = this.db;
        const email = ctx.params.email.trim().toLowerCase();
        const users = await models.User.findAll({
          where: { email },
          include: [{ model: models.Organization, as: 'organization', required: true }],
          order: [['created_at', 'ASC']],
        });
        let match: User | undefined;
        for (const user of users.filter((u: User) => u.password_hash)) {
          if (await verifyPassword(user.password_hash!, ctx.params.password)) {
            match = user;
            break;
          }
        }
        if (users.every((u: User) => !u.password_hash)) await verifyPassword(await this.dummyHash!, ctx.params.password);
        if (!match?.organization) return null;
        return this.openSession(match, match.organization);
      },
    },

    /** The session behind a cookie token, or null once it is unknown, idle too long or past its absolute expiry. */
    session: {
      visibility: 'public',
      params: {
        type: 'object',
        additionalProperties: false,
        required: ['token'],
        properties: { token: { type: 'string', maxLength: 100 } },
      },
      async handler(ctx: Context<SessionTokenParams>): Promise<SessionInfo | null> {
        const { models } = this.db;
        const config = configOf(this.broker);
        const session = await models.UserSession.findOne({
          where: { token_hash: hashSessionToken(ctx.params.token) },
          include: [
            {
              model: models.User,
              as: 'user',
              required: true,
              include: [{ model: models.Organization, as: 'organization', required: true }],
            },
          ],
        });
        if (!session?.user?.organization) return null;
        const now = Date.now();
        const idleSince = new Date(session.last_seen_at).getTime();
        if (now >= new Date(session.expires_at).getTime() || now - idleSince >= config.dashboard.sessionIdleMs) {
          await session.destroy();
          return null;
        }
        // Written at most once a minute, so a page's polling stays one read per request.
        if (now - idleSince > LAST_USED_RESOLUTION_MS) await session.update({ last_seen_at: new Date(now) });
        return this.sessionInfo(session.id, session.user, session.user.organization);
      },
    },

    signOut: {
      visibility: 'public',
      params: {
        type: 'object',
        additionalProperties: false,
        required: ['token'],
        properties: { token: { type: 'string', maxLength: 100 } },
      },
      async handler(ctx: Context<SessionTokenParams>): Promise<{ signed_out: boolean }> {
        const removed = await this.db.models.UserSession.destroy({ where: { token_hash: hashSessionToken(ctx.params.token) } });
        return { signed_out: removed > 0 };
      },
    },

    createKey: {
      visibility: 'public',
      params: {
        type: 'object',
        additionalProperties: false,
        required: ['org_id', 'by'],
        properties: {
          org_id: uuid,
          by: { type: 'string', minLength: 3, maxLength: 320 },
          scopes: { type: 'array', items: { type: 'string', enum: [...API_SCOPES] }, minItems: 1, uniqueItems: true },
          name: { type: 'string', minLength: 1, maxLength: 100 },
        },
      },
      async handler(ctx: Context<KeyCreateParams>): Promise<KeyCreateResult> {
        const { models, sequelize } = this.db;
        const scopes = (ctx.params.scopes as string[] | undefined) ?? [...API_SCOPES];
        return sequelize.transaction(async (transaction: Transaction) => {
          // Locking the organization row serialises concurrent creations, so the key limit holds.
          const org = await models.Organization.findByPk(ctx.params.org_id, { transaction, lock: transaction.LOCK?.UPDATE ?? true });
          if (!org) throw notFound(`organization ${ctx.params.org_id} not found`);
          const user = await models.User.findOne({ where: { org_id: org.id, email: ctx.params.by.trim().toLowerCase() }, transaction });
          if (!user) throw forbidden(`user ${ctx.params.by} is not a member of this organization`);
          if (user.role !== 'owner' && user.role !== 'admin') throw forbidden('only an owner or admin may create API keys');
          const limits = this.limitsOf(org);
          if (!limits.apiAccess) throw forbidden(`the ${org.plan} plan has no API access`);
          const active = await models.ApiKey.count({ where: { org_id: org.id, revoked_at: null }, transaction });
          if (active >= limits.maxApiKeys) throw conflict(`the ${org.plan} plan allows ${limits.maxApiKeys} API keys; revoke one first`);
          const key = generateApiKey();
          const row = await models.ApiKey.create(
            {
              org_id: org.id,
              created_by: user.id,
              name: ctx.params.name ?? null,
              key_hash: hashApiKey(key),
              display_prefix: displayPrefix(key),
              scopes: scopes.join(','),
            },
            { transaction },
          );
          return { key_id: row.id, key };
        });
      },
    },

    revokeKey: {
      visibility: 'public',
      params: {
        type: 'object',
        additionalProperties: false,
        required: ['key_id'],
        properties: { key_id: uuid, by: { type: 'string', minLength: 3, maxLength: 320 }, org_id: uuid },
      },
      async handler(ctx: Context<KeyRevokeParams>): Promise<KeyRevokeResult> {
        const { models } = this.db;
        const key = await models.ApiKey.findByPk(ctx.params.key_id);
        if (!key || (ctx.params.org_id !== undefined && key.org_id !== ctx.params.org_id))
          throw notFound(`API key ${ctx.params.key_id} not found`);
        if (ctx.params.by !== undefined) {
          const user = await models.User.findOne({ where: { org_id: key.org_id, email: ctx.params.by.trim().toLowerCase() } });
          if (!user || (user.role !== 'owner' && user.role !== 'admin')) throw forbidden('only an owner or admin may revoke API keys');
        }
        if (!key.revoked_at) await key.update({ revoked_at: new Date() });
        return { revoked: true };
      },
    },

    listKeys: {
      visibility: 'public',
      params: { type: 'object', additionalProperties: false, required: ['org_id'], properties: { org_id: uuid } },
      async handler(ctx: Context<OrgIdParams>): Promise<KeyListItem[]> {
        const keys = await this.db.models.ApiKey.findAll({ where: { org_id: ctx.params.org_id }, order: [['created_at', 'ASC']] });
        return keys.map((k: ApiKey) => ({
          key_id: k.id,
          name: k.name,
          prefix: k.display_prefix,
          scopes: k.scopes.split(','),
          revoked_at: k.revoked_at,
          last_used_at: k.last_used_at,
          created_at: k.created_at,
        }));
      },
    },

    webhookSecret: {
      visibility: 'public',
      params: {
        type: 'object',
        additionalProperties: false,
        required: ['org_id'],
        properties: { org_id: uuid, rotate: { type: 'boolean' } },
      },
      async handler(ctx: Context<WebhookSecretParams>): Promise<WebhookSecretResult> {
        const { models } = this.db;
        await this.findOrg(ctx.params.org_id);
        const existing = await models.WebhookSecret.findByPk(ctx.params.org_id);
        if (existing && !ctx.params.rotate) return { secret: existing.secret };
        const secret = generateWebhookSecret();
        if (existing) await existing.update({ secret });
        else await models.WebhookSecret.create({ org_id: ctx.params.org_id, secret });
        return { secret };
      },
    },

    setPlan: {
      visibility: 'public',
      params: {
        type: 'object',
        additionalProperties: false,
        required: ['org_id', 'plan'],
        properties: {
          org_id: uuid,
          plan: { type: 'string', enum: [...PLAN_NAMES] },
          campaigns: { type: 'integer', minimum: 0 },
          languages: { type: 'integer', minimum: 1, maximum: MAX_LANGUAGES_PER_CAMPAIGN },
          rate: { type: 'integer', minimum: 1 },
          keys: { type: 'integer', minimum: 0 },
        },
      },
      async handler(ctx: Context<PlanSetParams>): Promise<OrganizationResult> {
        const org = await this.findOrg(ctx.params.org_id);
        const { plan, campaigns, languages, rate, keys } = ctx.params;
        // Overrides are per organization; changing plan without them returns to the plan's values.
        await org.update({
          plan,
          campaigns_per_month: campaigns ?? null,
          languages_per_campaign: languages ?? null,
          rate_per_minute: rate ?? null,
          max_api_keys: keys ?? null,
        });
        return { org_id: org.id, plan: org.plan, limits: this.limitsOf(org) };
      },
    },

    getOrganization: {
      visibility: 'public',
      params: { type: 'object', additionalProperties: false, required: ['org_id'], properties: { org_id: uuid } },
      async handler(ctx: Context<OrgIdParams>): Promise<OrganizationInfo> {
        const org = await this.findOrg(ctx.params.org_id);
        return { org_id: org.id, name: org.name, plan: org.plan, limits: this.limitsOf(org) };
      },
    },

    /** The gateway's key check: null for an unknown, malformed or revoked key. */
    authenticate: {
      visibility: 'public',
      params: { type: 'object', additionalProperties: false, required: ['key'], properties: { key: { type: 'string', maxLength: 200 } } },
      async handler(ctx: Context<AuthenticateParams>): Promise<AuthContext | null> {
        if (!KEY_PATTERN.test(ctx.params.key)) return null;
        // Every API request comes here: one statement, plain rows (lib/db/reads.ts).
        const key = await findActiveKey(this.db.sequelize, hashApiKey(ctx.params.key));
        if (!key) return null;
        const now = Date.now();
        if (!key.last_used_at || now - new Date(key.last_used_at).getTime() > LAST_USED_RESOLUTION_MS) {
          this.db.models.ApiKey.update({ last_used_at: new Date(now) }, { where: { id: key.key_id } }).catch((err: Error) =>
            this.logger.warn('last_used_at update failed', err.message),
          );
        }
        const limits = this.limitsOf({ ...key, id: key.org_id });
        return {
          orgId: key.org_id,
          keyId: key.key_id,
          plan: key.plan,
          scopes: key.scopes.split(',').filter(isApiScope),
          limits: {
            campaignsPerMonth: limits.campaignsPerMonth,
            languagesPerCampaign: limits.languagesPerCampaign,
            ratePerMinute: limits.ratePerMinute,
            apiAccess: limits.apiAccess,
            batchItems: limits.batchItems,
            variantsPerCampaign: limits.variantsPerCampaign,
          },
        };
      },
    },
  },

  methods: {
    async findOrg(orgId: string) {
      const org = await this.db.models.Organization.findByPk(orgId);
      if (!org) throw notFound(`organization ${orgId} not found`);
      return org;
    },
    async openSession(user: User, org: Organization) {
      const config = configOf(this.broker);
      const token = generateSessionToken();
      const now = new Date();
      const session = await this.db.models.UserSession.create({
        token_hash: hashSessionToken(token),
        user_id: user.id,
        org_id: user.org_id,
        last_seen_at: now,
        expires_at: new Date(now.getTime() + config.dashboard.sessionMaxMs),
      });
      return { token, session: this.sessionInfo(session.id, user, org) };
    },

    async actorOf(orgId: string, actorId: string) {
      const actor = await this.db.models.User.findOne({ where: { id: actorId, org_id: orgId } });
      if (!actor) throw forbidden('You are not a member of this organization.');
      return actor;
    },

    sessionInfo(sessionId: string, user: User, org: Organization): SessionInfo {
      return {
        session_id: sessionId,
        user_id: user.id,
        email: user.email,
        role: user.role,
        org_id: org.id,
        org_name: org.name,
        plan: org.plan,
        limits: this.limitsOf(org),
      };
    },
    limitsOf(org: OrgPlanColumns) {
      if (!isPlanName(org.plan)) throw new Error(`organization ${org.id} has unknown plan ${org.plan}`);
      return effectiveLimits(org.plan, {
        campaignsPerMonth: org.campaigns_per_month,
        languagesPerCampaign: org.languages_per_campaign,
        ratePerMinute: org.rate_per_minute,
        maxApiKeys: org.max_api_keys,
      });
    },
  } satisfies Omit<AccountsMethods, keyof DbMethods<'accounts'>> & ThisType<AccountsThis>,
};

export default AccountsService;
