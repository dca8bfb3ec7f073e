/**
 * A request as the gateway's route pieces see it (services/api.service.ts and its helpers here), and the path helpers
 * they share: kept apart so the download and dashboard routes can live in their own files.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ActionSchema, Context } from 'moleculer';
import type { Route } from 'moleculer-web';
import type { AuthContext } from '../../lib/http/auth';
import type { LayerState } from '../../lib/http/rate-limiter';

/**
 * A request as moleculer-web hands it to route middlewares, alias functions, hooks and error handlers: node's
 * IncomingMessage with the gateway's own fields (typed as loosely as moleculer-web's IncomingRequest declares
 * them, so these functions fit its route schema), and the two this gateway adds.
 */
export interface Req extends IncomingMessage {
  /** The api.rest call's context: the parent of the calls made while answering. */
  $ctx?: Context;
  /** The action the alias resolved to (its params schema types a GET's query in `authorize`). */
  $action?: ActionSchema;
  /** The call's params as moleculer-web merged them: body, query, then the alias's path parameters. */
  $params: Record<string, unknown>;
  $route?: Route;
  /** process.hrtime() when moleculer-web received the request. */
  $startTime?: number[];
  /** The URL as received (moleculer-web rewrites `url` to the part after the route's path). */
  originalUrl?: string;
  /** The URL's path, without the query string. */
  parsedUrl?: string;
  /** The API key's organization, plan and scopes (authenticateKey). */
  $auth?: AuthContext;
  /** The most constrained rate-limit layer seen so far (checkRate), shown in the X-RateLimit-* headers. */
  $rate?: LayerState;
  /** The parsed JSON body (parseJsonBody); moleculer-web reads it into the params. */
  body?: unknown;
}
export type Res = ServerResponse;
export type Next = (err?: unknown) => void;

/** A path segment that decodeURIComponent accepts (moleculer-web decodes path parameters with it). */
export function decodable(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

/** An invitation's link carries its one-time token in the path (a credential until used). */
const INVITE_PATH = /^(\/dashboard\/invite\/)[^/?]+/;

/** The path without its query string (a signed download's query is its credential) nor an invitation's token: never in a log. */
export function loggablePath(req: IncomingMessage & { originalUrl?: string }): string {
  const url = (req.originalUrl ?? req.url ?? '').replace(INVITE_PATH, '$1…');
  const query = url.indexOf('?');
  return query === -1 ? url : `${url.slice(0, query)}?…`;
}
