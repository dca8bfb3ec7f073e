/**
 * Who may manage an organization's people, written once: owners and admins invite, set roles and
 * remove; only an owner makes or unmakes an owner; nobody removes or demotes the last owner. Pure, so the accounts
 * service enforces and the dashboard shows the same rules (a button it would refuse is not offered).
 */
import { USER_ROLES, type UserRole } from './auth';

/** How long an invitation's one-time link stays usable. */
export const INVITE_TTL_MS = 72 * 60 * 60_000;
/** The token in an invitation's link: 32 random bytes, base64url (as a session's). */
export const INVITE_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function isUserRole(role: string): role is UserRole {
  return (USER_ROLES as readonly string[]).includes(role);
}

/** Owners and admins manage people; members do not. */
export function managesPeople(role: string): boolean {
  return role === 'owner' || role === 'admin';
}

/** Why `actor` may not give `role` to someone who is `current` (undefined: a new person); null when allowed. */
export function roleChangeRefusal(actor: string, current: string | undefined, role: string, owners: number): string | null {
  if (!managesPeople(actor)) return 'Only owners and admins manage people.';
  if (!isUserRole(role)) return `"${role}" is not a role (owner, admin, member).`;
  if ((role === 'owner' || current === 'owner') && actor !== 'owner') return 'Only an owner can make or change an owner.';
  if (current === 'owner' && role !== 'owner' && owners <= 1)
    return 'The organization’s last owner keeps the owner role; make someone else owner first.';
  return null;
}

/** Why `actor` may not remove someone who is `target`; null when allowed. */
export function removalRefusal(actor: string, target: string, owners: number): string | null {
  if (!managesPeople(actor)) return 'Only owners and admins manage people.';
  if (target === 'owner' && actor !== 'owner') return 'Only an owner can remove an owner.';
  if (target === 'owner' && owners <= 1) return 'The organization’s last owner cannot be removed; make someone else owner first.';
  return null;
}
