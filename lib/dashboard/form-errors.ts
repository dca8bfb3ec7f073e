/**
 * A dashboard form's refusal in words: the owner's action answers as it answers the API (lib/errors.ts
 * toErrorResponse), and the form shows its message beside the fields it kept. The plan's per-minute rate is refused by
 * the broker's rule with the limiter's bare body, so its words are the form's own, with the wait.
 */
import { toErrorResponse } from '../errors';

/** The words of the plan's per-minute rate refused, with the wait: a form's own unless it says it in its own terms. */
const planRateRefused = (retryAfterSeconds: string) => `Too many requests this minute on your plan. Try again in ${retryAfterSeconds} s.`;

/** The status and message a form shows for `err`; a failure of ours (5xx) is rethrown, for the error page. */
export function formRefusal(
  err: unknown,
  planRateWords: (retryAfterSeconds: string) => string = planRateRefused,
): { status: number; message: string } {
  const { status, body, headers } = toErrorResponse(err);
  if (status >= 500) throw err;
  if ('success' in body) return { status, message: body.error.message };
  return { status, message: status === 429 ? planRateWords(headers['Retry-After'] ?? '60') : body.error };
}

/** A refusal's words alone, for a form that answers with a redirect and a flash (post/redirect/get). */
export function refusalWords(err: unknown): string {
  return formRefusal(err, (wait) => `Too many requests this minute. Try again in ${wait} s.`).message;
}
