/** A dashboard session for a test's HTTP requests: a new owner of the organization, signed in, and its forms' CSRF token. */
import type { Harness } from './harness';

const PASSWORD = 'correct horse battery staple';

export interface DashboardSession {
  /** The `Cookie` header to send. */
  cookie: string;
  /** The `_csrf` field its forms carry. */
  csrf: string;
}

export async function dashboardSession(h: Harness, orgId: string): Promise<DashboardSession> {
  const email = `owner-${Math.random().toString(36).slice(2)}@session.example`;
  await h.call('accounts.addUser', { org_id: orgId, email, role: 'owner', password: PASSWORD });
  const { token } = await h.call<{ token: string }>('accounts.signIn', { email, password: PASSWORD });
  const cookie = `cv_session=${token}`;
  const form = await fetch(`${h.baseUrl}/dashboard/campaigns/new`, { headers: { cookie } });
  if (form.status !== 200) throw new Error(`the new-campaign form answered ${form.status}`);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1];
  if (!csrf) throw new Error('the new-campaign form carries no CSRF token');
  return { cookie, csrf };
}

/** A dashboard form posted as a browser posts it (urlencoded, the session's cookie), redirects not followed. */
export function postForm(h: Harness, session: DashboardSession, path: string, fields: Record<string, string> = {}): Promise<Response> {
  return fetch(`${h.baseUrl}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: session.csrf, ...fields }),
  });
}

/**
 * Where a form's answer sends the browser (post/redirect/get: every form answers 303), read as the browser then reads
 * it: the session's cookie and the one-time flash cookie the answer set. The page's text.
 */
export async function followRedirect(h: Harness, session: DashboardSession, answer: Response): Promise<{ location: string; text: string }> {
  const location = answer.headers.get('location');
  if (answer.status !== 303 || !location) throw new Error(`the form answered ${answer.status}, not a 303 redirect`);
  const flash = answer.headers
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0])
    .filter((pair) => pair.startsWith('cv_flash='));
  const page = await fetch(new URL(location, h.baseUrl), { headers: { cookie: [session.cookie, ...flash].join('; ') } });
  return { location, text: await page.text() };
}
