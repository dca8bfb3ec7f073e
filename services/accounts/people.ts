/**
 * An organization's people, a module of the accounts service (mixed into services/accounts.service.ts,
 * which owns the tables): owners and admins invite by email — there is no mail server, so the inviter is shown a
 * one-time link, expiring (INVITE_TTL_MS) and used once, only its token's SHA-256 stored — set roles and remove people
 * (the rules in lib/http/people.ts: the last owner stays); every user changes their own password with the current one,
 * and every other session of theirs ends. The acting user's role is always read here, never taken from the caller.
 */
import type { Context } from 'moleculer';
import { Op, type Transaction } from 'sequelize';
import type { Organization, User, UserInvite } from '../../lib/db/models';
import { conflict, forbidden, invalidInput, notFound } from '../../lib/errors';
import { USER_ROLES } from '../../lib/http/auth';
import { INVITE_TOKEN_PATTERN, INVITE_TTL_MS, managesPeople, removalRefusal, roleChangeRefusal } from '../../lib/http/people';
import {
  generateSessionToken,
  hashPassword,
  hashSessionToken,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  verifyPassword,
} from '../../lib/http/session';
import type {
  AcceptInviteParams,
  AccountsActionSchemas,
  ActorParams,
  ChangePasswordParams,
  InviteInfo,
  InviteParams,
  InviteResult,
  InviteTokenParams,
  PeopleView,
  PersonView,
  RemoveUserParams,
  RevokeInviteParams,
  SetRoleParams,
} from './types';

const uuid = { type: 'string', pattern: '^[0-9a-fA-F-]{36}$' } as const;
const password = { type: 'string', minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH } as const;
const actor = { org_id: uuid, actor_id: uuid } as const;
const role = { type: 'string', enum: [...USER_ROLES] } as const;

const personView = (user: User): PersonView => ({
  user_id: user.id,
  email: user.email,
  role: user.role,
  created_at: new Date(user.created_at).toISOString(),
  can_sign_in: Boolean(user.password_hash),
});

/** An invitation that can still be used: not used, not revoked, not expired. */
const usable = (now: Date) => ({ used_at: null, revoked_at: null, expires_at: { [Op.gt]: now } });

async function ownersOf(models: { User: typeof User }, orgId: string, transaction?: Transaction): Promise<number> {
  return models.User.count({ where: { org_id: orgId, role: 'owner' }, transaction });
}

