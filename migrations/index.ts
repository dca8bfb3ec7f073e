/** The ordered list of migrations; listed explicitly so tsx, jest and compiled dist/ all load the same set. */
import * as initial from './0001-initial';
import * as pageCaptures from './0002-page-captures';
import * as scriptsStoryboards from './0003-scripts-storyboards';
import * as renderAttempts from './0004-render-attempts';
import * as webhooks from './0005-webhooks';
import * as campaignWebhookEvents from './0006-campaign-webhook-events';
import * as videoPostersSrt from './0007-video-posters-srt';
import * as dashboardSessions from './0008-dashboard-sessions';
import * as webhookRedeliveries from './0009-webhook-redeliveries';
import * as campaignOptions from './0010-campaign-options';
import * as leasedCampaignsIndex from './0011-leased-campaigns-index';
import * as campaignPageLanguage from './0012-campaign-page-language';
import * as videoReportedAt from './0013-video-reported-at';
import * as planPageTexts from './0014-plan-page-texts';
import * as campaignRetryOf from './0015-campaign-retry-of';
import * as videoEdits from './0016-video-edits';
import * as userInvites from './0017-user-invites';
import * as videoQuality from './0018-video-quality';
import * as batches from './0019-batches';
import * as campaignWebhookEventsWanted from './0020-campaign-webhook-events';
import * as stageTurns from './0021-stage-turns';
import * as videoVariants from './0022-video-variants';
import * as videoOpeningRepeated from './0023-video-opening-repeated';
import * as expressTurns from './0024-express-turns';

export const MIGRATIONS = [
  { name: '0001-initial', ...initial },
  { name: '0002-page-captures', ...pageCaptures },
  { name: '0003-scripts-storyboards', ...scriptsStoryboards },
  { name: '0004-render-attempts', ...renderAttempts },
  { name: '0005-webhooks', ...webhooks },
  { name: '0006-campaign-webhook-events', ...campaignWebhookEvents },
  { name: '0007-video-posters-srt', ...videoPostersSrt },
  { name: '0008-dashboard-sessions', ...dashboardSessions },
  { name: '0009-webhook-redeliveries', ...webhookRedeliveries },
  { name: '0010-campaign-options', ...campaignOptions },
  { name: '0011-leased-campaigns-index', ...leasedCampaignsIndex },
  { name: '0012-campaign-page-language', ...campaignPageLanguage },
  { name: '0013-video-reported-at', ...videoReportedAt },
  { name: '0014-plan-page-texts', ...planPageTexts },
  { name: '0015-campaign-retry-of', ...campaignRetryOf },
  { name: '0016-video-edits', ...videoEdits },
  { name: '0017-user-invites', ...userInvites },
  { name: '0018-video-quality', ...videoQuality },
  { name: '0019-batches', ...batches },
  { name: '0020-campaign-webhook-events', ...campaignWebhookEventsWanted },
  { name: '0021-stage-turns', ...stageTurns },
  { name: '0022-video-variants', ...videoVariants },
  { name: '0023-video-opening-repeated', ...videoOpeningRepeated },
  { name: '0024-express-turns', ...expressTurns },
];
