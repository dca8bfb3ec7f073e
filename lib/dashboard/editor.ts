/**
 * The dashboard's scene editor, the part that needs no browser script: the whole edit lives in the
 * form, so moving, removing or adding a scene is a form post that comes back as the same form changed, with nothing
 * saved, and Preview or Render sends the form's state to campaigns.editVideo, the API's own edit. Pure: the form read
 * into an editor state, the state's operations, the edit it asks for, and what the page shows of it.
 *
 * A form read here is shaped, never judged: the limits and refusals are the action's (the document's schema and
 * lib/campaign/video-edit.ts readEdit), so the editor shows the API's own errors, only saying which scene they name.
 */
import { voiceIdsFor, VOICE_OPTIONS_BY_ID } from '../../config/voices';
import type { RenderQuality } from '../../config/catalog';
import type { VideoDocument, VideoDocumentScene, VideoDocumentScreen } from '../campaign/video-document';
import { EDITS_PER_VIDEO_PER_DAY, type VideoEditInput } from '../campaign/video-edit';
import { invalidInput } from '../errors';
import { VIDEO_DOCUMENT_MAX_SCENES } from '../http/api-schemas';
import { sameOriginLink } from './render';
import { flagLabel } from './words';

export type EditorSceneKind = VideoDocumentScene['kind'];
const SCENE_KINDS: readonly EditorSceneKind[] = ['title', 'screen', 'closing'];

export interface EditorScene {
  id: string;
  kind: EditorSceneKind;
  narration: string;
  headline: string;
  /** Screen scenes: the screenshot picked (an id of the document's assets.screens); null when none is. */
  screen: string | null;
}
/** The edit as the form holds it: the revision it was read at, the voice, the scenes in order. */
export interface EditorState {
  revision: number;
  voice: string;
  scenes: EditorScene[];
}

/** What a press of one of the form's buttons asks (its `op` field). */
export type EditorOp = { kind: 'submit'; quality: RenderQuality } | { kind: 'up' | 'down' | 'remove'; at: number } | { kind: 'add' };

/** The form's fields: `scene_<n>_<field>` per scene (n from 0, `scene_count` of them), `revision`, `voice`, `op`. */
export type EditorForm = Record<string, string | string[] | undefined>;
export const SCENE_FIELDS = ['id', 'kind', 'narration', 'headline', 'screen'] as const;
/** The form's scene fields as the dashboard action's params schema admits them. */
export const SCENE_FIELD_PATTERN = `^scene_\\d{1,2}_(${SCENE_FIELDS.join('|')})$`;

export function stateOfDocument(document: VideoDocument): EditorState {
  return {
    revision: document.revision,
    voice: document.voice.id,
    scenes: document.scenes.map((scene) => ({
      id: scene.id,
      kind: scene.kind,
      narration: scene.narration,
      headline: scene.headline,
      screen: scene.screen ?? null,
    })),
  };
}

/** The state a posted form holds. A form that is not the editor's (a field missing or repeated) is a 400. */
export function readEditorForm(form: EditorForm): EditorState {
  const text = (name: string): string | undefined => {
    const value = form[name];
    if (Array.isArray(value)) throw invalidInput(`The form sent ${name} twice; reload the editor and try again.`);
    return value;
  };
  const whole = (name: string, min: number, max: number): number => {
    const value = text(name) ?? '';
    const n = /^\d{1,6}$/.test(value) ? Number(value) : NaN;
    if (!(n >= min && n <= max)) throw invalidInput(`The form's ${name} is not valid; reload the editor and try again.`);
    return n;
  };
  const count = whole('scene_count', 1, VIDEO_DOCUMENT_MAX_SCENES);
  const scenes = Array.from({ length: count }, (_, n): EditorScene => {
    const id = text(`scene_${n}_id`);
    const kind = text(`scene_${n}_kind`);
    if (id === undefined || !SCENE_KINDS.some((k) => k === kind))
      throw invalidInput(`The form's scene ${n + 1} is not complete; reload the editor and try again.`);
    return {
      id,
      kind: kind as EditorSceneKind,
      narration: text(`scene_${n}_narration`) ?? '',
      headline: text(`scene_${n}_headline`) ?? '',
      screen: kind === 'screen' ? (text(`scene_${n}_screen`) ?? null) : null,
    };
  });
  return { revision: whole('revision', 1, 999_999), voice: text('voice') ?? '', scenes };
}

