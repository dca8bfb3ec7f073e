/**
 * An organization's people, through the accounts service on real PostgreSQL: an invitation's
 * one-time link (only its hash stored, expiring, used once), roles and their rules (the last owner stays; only an owner
 * makes an owner; a member manages nobody), removal ending the person's sessions, and a password change that needs the
 * current password and ends every other session.
 */
import { hashSessionToken } from '../../lib/http/session';
import { startHarness, type Harness } from '../support/harness';

let h: Harness;
let orgId: string;
let ownerId: string;

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (err: { code?: number; type?: string; message: string }) => ({ code: err.code, type: err.type, message: err.message }),
  );

beforeAll(async () => {
  h = await startHarness();
  ({ orgId } = await h.newCustomer('business'));
  const [owner] = await h.sql<{ id: string }>('SELECT id FROM users WHERE org_id = $1', [orgId]);
  ownerId = owner.id;
}, 120_000);
afterAll(async () => h?.stop());

async function join(email: string, role: string, by = ownerId) {
  const invite = await h.call('accounts.invite', { org_id: orgId, actor_id: by, email, role });
  const signedIn = await h.call('accounts.acceptInvite', { token: invite.token, password: 'correct horse battery' });
  return { invite, userId: signedIn.session.user_id as string, token: signedIn.token as string, session: signedIn.session };
}

