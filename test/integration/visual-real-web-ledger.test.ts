/**
 * A long SaaS landing page (test/fixtures/real-web/ledger): an announcement bar, a cookie banner, a carousel left
 * empty, a logo wall, events, sponsors and news before its features; English and Japanese pages, no Korean one
 * (its video is narrated from the English page and says so). 9:16 here; the landing page's 16:9 is the dark
 * theme's (visual-real-web-docs.test.ts), to keep the suite's time.
 */
import { describeRealWebChecks } from '../support/real-web-checks';

describeRealWebChecks([{ site: 'ledger', languages: ['en', 'ja', 'ko'], platforms: ['tiktok'] }]);
