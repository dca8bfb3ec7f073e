/**
 * The videos of the client-rendered booking app (test/fixtures/site2) as a customer watches them:
 * test/support/visual-checks.ts, at draft quality (VISUAL_SITES). One site per file, so that the two sites' campaigns run
 * side by side.
 */
import { describeVisualChecks, VISUAL_SITES } from '../support/visual-checks';

describeVisualChecks(VISUAL_SITES[1]);
