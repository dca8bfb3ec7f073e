/**
 * The gateway's /dashboard route: the pages' aliases (services/dashboard.service.ts), what the dashboard learns from
 * the HTTP request, and its failures shown as pages through the API's one error mapping.
 */
import type { Logger } from 'moleculer';
import type { AppConfig } from '../../config';
import { DASHBOARD_HEADERS, errorHeading, renderView } from '../../lib/dashboard/render';
import { FLASH_COOKIE } from '../../lib/dashboard/flash';
import { toErrorResponse } from '../../lib/errors';
import { isMultipartForm, readMultipartForm } from '../../lib/http/form-data';
import { clientIp, fromTrustedProxy, type TrustedProxies } from '../../lib/http/client-ip';
import { cookieValue, SESSION_COOKIE, type DashboardHttp } from '../../lib/http/session';
import { loggablePath, type Req, type Res } from './request';

/** The dashboard's pages and forms (services/dashboard.service.ts), relative to /dashboard; `campaigns/new` and `campaigns/status` before `campaigns/:id`. */
export const DASHBOARD_ALIASES: Record<string, string> = {
  'GET /': 'dashboard.home',
  'GET static/:file': 'dashboard.asset',
  'GET sign-in': 'dashboard.signInPage',
  'POST sign-in': 'dashboard.signIn',
  'POST sign-out': 'dashboard.signOut',
  'GET campaigns': 'dashboard.campaigns',
  'GET campaigns/new': 'dashboard.newCampaign',
  'GET campaigns/status': 'dashboard.campaignsLive',
  'POST campaigns': 'dashboard.createCampaign',
  'GET campaigns/:id': 'dashboard.campaign',
  'GET campaigns/:id/status': 'dashboard.campaignStatus',
  'POST campaigns/:id/publish': 'dashboard.publish',
  'POST campaigns/:id/retry': 'dashboard.retryCampaign',
  'GET campaigns/:id/cancel': 'dashboard.cancelCampaignPage',
  'POST campaigns/:id/cancel': 'dashboard.cancelCampaign',
  'GET campaigns/:id/report': 'dashboard.campaignReport',
  'GET campaigns/:id/webhooks': 'dashboard.campaignWebhooks',
  'POST campaigns/:id/webhooks/redeliver': 'dashboard.redeliverWebhook',
  'GET voices/:voice_id/sample': 'dashboard.voiceSample',
  'GET campaigns/:id/videos/:video_id/edit': 'dashboard.videoEditor',
  'POST campaigns/:id/videos/:video_id/edit': 'dashboard.editVideo',
  'GET keys': 'dashboard.keys',
  'POST keys': 'dashboard.createKey',
  'GET keys/:id/revoke': 'dashboard.revokeKeyPage',
  'POST keys/:id/revoke': 'dashboard.revokeKey',
  'POST webhook-secret/rotate': 'dashboard.rotateWebhookSecret',
  // The account side (services/dashboard/account-pages.ts): usage, people, an invitation's page, the user's account.
  // Batches (services/dashboard/batch-pages.ts): `batches/new` and `batches/preview` before `batches/:id`.
  'GET batches': 'dashboard.batches',
  'GET batches/new': 'dashboard.newBatch',
  'POST batches/preview': 'dashboard.previewBatch',
  'POST batches': 'dashboard.createBatch',
  'GET batches/:id': 'dashboard.batch',
  'GET batches/:id/status': 'dashboard.batchStatus',
  'POST batches/:id/webhooks/redeliver': 'dashboard.redeliverBatchWebhook',
  'GET usage': 'dashboard.usage',
  'GET people': 'dashboard.people',
  'POST people/invite': 'dashboard.invite',
  'POST people/invites/:id/revoke': 'dashboard.revokeInvite',
  'POST people/:id/role': 'dashboard.setRole',
  'GET people/:id/remove': 'dashboard.removePersonPage',
  'POST people/:id/remove': 'dashboard.removePerson',
  'GET invite/:token': 'dashboard.invitePage',
  'POST invite/:token': 'dashboard.acceptInvite',
  'GET account': 'dashboard.account',
  'POST account/password': 'dashboard.changePassword',
};

/** The dashboard's forms that may carry a file (multipart/form-data), and how large a one is read. */
const MULTIPART_FORMS = new Set(['/dashboard/batches/preview']);
export const MULTIPART_LIMIT_BYTES = 1024 * 1024;

/** A multipart body of a form that may carry a file, read into `req.body` (the urlencoded parser leaves it alone). */
export async function readDashboardMultipart(req: Req): Promise<void> {
  const path = (req.parsedUrl ?? loggablePath(req)).split('?')[0];
  if (req.method !== 'POST' || !MULTIPART_FORMS.has(path) || !isMultipartForm(req.headers['content-type'])) return;
  (req as Req & { body?: unknown }).body = await readMultipartForm(req, MULTIPART_LIMIT_BYTES);
}

/** The requests answered as JSON, errors included (the status polls), rather than as a page. */
export function answersJson(path: string): boolean {
  return path.split('?')[0].endsWith('/status');
}

/** What the dashboard learns from the HTTP request: the session cookie, the sign-in nonce, the CSRF header, the flash, the client. */
export function dashboardHttp(req: Req, config: AppConfig, trustedProxies: TrustedProxies): DashboardHttp {
  const cookies = req.headers.cookie;
  const trusted = fromTrustedProxy(req, trustedProxies);
  const csrfHeader = req.headers['x-csrf-token'];
  return {
    sessionToken: cookieValue(cookies, SESSION_COOKIE),
    signInNonce: cookieValue(cookies, 'cv_signin'),
    csrfHeader: typeof csrfHeader === 'string' ? csrfHeader : undefined,
    flashId: cookieValue(cookies, FLASH_COOKIE),
    json: answersJson(req.parsedUrl ?? loggablePath(req)),
    ip: clientIp(req, trustedProxies),
    secure:
      config.publicBaseUrl.startsWith('https:') || 'encrypted' in req.socket || (trusted && req.headers['x-forwarded-proto'] === 'https'),
  };
}

/**
 * Dashboard failures through the same mapping as the API's, shown as a page; no session → sign-in. The status poll
 * (`…/status`) is answered as JSON by `answerJson`, the API's own answer.
 */
export function answerDashboardError(
  req: Req,
  res: Res,
  err: unknown,
  logger: Logger,
  answerJson: (req: Req, res: Res, err: unknown) => void,
): void {
  const { status, body, headers } = toErrorResponse(err);
  if (status >= 500 && status !== 503) logger.error(`${req.method} ${loggablePath(req)} failed:`, err instanceof Error ? err.message : err);
  if (res.headersSent) {
    res.end();
    return;
  }
  const path = req.parsedUrl ?? loggablePath(req);
  if (status === 401 && !answersJson(path)) {
    res.statusCode = 303;
    res.setHeader('Location', '/dashboard/sign-in');
    res.end();
    return;
  }
  if (answersJson(path)) return answerJson(req, res, err);
  res.statusCode = status;
  for (const [name, value] of Object.entries({ ...DASHBOARD_HEADERS, ...headers })) res.setHeader(name, value);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  const message = 'success' in body ? body.error.message : body.error;
  // A 503 (the database or a service down) passes: the page offers to load the same page again.
  const again = req.originalUrl ?? req.url ?? '';
  res.end(
    renderView('error', {
      title: errorHeading(status),
      heading: errorHeading(status),
      message,
      retry: status === 503 && req.method === 'GET' && again.startsWith('/dashboard/') ? again : undefined,
    }),
  );
}