export function parseEditorOp(op: string | undefined): EditorOp {
  if (op === 'preview') return { kind: 'submit', quality: 'draft' };
  if (op === 'render') return { kind: 'submit', quality: 'full' };
  if (op === 'add') return { kind: 'add' };
  const move = /^(up|down|remove):(\d{1,2})$/.exec(op ?? '');
  if (move) return { kind: move[1] as 'up' | 'down' | 'remove', at: Number(move[2]) };
  throw invalidInput('Choose what to do: Preview (draft), Render, or a scene’s move, remove or add button.');
}

const isScreen = (scene: EditorScene | undefined) => scene?.kind === 'screen';

/** Which buttons a scene has: only screen scenes move (the title stays first, the closing last) or go. */
export function sceneMoves(scenes: EditorScene[], at: number): { up: boolean; down: boolean; remove: boolean } {
  const screen = isScreen(scenes[at]);
  return {
    up: screen && isScreen(scenes[at - 1]),
    down: screen && isScreen(scenes[at + 1]),
    remove: screen && scenes.length > 1,
  };
}

/** An id no scene of the state has: `added_<n>`, within the document's scene id pattern. */
function unusedSceneId(scenes: EditorScene[]): string {
  const used = new Set(scenes.map((s) => s.id));
  let n = 1;
  while (used.has(`added_${n}`)) n += 1;
  return `added_${n}`;
}

/** The screenshot a new scene starts with: one not yet shown, of the video's own language's page first. */
function screenForNewScene(state: EditorState, document: VideoDocument): string | null {
  const shown = new Set(state.scenes.map((s) => s.screen));
  const screens = orderedScreens(document);
  return (screens.find((s) => !shown.has(s.id)) ?? screens[0])?.id ?? null;
}

/**
 * A move, removal or new scene applied to the posted state: the form again, changed, nothing saved. A button the form
 * would not have offered (a tampered or stale form) changes nothing and says why.
 */
export function applyEditorOp(
  state: EditorState,
  op: Exclude<EditorOp, { kind: 'submit' }>,
  document: VideoDocument,
): { state: EditorState; notice?: string; error?: string } {
  const unsaved = 'Nothing is saved until you preview or render.';
  const scenes = [...state.scenes];
  if (op.kind === 'add') {
    if (scenes.length >= VIDEO_DOCUMENT_MAX_SCENES) return { state, error: `A video has at most ${VIDEO_DOCUMENT_MAX_SCENES} scenes.` };
    const at = scenes[scenes.length - 1]?.kind === 'closing' ? scenes.length - 1 : scenes.length;
    scenes.splice(at, 0, {
      id: unusedSceneId(scenes),
      kind: 'screen',
      narration: '',
      headline: '',
      screen: screenForNewScene(state, document),
    });
    return { state: { ...state, scenes }, notice: `Scene ${at + 1} added: write what it says. ${unsaved}` };
  }
  const moves = op.at < scenes.length ? sceneMoves(scenes, op.at) : { up: false, down: false, remove: false };
  if (!moves[op.kind]) return { state, error: `Scene ${op.at + 1} cannot be ${op.kind === 'remove' ? 'removed' : `moved ${op.kind}`}.` };
  if (op.kind === 'remove') {
    scenes.splice(op.at, 1);
    return { state: { ...state, scenes }, notice: `Scene ${op.at + 1} removed. ${unsaved}` };
  }
  const to = op.kind === 'up' ? op.at - 1 : op.at + 1;
  [scenes[op.at], scenes[to]] = [scenes[to], scenes[op.at]];
  return { state: { ...state, scenes }, notice: `Scene ${op.at + 1} moved ${op.kind}, now scene ${to + 1}. ${unsaved}` };
}

