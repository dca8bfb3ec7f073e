/**
 * The accounts service's own vocabulary (services/accounts.service.ts and its module services/accounts/people.ts): the
 * methods and state the parts share on `this`, and what the people actions take and answer.
 */
import type { Service, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import type { PlanLimits } from '../../config/plans';
import type { Organization, User } from '../../lib/db/models';
import type { SessionInfo } from '../../lib/http/session';
import type { DbMethods } from '../../mixins/db.mixin';

/** What a plan's limits are computed from: the plan and the organization's own overrides. */
export type OrgPlanColumns = Pick<
  Organization,
  'id' | 'plan' | 'campaigns_per_month' | 'languages_per_campaign' | 'rate_per_minute' | 'max_api_keys'
>;

export type AccountsMethods = DbMethods<'accounts'> & {
  findOrg(orgId: string): Promise<Organization>;
  limitsOf(org: OrgPlanColumns): PlanLimits;
  sessionInfo(sessionId: string, user: User, org: Organization): SessionInfo;
  /** A new dashboard session for `user` (its token once, only its hash stored). */
  openSession(user: User, org: Organization): Promise<{ token: string; session: SessionInfo }>;
  /** The acting user of the organization (its role read here, never taken from the caller); 403 when not one. */
  actorOf(orgId: string, actorId: string): Promise<User>;
};

/** Besides DbMixin's `db`: a hash of a random password, verified when an email is unknown so that both answers take as long. */
export interface AccountsLocalVars {
  dummyHash?: Promise<string>;
}

export type AccountsThis = Service<ServiceSettingSchema> & AccountsMethods & AccountsLocalVars;
type AccountsSchema = ServiceSchema<ServiceSettingSchema, AccountsMethods, AccountsLocalVars>;
export type AccountsActionSchemas = NonNullable<AccountsSchema['actions']>;

/** The organization and the signed-in user acting in it (the dashboard passes its session's). */
export interface ActorParams {
  org_id: string;
  actor_id: string;
}
export interface InviteParams extends ActorParams {
  email: string;
  role: string;
}
export interface InviteResult {
  invite_id: string;
  /** The one-time link's token: shown once to the inviter, only its hash stored. */
  token: string;
  expires_at: string;
}
export interface InviteTokenParams {
  token: string;
}
export interface InviteInfo {
  email: string;
  role: string;
  org_name: string;
  expires_at: string;
}
export interface AcceptInviteParams {
  token: string;
  password: string;
}
export interface SetRoleParams extends ActorParams {
  user_id: string;
  role: string;
}
export interface RemoveUserParams extends ActorParams {
  user_id: string;
}
export interface RevokeInviteParams extends ActorParams {
  invite_id: string;
}
export interface ChangePasswordParams {
  user_id: string;
  /** The session the change is made from: it stays; every other session of the user ends. */
  session_id: string;
  current_password: string;
  new_password: string;
}
export interface PersonView {
  user_id: string;
  email: string;
  role: string;
  created_at: string;
  /** False until the person has a password (an operator's user without one cannot sign in yet). */
  can_sign_in: boolean;
}
export interface InviteView {
  invite_id: string;
  email: string;
  role: string;
  expires_at: string;
  created_at: string;
}
export interface PeopleView {
  people: PersonView[];
  /** Invitations not used, not revoked and not expired. */
  invites: InviteView[];
}
