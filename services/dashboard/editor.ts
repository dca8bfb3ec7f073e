/**
 * The dashboard's scene editor: a page per video of a campaign in review, built from the video's
 * document (campaigns.videoDocument, as the API's GET reads it), and its form, which either changes the form (a move,
 * a removal, a new scene: shown again, nothing saved; lib/dashboard/editor.ts) or sends the edit to
 * campaigns.editVideo, the API's PUT itself — the same validation, limits, 409 and 429, their messages shown in words
 * on the form with what was typed kept. Accepted, it goes back to the campaign page, where the new revision renders
 * while the previous one plays. A module of the `dashboard` service (spread into services/dashboard.service.ts).
 */
import { CampaignIdParams, VideoDocumentParams } from '../../lib/http/api-schemas';
import {
  applyEditorOp,
  editOfState,
  editorView,
  parseEditorOp,
  readEditorForm,
  SCENE_FIELD_PATTERN,
  sceneOfError,
  stateOfDocument,
  type EditorForm,
  type EditorState,
} from '../../lib/dashboard/editor';
import { formRefusal } from '../../lib/dashboard/form-errors';
import type { VideoDocument } from '../../lib/campaign/video-document';
import { notFound } from '../../lib/errors';
import { call } from '../../lib/net/calls';
import { csrfField, type Ctx, type DashboardActionSchemas, type DashboardMethods, type DashboardThis, type EditorMessages } from './types';

interface VideoIds {
  id: string;
  video_id: string;
}
type EditorPost = VideoIds & EditorForm & { op?: string; _csrf?: string };

const videoIdsParams = {
  type: 'object',
  required: ['id', 'video_id'],
  properties: { id: CampaignIdParams.properties.id, video_id: VideoDocumentParams.properties.video_id },
} as const;

/** The form as posted: its shape only (strings, bounded); the edit's own limits are the action's, so its errors are. */
const editorFormParams = {
  type: 'object',
  required: ['id', 'video_id'],
  additionalProperties: false,
  properties: {
    ...videoIdsParams.properties,
    op: { type: 'string', maxLength: 20 },
    revision: { type: 'string', maxLength: 12 },
    voice: { type: 'string', maxLength: 100 },
    scene_count: { type: 'string', maxLength: 3 },
    ...csrfField,
  },
  patternProperties: { [SCENE_FIELD_PATTERN]: { type: 'string', maxLength: 8000 } },
} as const;

const editorPath = (ids: VideoIds) => `/dashboard/campaigns/${encodeURIComponent(ids.id)}/videos/${encodeURIComponent(ids.video_id)}/edit`;

async function documentOf(ctx: Ctx, ids: VideoIds): Promise<VideoDocument> {
  const { document } = await call(ctx, 'campaigns.videoDocument', { id: ids.id, video_id: ids.video_id });
  return document;
}

export const editorActions: DashboardActionSchemas = {
  videoEditor: {
    visibility: 'published',
    dashboard: { access: 'session' },
    params: videoIdsParams,
    async handler(this: DashboardThis, ctx: Ctx<VideoIds>): Promise<string> {
      const document = await documentOf(ctx, ctx.params);
      return this.editorPage(ctx, ctx.params, stateOfDocument(document), document);
    },
  },

  /** The editor's form: a change of the form shown again, or Preview (draft) / Render through campaigns.editVideo. */
  editVideo: {
    visibility: 'published',
    dashboard: { access: 'session', write: true },
    params: editorFormParams,
    async handler(this: DashboardThis, ctx: Ctx<EditorPost>): Promise<string> {
      const { id, video_id, op, _csrf: _token, ...fields } = ctx.params;
      const ids = { id, video_id };
      const document = await documentOf(ctx, ids);
      const state = readEditorForm(fields);
      const asked = parseEditorOp(op);
      if (asked.kind !== 'submit') {
        const changed = applyEditorOp(state, asked, document);
        return this.editorPage(ctx, ids, changed.state, document, changed, changed.error ? 400 : 200);
      }
      try {
        await call(ctx, 'campaigns.editVideo', { ...ids, ...editOfState(state, document, asked.quality) });
      } catch (err) {
        const refusal = formRefusal(err);
        const { message, scene } = sceneOfError(refusal.message);
        return this.editorPage(ctx, ids, state, document, { error: message, errorScene: scene }, refusal.status);
      }
      return this.redirect(ctx, `/dashboard/campaigns/${encodeURIComponent(id)}#video-${encodeURIComponent(video_id)}`);
    },
  },
};

export const editorMethods = {
  /** The editor for `state` (read from the document, or as posted), with the campaign and video it edits. */
  async editorPage(ctx: Ctx, ids: VideoIds, state: EditorState, document: VideoDocument, messages: EditorMessages = {}, status = 200) {
    const campaign = await call(ctx, 'campaigns.get', { id: ids.id });
    const video = campaign.videos.find((v) => v.id === document.video_id);
    if (!video) throw notFound();
    return this.page(
      ctx,
      'edit-video',
      {
        title: `Edit video · ${campaign.title}`,
        campaign,
        video,
        document,
        action: editorPath(ids),
        editor: editorView(state, document),
        ...messages,
      },
      status,
    );
  },
} satisfies Pick<DashboardMethods, 'editorPage'> & ThisType<DashboardThis>;