export const peopleActions: AccountsActionSchemas = {
  /** The organization's people and its open invitations; every member may see them. */
  people: {
    visibility: 'public',
    params: { type: 'object', additionalProperties: false, required: ['org_id', 'actor_id'], properties: actor },
    async handler(ctx: Context<ActorParams>): Promise<PeopleView> {
      const { models } = this.db;
      await this.actorOf(ctx.params.org_id, ctx.params.actor_id);
      const [users, invites] = await Promise.all([
        models.User.findAll({ where: { org_id: ctx.params.org_id }, order: [['created_at', 'ASC']] }),
        models.UserInvite.findAll({ where: { org_id: ctx.params.org_id, ...usable(new Date()) }, order: [['created_at', 'ASC']] }),
      ]);
      return {
        people: users.map(personView),
        invites: invites.map((invite: UserInvite) => ({
          invite_id: invite.id,
          email: invite.email,
          role: invite.role,
          expires_at: new Date(invite.expires_at).toISOString(),
          created_at: new Date(invite.created_at).toISOString(),
        })),
      };
    },
  },

  invite: {
    visibility: 'public',
    params: {
      type: 'object',
      additionalProperties: false,
      required: ['org_id', 'actor_id', 'email', 'role'],
      properties: { ...actor, email: { type: 'string', format: 'email', maxLength: 320 }, role },
    },
    async handler(ctx: Context<InviteParams>): Promise<InviteResult> {
      const { models, sequelize } = this.db;
      const inviter = await this.actorOf(ctx.params.org_id, ctx.params.actor_id);
      const refusal = roleChangeRefusal(inviter.role, undefined, ctx.params.role, Infinity);
      if (refusal) throw forbidden(refusal);
      const email = ctx.params.email.trim().toLowerCase();
      const token = generateSessionToken();
      const now = new Date();
      const expiresAt = new Date(now.getTime() + INVITE_TTL_MS);
      const invite = await sequelize.transaction(async (transaction: Transaction) => {
        if (await models.User.findOne({ where: { org_id: ctx.params.org_id, email }, transaction }))
          throw conflict(`${email} is already a member of this organization.`);
        // A new invitation for the same address replaces the open one: one link works at a time.
        await models.UserInvite.update({ revoked_at: now }, { where: { org_id: ctx.params.org_id, email, ...usable(now) }, transaction });
        return models.UserInvite.create(
          {
            org_id: ctx.params.org_id,
            email,
            role: ctx.params.role,
            token_hash: hashSessionToken(token),
            invited_by: inviter.id,
            expires_at: expiresAt,
          },
          { transaction },
        );
      });
      return { invite_id: invite.id, token, expires_at: expiresAt.toISOString() };
    },
  },

  /** What an invitation's link invites to, for its page; null when it cannot be used (unknown, used, revoked, expired). */
  inviteInfo: {
    visibility: 'public',
    params: { type: 'object', additionalProperties: false, required: ['token'], properties: { token: { type: 'string', maxLength: 100 } } },
    async handler(ctx: Context<InviteTokenParams>): Promise<InviteInfo | null> {
      if (!INVITE_TOKEN_PATTERN.test(ctx.params.token)) return null;
      const { models } = this.db;
      const invite = await models.UserInvite.findOne({
        where: { token_hash: hashSessionToken(ctx.params.token), ...usable(new Date()) },
        include: [{ model: models.Organization, as: 'organization', required: true }],
      });
      if (!invite?.organization) return null;
      return {
        email: invite.email,
        role: invite.role,
        org_name: invite.organization.name,
        expires_at: new Date(invite.expires_at).toISOString(),
      };
    },
  },

  /** The invited person sets a password: the user is made, the link used up, and they are signed in. */
  acceptInvite: {
    visibility: 'public',
    params: {
      type: 'object',
      additionalProperties: false,
      required: ['token', 'password'],
      properties: { token: { type: 'string', maxLength: 100 }, password },
    },
    async handler(ctx: Context<AcceptInviteParams>) {
      const { models, sequelize } = this.db;
      const refused = () =>
        invalidInput('This invitation link is not valid any more: it was used, withdrawn or has expired. Ask for a new one.');
      if (!INVITE_TOKEN_PATTERN.test(ctx.params.token)) throw refused();
      const passwordHash = await hashPassword(ctx.params.password);
      const { user, org } = await sequelize.transaction(async (transaction: Transaction) => {
        const now = new Date();
        const invite = await models.UserInvite.findOne({
          where: { token_hash: hashSessionToken(ctx.params.token), ...usable(now) },
          transaction,
          lock: true,
        });
        if (!invite) throw refused();
        // Used once: the row is claimed before anything is made from it.
        const [claimed] = await models.UserInvite.update({ used_at: now }, { where: { id: invite.id, used_at: null }, transaction });
        if (claimed !== 1) throw refused();
        if (await models.User.findOne({ where: { org_id: invite.org_id, email: invite.email }, transaction }))
          throw conflict(`${invite.email} is already a member of this organization; sign in instead.`);
        const made = await models.User.create(
          { org_id: invite.org_id, email: invite.email, role: invite.role, password_hash: passwordHash },
          { transaction },
        );
        const organization: Organization | null = await models.Organization.findByPk(invite.org_id, { transaction });
        return { user: made, org: organization! };
      });
      return this.openSession(user, org);
    },
  },

  revokeInvite: {
    visibility: 'public',
    params: {
      type: 'object',
      additionalProperties: false,
      required: ['org_id', 'actor_id', 'invite_id'],
      properties: { ...actor, invite_id: uuid },
    },
    async handler(ctx: Context<RevokeInviteParams>): Promise<{ revoked: boolean }> {
      const inviter = await this.actorOf(ctx.params.org_id, ctx.params.actor_id);
      if (!managesPeople(inviter.role)) throw forbidden('Only owners and admins manage people.');
      const [revoked] = await this.db.models.UserInvite.update(
        { revoked_at: new Date() },
        { where: { id: ctx.params.invite_id, org_id: ctx.params.org_id, used_at: null, revoked_at: null } },
      );
      return { revoked: revoked === 1 };
    },
  },

  setRole: {
    visibility: 'public',
    params: {
      type: 'object',
      additionalProperties: false,
      required: ['org_id', 'actor_id', 'user_id', 'role'],
      properties: { ...actor, user_id: uuid, role },
    },
    async handler(ctx: Context<SetRoleParams>): Promise<PersonView> {
      const { models, sequelize } = this.db;
      return sequelize.transaction(async (transaction: Transaction) => {
        const acting = await this.actorOf(ctx.params.org_id, ctx.params.actor_id);
        const target = await models.User.findOne({ where: { id: ctx.params.user_id, org_id: ctx.params.org_id }, transaction, lock: true });
        if (!target) throw notFound('No such person in this organization.');
        const refusal = roleChangeRefusal(
          acting.role,
          target.role,
          ctx.params.role,
          await ownersOf(models, ctx.params.org_id, transaction),
        );
        if (refusal) throw target.role === 'owner' && acting.role === 'owner' ? conflict(refusal) : forbidden(refusal);
        await target.update({ role: ctx.params.role }, { transaction });
        return personView(target);
      });
    },
  },

  /** A person removed: their sessions end with them. */
  removeUser: {
    visibility: 'public',
    params: {
      type: 'object',
      additionalProperties: false,
      required: ['org_id', 'actor_id', 'user_id'],
      properties: { ...actor, user_id: uuid },
    },
    async handler(ctx: Context<RemoveUserParams>): Promise<{ removed: true }> {
      const { models, sequelize } = this.db;
      return sequelize.transaction(async (transaction: Transaction) => {
        const acting = await this.actorOf(ctx.params.org_id, ctx.params.actor_id);
        const target = await models.User.findOne({ where: { id: ctx.params.user_id, org_id: ctx.params.org_id }, transaction, lock: true });
        if (!target) throw notFound('No such person in this organization.');
        const refusal = removalRefusal(acting.role, target.role, await ownersOf(models, ctx.params.org_id, transaction));
        if (refusal) throw target.role === 'owner' && acting.role === 'owner' ? conflict(refusal) : forbidden(refusal);
        await models.UserSession.destroy({ where: { user_id: target.id }, transaction });
        await target.destroy({ transaction });
        return { removed: true as const };
      });
    },
  },

  /** A user's own password: the current one required; every other session of theirs ends (this one stays). */
  changePassword: {
    visibility: 'public',
    params: {
      type: 'object',
      additionalProperties: false,
      required: ['user_id', 'session_id', 'current_password', 'new_password'],
      properties: {
        user_id: uuid,
        session_id: uuid,
        current_password: { type: 'string', maxLength: PASSWORD_MAX_LENGTH },
        new_password: password,
      },
    },
    async handler(ctx: Context<ChangePasswordParams>): Promise<{ changed: true; other_sessions_ended: number }> {
      const { models } = this.db;
      const user = await models.User.findByPk(ctx.params.user_id);
      if (!user?.password_hash || !(await verifyPassword(user.password_hash, ctx.params.current_password)))
        throw invalidInput('current_password: that is not your current password.');
      if (ctx.params.new_password === ctx.params.current_password)
        throw invalidInput('new_password: choose a password other than the current one.');
      await user.update({ password_hash: await hashPassword(ctx.params.new_password) });
      const ended = await models.UserSession.destroy({ where: { user_id: user.id, id: { [Op.ne]: ctx.params.session_id } } });
      return { changed: true as const, other_sessions_ended: ended };
    },
  },
};
