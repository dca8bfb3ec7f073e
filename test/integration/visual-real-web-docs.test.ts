/**
 * A documentation site (test/fixtures/real-web/quarry): a sidebar, a skip link, a machine-translation notice, a
 * right-to-left Arabic page translated only in part, framed on 16:9 where its body text must stay legible; and
 * the smaller pages, one frame shape each: a client-rendered Markdown page (/md/), a meta-refresh entry page
 * (/tiny/) and a dark theme (/dark/).
 */
import { describeRealWebChecks } from '../support/real-web-checks';

describeRealWebChecks([
  { site: 'quarry', languages: ['en', 'ja', 'ar'], platforms: ['youtube'] },
  { site: 'md', languages: ['en'], platforms: ['tiktok'] },
  { site: 'tiny', languages: ['en'], platforms: ['linkedin'] },
  { site: 'dark', languages: ['en'], platforms: ['youtube'] },
]);
