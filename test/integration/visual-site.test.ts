/**
 * The videos of the static product page (test/fixtures/site) as a customer watches them: test/support/visual-checks.ts.
 * One site per file, so that the two sites' campaigns run on Jest's two workers side by side.
 */
import { describeVisualChecks, VISUAL_SITES } from '../support/visual-checks';

describeVisualChecks(VISUAL_SITES[0]);
