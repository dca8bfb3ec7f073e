/**
 * The account side of the dashboard: the usage page (this month against the plan, by status,
 * language and platform, the last 12 months as a chart; campaigns.usageReport and usageHistory, the caller's
 * organization only), the organization's people (accounts.people, invite, revokeInvite, setRole, removeUser), an
 * invitation's page at a public path (accounts.inviteInfo, acceptInvite: the invited person chooses a password and is
 * signed in), and the user's own account (accounts.changePassword: every other session ends). Every form answers 303
 * with a one-time flash; the acting user is always the session's (org_id, actor_id), never a field of the form, and
 * the accounts actions check the rules again (lib/http/people.ts), so a control not shown is also refused.
 * A module of the `dashboard` service (spread into services/dashboard.service.ts).
 */
import { configOf } from '../../config';
import { CAMPAIGN_STATES } from '../../lib/campaign/states';
import { refusalWords } from '../../lib/dashboard/form-errors';
import { monthName, usageChart } from '../../lib/dashboard/usage-chart';
import { invalidInput, notFound } from '../../lib/errors';
import { UUID_ANY_CASE } from '../../lib/ids';
import { USER_ROLES } from '../../lib/http/auth';
import { INVITE_TOKEN_PATTERN, managesPeople, removalRefusal, roleChangeRefusal } from '../../lib/http/people';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, sessionCookie } from '../../lib/http/session';
import { call } from '../../lib/net/calls';
import { platformLabel, stateLabel } from '../../lib/dashboard/words';
import type { PersonView } from '../accounts/types';
import { csrfField, type CsrfParams, type Ctx, type DashboardActionSchemas, type DashboardThis } from './types';

interface IdForm extends CsrfParams {
  id: string;
}
interface InviteForm extends CsrfParams {
  email?: string;
  role?: string;
}
interface RoleForm extends IdForm {
  role?: string;
}
interface TokenForm extends CsrfParams {
  token: string;
  password?: string;
  password_confirm?: string;
}
interface PasswordForm extends CsrfParams {
  current_password?: string;
  new_password?: string;
  new_password_confirm?: string;
}

const PEOPLE = '/dashboard/people';
const ACCOUNT = '/dashboard/account';
const SIGN_IN_COOKIE = 'cv_signin';

const text = (maxLength: number) => ({ type: 'string', maxLength }) as const;
const idParams = { type: 'object', required: ['id'], properties: { id: text(200), ...csrfField } } as const;
const passwordField = text(PASSWORD_MAX_LENGTH + 100);

const ROLE_WORDS: Record<string, string> = {
  owner: 'Owner: everything, including owners',
  admin: 'Admin: API keys, the webhook secret and people',
  member: 'Member: campaigns',
};
/** The accounts actions' field-prefixed messages, said with the form's labels. */
const FIELD_WORDS: Array<[RegExp, string]> = [
  [/^current_password: /, 'Current password: '],
  [/^new_password: /, 'New password: '],
  [/^password: /, 'Password: '],
];

const passwordRule = `between ${PASSWORD_MIN_LENGTH} and ${PASSWORD_MAX_LENGTH} characters`;
const inviteUnusable =
  'This invitation link is not valid any more: it was used, withdrawn or has expired. Ask the person who invited you for a new one.';

function said(err: unknown): string {
  return FIELD_WORDS.reduce((message, [field, label]) => message.replace(field, label), refusalWords(err));
}

/** A new password's problem in words, or null. */
function newPasswordProblem(password: string | undefined, confirmation: string | undefined): string | null {
  if (!password || password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH)
    return `Choose a password of ${passwordRule}.`;
  if (password !== confirmation) return 'The two passwords differ: type the same one twice.';
  return null;
}

const minutes = (seconds: number) => Math.round((seconds / 60) * 10) / 10;

