/**
 * The dashboard's vocabulary (services/dashboard.service.ts and its modules beside it, as the campaign actor's are):
 * the call's meta, the methods and state its parts share on `this`, and the form fields every form carries. Here so a
 * module (the scene editor, services/dashboard/editor.ts) can be typed without importing the service that spreads it.
 */
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import type { VideoDocument } from '../../lib/campaign/video-document';
import type { EditorState } from '../../lib/dashboard/editor';
import type { Flash, FlashStore } from '../../lib/dashboard/flash';
import type { PostedForm } from '../../lib/dashboard/create-form';
import type { DashboardHttp } from '../../lib/http/session';
import type { LayerCheck, RateLimiter } from '../../lib/http/rate-limiter';
import type { SessionInfo } from '../accounts.service';
import type { RulesMeta } from '../../mixins/action-rules';

/** What the gateway learns from the HTTP request: declared with the session's other pieces. */
export type { DashboardHttp };
export interface DashboardMeta extends RulesMeta {
  $statusCode?: number;
  $location?: string;
  $responseType?: string;
  $responseHeaders?: Record<string, string | string[]>;
}
export type Ctx<P = unknown> = Context<P, DashboardMeta>;

/** Form fields arrive as a string, or an array of strings when a name repeats (checkboxes). */
export type FormList = string | string[];
export interface CsrfParams {
  _csrf?: string;
}

/** Every form's CSRF field (checked by the action rules, mixins/action-rules.ts, before the params are read). */
export const csrfField = { _csrf: { type: 'string', maxLength: 200 } } as const;

/** What the editor's page shows beside the form: a notice (nothing saved yet) or the action's refusal in words. */
export interface EditorMessages {
  notice?: string;
  error?: string;
  /** The scene (0-based) the error is about, marked on the form. */
  errorScene?: number;
}

export type DashboardSettings = ServiceSettingSchema;

export type DashboardMethods = {
  page(ctx: Ctx, view: string, data: Record<string, unknown>, status?: number): Promise<string>;
  redirect(ctx: Ctx, location: string, cookies?: string[]): string;
  /**
   * The service's error hook: a refusal met by a signed-in user's page (another organization's campaign: 404; a member's
   * form: 403) answered as the error page with the header and navigation; the rest (no session, a JSON poll, a failure
   * of ours) rethrown, for the gateway's error page.
   */
  refusalAsPage(ctx: Ctx, err: unknown): Promise<string>;
  /**
   * Post/redirect/get with something to say (lib/dashboard/flash.ts): `flash` kept on the server for one read by the
   * page at `location`, in `scope` (default: this session's, or the sign-in form's before sign-in), and a 303 there.
   */
  redirectWithFlash(ctx: Ctx, location: string, flash: Flash, options?: { scope?: string; cookies?: string[] }): Promise<string>;
  /** This request's flash, read (and deleted) once; `page` shows its notice and error and hands it to the view as `flash`. */
  takeFlash(ctx: Ctx): Promise<Flash | null>;
  /** Where this request's flashes live: the session's id, or before sign-in the sign-in form's nonce. */
  flashScope(ctx: Ctx): string | undefined;
  /** Appends a `Set-Cookie` to the answer. */
  addCookie(ctx: Ctx, cookie: string): void;
  csrfFor(ctx: Ctx): string;
  requireManager(ctx: Ctx): SessionInfo;
  limit(layers: LayerCheck[]): Promise<number>;
  keysPage(ctx: Ctx, extra: Record<string, unknown>, status?: number): Promise<string>;
  /** The New campaign form: first shown (form undefined) or as posted, with the refusal in words. */
  newCampaignPage(ctx: Ctx, form: PostedForm | undefined, error?: string, status?: number): Promise<string>;
  webhooksPage(ctx: Ctx, id: string, messages: { notice?: string; error?: string }, status?: number): Promise<string>;
  editorPage(
    ctx: Ctx,
    ids: { id: string; video_id: string },
    state: EditorState,
    document: VideoDocument,
    messages?: EditorMessages,
    status?: number,
  ): Promise<string>;
};
export interface DashboardLocalVars {
  limiter: RateLimiter;
  signingKey: Buffer;
  flashes: FlashStore;
  staticFiles: Map<string, { type: string; body: Buffer }>;
}
export type DashboardThis = Service<DashboardSettings> & DashboardMethods & DashboardLocalVars;

type DashboardSchema = ServiceSchema<DashboardSettings, DashboardMethods, DashboardLocalVars>;
/** A part of the dashboard's actions (its modules export theirs; the service spreads them into its schema). */
export type DashboardActionSchemas = NonNullable<DashboardSchema['actions']>;