test('an invitation link: shown once, stored hashed, opens once, and signs the new member in with their role', async () => {
  const invite = await h.call('accounts.invite', { org_id: orgId, actor_id: ownerId, email: 'Ana@Example.test', role: 'member' });
  expect(invite.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  const [row] = await h.sql('SELECT token_hash, email, used_at FROM user_invites WHERE id = $1', [invite.invite_id]);
  expect(row).toEqual({ token_hash: hashSessionToken(invite.token), email: 'ana@example.test', used_at: null });
  expect(await h.call('accounts.inviteInfo', { token: invite.token })).toMatchObject({
    email: 'ana@example.test',
    role: 'member',
    org_name: 'Test Co',
  });
  const people = await h.call('accounts.people', { org_id: orgId, actor_id: ownerId });
  expect(people.invites.map((i: { email: string }) => i.email)).toContain('ana@example.test');

  const accepted = await h.call('accounts.acceptInvite', { token: invite.token, password: 'correct horse battery' });
  expect(accepted.session).toMatchObject({ email: 'ana@example.test', role: 'member', org_id: orgId });
  expect(await h.call('accounts.session', { token: accepted.token })).toMatchObject({ email: 'ana@example.test' });
  // Used once.
  expect(await h.call('accounts.inviteInfo', { token: invite.token })).toBeNull();
  const again = await refusal(h.call('accounts.acceptInvite', { token: invite.token, password: 'another long password' }));
  expect(again).toMatchObject({ code: 400, type: 'invalid_input', message: expect.stringMatching(/not valid any more/) });
  // The new member signs in with the password they chose.
  expect(await h.call('accounts.signIn', { email: 'ana@example.test', password: 'correct horse battery' })).not.toBeNull();
});

test('an expired or withdrawn invitation opens nothing; a second invitation replaces the first', async () => {
  const first = await h.call('accounts.invite', { org_id: orgId, actor_id: ownerId, email: 'bo@example.test', role: 'admin' });
  const second = await h.call('accounts.invite', { org_id: orgId, actor_id: ownerId, email: 'bo@example.test', role: 'admin' });
  expect(await h.call('accounts.inviteInfo', { token: first.token })).toBeNull();
  expect(await h.call('accounts.inviteInfo', { token: second.token })).not.toBeNull();
  await h.sql(`UPDATE user_invites SET expires_at = now() - interval '1 minute' WHERE id = $1`, [second.invite_id]);
  expect(await refusal(h.call('accounts.acceptInvite', { token: second.token, password: 'correct horse battery' }))).toMatchObject({
    code: 400,
  });
  const third = await h.call('accounts.invite', { org_id: orgId, actor_id: ownerId, email: 'bo@example.test', role: 'admin' });
  expect(await h.call('accounts.revokeInvite', { org_id: orgId, actor_id: ownerId, invite_id: third.invite_id })).toEqual({
    revoked: true,
  });
  expect(await h.call('accounts.inviteInfo', { token: third.token })).toBeNull();
  // Someone already a member is not invited again.
  expect(
    await refusal(h.call('accounts.invite', { org_id: orgId, actor_id: ownerId, email: 'owner@test.example', role: 'member' })),
  ).toMatchObject({
    code: 409,
  });
});

test('roles: a member manages nobody, an admin cannot make an owner, the last owner stays; removal ends sessions', async () => {
  const member = await join('cy@example.test', 'member');
  const admin = await join('di@example.test', 'admin');
  expect(
    await refusal(h.call('accounts.invite', { org_id: orgId, actor_id: member.userId, email: 'x@example.test', role: 'member' })),
  ).toMatchObject({
    code: 403,
  });
  expect(
    await refusal(h.call('accounts.setRole', { org_id: orgId, actor_id: admin.userId, user_id: member.userId, role: 'owner' })),
  ).toMatchObject({
    code: 403,
    message: expect.stringMatching(/Only an owner/),
  });
  expect(await h.call('accounts.setRole', { org_id: orgId, actor_id: admin.userId, user_id: member.userId, role: 'admin' })).toMatchObject({
    role: 'admin',
  });
  // The last owner can be neither demoted nor removed, even by themself.
  expect(await refusal(h.call('accounts.setRole', { org_id: orgId, actor_id: ownerId, user_id: ownerId, role: 'member' }))).toMatchObject({
    code: 409,
    message: expect.stringMatching(/last owner/),
  });
  expect(await refusal(h.call('accounts.removeUser', { org_id: orgId, actor_id: ownerId, user_id: ownerId }))).toMatchObject({ code: 409 });
  expect(await refusal(h.call('accounts.removeUser', { org_id: orgId, actor_id: admin.userId, user_id: ownerId }))).toMatchObject({
    code: 403,
  });
  // With a second owner, the first may step down.
  await h.call('accounts.setRole', { org_id: orgId, actor_id: ownerId, user_id: admin.userId, role: 'owner' });
  expect(await h.call('accounts.setRole', { org_id: orgId, actor_id: admin.userId, user_id: ownerId, role: 'owner' })).toMatchObject({
    role: 'owner',
  });
  // Removed: the person's session ends at once.
  expect(await h.call('accounts.session', { token: member.token })).not.toBeNull();
  expect(await h.call('accounts.removeUser', { org_id: orgId, actor_id: ownerId, user_id: member.userId })).toEqual({ removed: true });
  expect(await h.call('accounts.session', { token: member.token })).toBeNull();
  // Another organization's person is not found, and another organization's actor is refused.
  const other = await h.newCustomer('business');
  const [otherOwner] = await h.sql<{ id: string }>('SELECT id FROM users WHERE org_id = $1', [other.orgId]);
  expect(
    await refusal(h.call('accounts.removeUser', { org_id: other.orgId, actor_id: otherOwner.id, user_id: admin.userId })),
  ).toMatchObject({
    code: 404,
  });
  expect(await refusal(h.call('accounts.people', { org_id: orgId, actor_id: otherOwner.id }))).toMatchObject({ code: 403 });
});

test('a password change needs the current password and ends every other session of the user', async () => {
  const person = await join('ed@example.test', 'member');
  const elsewhere = await h.call('accounts.signIn', { email: 'ed@example.test', password: 'correct horse battery' });
  const change = { user_id: person.userId, session_id: person.session.session_id, new_password: 'a brand new passphrase' };
  expect(await refusal(h.call('accounts.changePassword', { ...change, current_password: 'wrong password here' }))).toMatchObject({
    code: 400,
    message: expect.stringMatching(/^current_password/),
  });
  expect(await h.call('accounts.session', { token: elsewhere.token })).not.toBeNull();
  expect(await h.call('accounts.changePassword', { ...change, current_password: 'correct horse battery' })).toEqual({
    changed: true,
    other_sessions_ended: 1,
  });
  expect(await h.call('accounts.session', { token: elsewhere.token })).toBeNull();
  expect(await h.call('accounts.session', { token: person.token })).not.toBeNull();
  expect(await h.call('accounts.signIn', { email: 'ed@example.test', password: 'correct horse battery' })).toBeNull();
  expect(await h.call('accounts.signIn', { email: 'ed@example.test', password: 'a brand new passphrase' })).not.toBeNull();
});