export const accountActions: DashboardActionSchemas = {
  /** This month against the plan, by status, language and platform, and the last 12 months. */
  usage: {
    visibility: 'published',
    dashboard: { access: 'session' },
    async handler(this: DashboardThis, ctx: Ctx): Promise<string> {
      const [report, history, batches] = await Promise.all([
        call(ctx, 'campaigns.usageReport', {}),
        call(ctx, 'campaigns.usageHistory', {}),
        call(ctx, 'campaigns.batchUsage', {}),
      ]);
      const session = ctx.meta.session!;
      return this.page(ctx, 'usage', {
        title: 'Usage',
        nav: 'usage',
        report,
        batches,
        monthName: monthName(report.month),
        share: report.limit > 0 ? Math.min(100, Math.round((report.used / report.limit) * 100)) : 0,
        limits: session.limits,
        byStatus: CAMPAIGN_STATES.map((state) => ({
          state,
          label: stateLabel(state),
          count: report.campaigns.by_status[state] ?? 0,
        })),
        byLanguage: report.by_language.map((row) => ({ ...row, minutes: minutes(row.seconds) })),
        byPlatform: report.by_platform.map((row) => ({
          ...row,
          name: platformLabel(row.platform),
          minutes: minutes(row.seconds),
        })),
        history: history.map((m) => ({ ...m, name: monthName(m.month) })),
        chart: usageChart(history, report.month),
      });
    },
  },

  /** The people and open invitations; owners and admins also get the controls the rules allow them. */
  people: {
    visibility: 'published',
    dashboard: { access: 'session' },
    async handler(this: DashboardThis, ctx: Ctx): Promise<string> {
      const session = ctx.meta.session!;
      const { people, invites } = await call(ctx, 'accounts.people', { org_id: session.org_id, actor_id: session.user_id });
      const owners = people.filter((p) => p.role === 'owner').length;
      const manages = managesPeople(session.role);
      const flash = await this.takeFlash(ctx);
      return this.page(ctx, 'people', {
        title: 'People',
        nav: 'people',
        manages,
        people: people.map((person) => personRow(person, session.role, session.user_id, owners)),
        invites,
        inviteRoles: USER_ROLES.filter((role) => roleChangeRefusal(session.role, undefined, role, Infinity) === null).map((role) => ({
          role,
          words: ROLE_WORDS[role],
        })),
        form: { email: flash?.form?.email ?? '', role: flash?.form?.role ?? 'member' },
        invited: flash?.invite,
      });
    },
  },

  invite: {
    visibility: 'published',
    dashboard: { access: 'session', write: true },
    params: { type: 'object', properties: { email: text(400), role: text(20), ...csrfField } },
    async handler(this: DashboardThis, ctx: Ctx<InviteForm>): Promise<string> {
      const session = ctx.meta.session!;
      const email = (ctx.params.email ?? '').trim().toLowerCase();
      const role = ctx.params.role ?? 'member';
      try {
        if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 320)
          throw invalidInput('Enter the email address of the person to invite.');
        const invited = await call(ctx, 'accounts.invite', { org_id: session.org_id, actor_id: session.user_id, email, role });
        const link = `${configOf(this.broker).publicBaseUrl}/dashboard/invite/${invited.token}`;
        return await this.redirectWithFlash(ctx, PEOPLE, { invite: { link, email, role, expires_at: invited.expires_at } });
      } catch (err) {
        return this.redirectWithFlash(ctx, PEOPLE, { error: said(err), form: { email, role } });
      }
    },
  },

  revokeInvite: {
    visibility: 'published',
    dashboard: { access: 'session', write: true },
    params: idParams,
    async handler(this: DashboardThis, ctx: Ctx<IdForm>): Promise<string> {
      const session = ctx.meta.session!;
      if (!UUID_ANY_CASE.test(ctx.params.id)) throw notFound('No such invitation in your organization.');
      try {
        const { revoked } = await call(ctx, 'accounts.revokeInvite', {
          org_id: session.org_id,
          actor_id: session.user_id,
          invite_id: ctx.params.id,
        });
        return await this.redirectWithFlash(
          ctx,
          PEOPLE,
          revoked
            ? { notice: 'The invitation is withdrawn: its link no longer works.' }
            : { error: 'That invitation was already used, withdrawn or has expired.' },
        );
      } catch (err) {
        return this.redirectWithFlash(ctx, PEOPLE, { error: said(err) });
      }
    },
  },

  setRole: {
    visibility: 'published',
    dashboard: { access: 'session', write: true },
    params: { type: 'object', required: ['id'], properties: { id: text(200), role: text(20), ...csrfField } },
    async handler(this: DashboardThis, ctx: Ctx<RoleForm>): Promise<string> {
      const session = ctx.meta.session!;
      if (!UUID_ANY_CASE.test(ctx.params.id)) throw notFound('No such person in your organization.');
      try {
        const person = await call(ctx, 'accounts.setRole', {
          org_id: session.org_id,
          actor_id: session.user_id,
          user_id: ctx.params.id,
          role: ctx.params.role ?? '',
        });
        return await this.redirectWithFlash(ctx, PEOPLE, {
          notice: `${person.email} is now ${person.role === 'admin' ? 'an' : 'a'} ${person.role}.`,
        });
      } catch (err) {
        return this.redirectWithFlash(ctx, PEOPLE, { error: said(err) });
      }
    },
  },

  /** Asks before a removal (works without JavaScript); a removal the rules refuse says why instead. */
  removePersonPage: {
    visibility: 'published',
    dashboard: { access: 'session' },
    params: idParams,
    async handler(this: DashboardThis, ctx: Ctx<IdForm>): Promise<string> {
      const session = ctx.meta.session!;
      const { people } = await call(ctx, 'accounts.people', { org_id: session.org_id, actor_id: session.user_id });
      const person = people.find((p) => p.user_id === ctx.params.id.toLowerCase());
      if (!person) throw notFound('No such person in your organization.');
      const owners = people.filter((p) => p.role === 'owner').length;
      return this.page(ctx, 'remove-person', {
        title: 'Remove a person',
        nav: 'people',
        person,
        self: person.user_id === session.user_id,
        refusal: removalRefusal(session.role, person.role, owners),
      });
    },
  },

  removePerson: {
    visibility: 'published',
    dashboard: { access: 'session', write: true },
    params: idParams,
    async handler(this: DashboardThis, ctx: Ctx<IdForm>): Promise<string> {
      const session = ctx.meta.session!;
      if (!UUID_ANY_CASE.test(ctx.params.id)) throw notFound('No such person in your organization.');
      const actor = { org_id: session.org_id, actor_id: session.user_id };
      try {
        const { people } = await call(ctx, 'accounts.people', actor);
        const person = people.find((p) => p.user_id === ctx.params.id.toLowerCase());
        if (!person) throw notFound('No such person in your organization.');
        await call(ctx, 'accounts.removeUser', { ...actor, user_id: person.user_id });
        return await this.redirectWithFlash(ctx, PEOPLE, { notice: `${person.email} was removed and signed out everywhere.` });
      } catch (err) {
        return this.redirectWithFlash(ctx, PEOPLE, { error: said(err) });
      }
    },
  },

  /** An invitation's link, opened by the invited person (no session needed): whom it invites, and a password to choose. */
  invitePage: {
    visibility: 'published',
    dashboard: { access: 'public' },
    params: { type: 'object', required: ['token'], properties: { token: text(200) } },
    async handler(this: DashboardThis, ctx: Ctx<{ token: string }>): Promise<string> {
      const token = ctx.params.token;
      const invite = INVITE_TOKEN_PATTERN.test(token) ? await call(ctx, 'accounts.inviteInfo', { token }) : null;
      return this.page(
        ctx,
        'invite',
        invite
          ? { title: `Join ${invite.org_name}`, ownBrand: true, invite, action: `/dashboard/invite/${token}`, passwordRule }
          : { title: 'Invitation not valid', ownBrand: true, unusable: inviteUnusable },
        invite ? 200 : 410,
      );
    },
  },

  /** The invited person's password: the user is made and signed in; a refusal goes back to the link's page, in words. */
  acceptInvite: {
    visibility: 'published',
    dashboard: { access: 'public', write: true },
    params: {
      type: 'object',
      required: ['token'],
      properties: { token: text(200), password: passwordField, password_confirm: passwordField, ...csrfField },
    },
    async handler(this: DashboardThis, ctx: Ctx<TokenForm>): Promise<string> {
      const http = ctx.meta.http!;
      const token = ctx.params.token;
      const back = `/dashboard/invite/${encodeURIComponent(token)}`;
      const config = configOf(this.broker);
      // Each attempt hashes a password (argon2): limited per client as sign-in is.
      const wait = await this.limit([{ key: `invite:ip:${http.ip}`, limit: config.dashboard.signInPerIp }]);
      if (wait > 0) return this.redirectWithFlash(ctx, back, { error: `Too many attempts. Try again in ${wait} s.` });
      const problem = newPasswordProblem(ctx.params.password, ctx.params.password_confirm);
      if (problem) return this.redirectWithFlash(ctx, back, { error: problem });
      let accepted;
      try {
        accepted = await call(ctx, 'accounts.acceptInvite', { token, password: ctx.params.password! });
      } catch (err) {
        return this.redirectWithFlash(ctx, back, { error: said(err) });
      }
      const secure = http.secure;
      const { session } = accepted;
      return this.redirectWithFlash(
        ctx,
        '/dashboard/campaigns',
        { notice: `Welcome to ${session.org_name}. You are signed in as ${session.email} (${session.role}).` },
        {
          scope: session.session_id,
          cookies: [
            sessionCookie(accepted.token, Math.floor(config.dashboard.sessionMaxMs / 1000), secure),
            `${SIGN_IN_COOKIE}=; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`,
          ],
        },
      );
    },
  },

  /** The signed-in user's account: who they are, and their password. */
  account: {
    visibility: 'published',
    dashboard: { access: 'session' },
    handler(this: DashboardThis, ctx: Ctx): Promise<string> {
      return this.page(ctx, 'account', { title: 'Your account', nav: 'account', passwordRule });
    },
  },

  /** A new password with the current one; every other session of the user ends (this one stays), and the page says so. */
  changePassword: {
    visibility: 'published',
    dashboard: { access: 'session', write: true },
    params: {
      type: 'object',
      properties: { current_password: passwordField, new_password: passwordField, new_password_confirm: passwordField, ...csrfField },
    },
    async handler(this: DashboardThis, ctx: Ctx<PasswordForm>): Promise<string> {
      const session = ctx.meta.session!;
      const config = configOf(this.broker);
      const wait = await this.limit([{ key: `password:user:${session.user_id}`, limit: config.dashboard.signInPerEmail }]);
      if (wait > 0) return this.redirectWithFlash(ctx, ACCOUNT, { error: `Too many attempts. Try again in ${wait} s.` });
      if (!ctx.params.current_password) return this.redirectWithFlash(ctx, ACCOUNT, { error: 'Enter your current password.' });
      const problem = newPasswordProblem(ctx.params.new_password, ctx.params.new_password_confirm);
      if (problem) return this.redirectWithFlash(ctx, ACCOUNT, { error: problem });
      try {
        const changed = await call(ctx, 'accounts.changePassword', {
          user_id: session.user_id,
          session_id: session.session_id,
          current_password: ctx.params.current_password,
          new_password: ctx.params.new_password!,
        });
        const ended = changed.other_sessions_ended;
        return await this.redirectWithFlash(ctx, ACCOUNT, {
          notice:
            `Your password is changed. ` +
            (ended === 0
              ? 'You had no other sessions; this one stays signed in.'
              : `${ended} other ${ended === 1 ? 'session was' : 'sessions were'} signed out; this one stays signed in.`),
        });
      } catch (err) {
        return this.redirectWithFlash(ctx, ACCOUNT, { error: said(err) });
      }
    },
  },
};

/** A person as the people page shows them to `actorRole`: the roles it may give them, or why not; remove, or why not. */
function personRow(person: PersonView, actorRole: string, actorId: string, owners: number) {
  const manages = managesPeople(actorRole);
  const roles = USER_ROLES.filter((role) => role !== person.role && roleChangeRefusal(actorRole, person.role, role, owners) === null);
  const roleRefusal =
    manages && roles.length === 0 ? roleChangeRefusal(actorRole, person.role, person.role === 'owner' ? 'admin' : 'owner', owners) : null;
  return {
    ...person,
    self: person.user_id === actorId,
    roles,
    roleRefusal,
    removalRefusal: manages ? removalRefusal(actorRole, person.role, owners) : null,
  };
}