/**
 * The edit the state asks for, as a PUT of the document sends it: the settings the editor does not show (captions,
 * brand colour) as the document has them, the quality the pressed button names.
 */
export function editOfState(state: EditorState, document: VideoDocument, quality: RenderQuality): VideoEditInput {
  return {
    format: document.format,
    format_version: document.format_version,
    revision: state.revision,
    voice: { id: state.voice },
    captions: document.captions,
    quality,
    brand: { primary_color: document.brand.primary_color },
    scenes: state.scenes.map((scene) => ({
      id: scene.id,
      kind: scene.kind,
      narration: scene.narration,
      headline: scene.headline,
      ...(scene.kind === 'screen' && scene.screen !== null ? { screen: scene.screen } : {}),
    })),
  };
}

/** The action's message about `scenes[n].field` said about "Scene n+1", and which scene it is; others as they are. */
export function sceneOfError(message: string): { message: string; scene?: number } {
  const named = /^scenes\[(\d+)\]\.?([a-z_]*)(:?)\s*/.exec(message);
  if (!named) return { message };
  const scene = Number(named[1]);
  const field = named[2] ? `, ${named[2]}` : '';
  return { message: `Scene ${scene + 1}${field}${named[3]} ${message.slice(named[0].length)}`, scene };
}

/** The campaign's screenshots, the video's own language's page first, each keeping the document's order within. */
function orderedScreens(document: VideoDocument): VideoDocumentScreen[] {
  const own = (s: VideoDocumentScreen) => (s.language === document.language ? 0 : 1);
  return [...document.assets.screens].sort((a, b) => own(a) - own(b));
}

const KIND_LABELS: Record<EditorSceneKind, string> = { title: 'Title card', screen: 'Screen', closing: 'Closing card' };

/** A screenshot as a choice: which page, which view, which section (the section's heading is the customer's text). */
function screenLabel(screen: VideoDocumentScreen): string {
  const page = screen.language ? `${screen.language} page` : 'the page';
  return `${page}, ${screen.viewport} · ${screen.heading ?? 'top of the page'}`;
}

/** What lib/dashboard/views/edit-video.eta shows: the state's scenes with their buttons and choices, the voices. */
export function editorView(state: EditorState, document: VideoDocument) {
  const screens = orderedScreens(document).map((s) => ({ id: s.id, label: screenLabel(s), url: sameOriginLink(s.url) }));
  const byId = new Map(screens.map((s) => [s.id, s]));
  const ids = voiceIdsFor(document.language);
  const voiceLabel = (id: string) => VOICE_OPTIONS_BY_ID.get(id)?.description ?? id;
  return {
    revision: state.revision,
    sceneCount: state.scenes.length,
    canAdd: state.scenes.length < VIDEO_DOCUMENT_MAX_SCENES,
    editsPerDay: EDITS_PER_VIDEO_PER_DAY,
    voice: { id: state.voice, label: voiceLabel(state.voice) },
    voices: (ids.includes(state.voice) ? ids : [state.voice, ...ids]).map((id) => ({
      id,
      label: voiceLabel(id),
      selected: id === state.voice,
    })),
    scenes: state.scenes.map((scene, at) => ({
      ...scene,
      at,
      kindLabel: KIND_LABELS[scene.kind],
      // What the product's own check saw in this scene of the revision that plays (decisions §13), in words.
      flags: (document.quality_report?.flags ?? [])
        .filter((flag) => flag.scene_id === scene.id)
        .map((flag) => ({ code: flag.code, label: flagLabel(flag.code), message: flag.message })),
      moves: sceneMoves(state.scenes, at),
      shown: scene.screen ? (byId.get(scene.screen) ?? null) : null,
    })),
    screens,
  };
}
