/**
 * The scene editor's form (lib/dashboard/editor.ts, lib/dashboard/views/edit-video.eta): what the page's form posts
 * reads back as the state it was built from; moves, removals and a new scene change only the form; the edit a state
 * asks for is one the API's own check (readEdit) takes; the action's errors name their scene in words; and everything
 * that came from the customer's page is escaped.
 */
import { renderView } from '../../lib/dashboard/render';
import {
  applyEditorOp,
  editOfState,
  editorView,
  parseEditorOp,
  readEditorForm,
  sceneOfError,
  stateOfDocument,
  type EditorForm,
  type EditorState,
} from '../../lib/dashboard/editor';
import type { VideoDocument } from '../../lib/campaign/video-document';
import { readEdit } from '../../lib/campaign/video-edit';

const CAMPAIGN = '11111111-2222-4333-8444-555555555555';
const VIDEO = '66666666-7777-4888-8999-aaaaaaaaaaaa';
const XSS = '</textarea><script>alert(1)</script><img src=x onerror=alert(2)>';

const screen = (id: string, language: string | null, viewport: 'desktop' | 'mobile', heading: string | null) => ({
  id,
  language,
  viewport,
  heading,
  width: 780,
  height: 1688,
  url: `https://cdn.test/files/screens/${CAMPAIGN}/${id}.png?expires=1&signature=s`,
});

const document: VideoDocument = {
  format: 'universal-video-json',
  format_version: '0.1',
  revision: 2,
  campaign_id: CAMPAIGN,
  video_id: VIDEO,
  language: 'en',
  platform: 'tiktok',
  variant: 'a',
  frame: { width: 1080, height: 1920, fps: 30 },
  voice: { id: 'en-rhvoice-clb', engine: 'rhvoice', name: 'clb' },
  captions: 'burned',
  quality: 'draft',
  brand: { primary_color: '#1f2937', logo_url: null },
  scenes: [
    { id: 'scene_0', kind: 'title', narration: 'Meet Acme.', headline: 'Acme', start_seconds: 0, duration_seconds: 2 },
    {
      id: 'scene_1',
      kind: 'screen',
      narration: 'It ships fast.',
      headline: 'Fast',
      screen: 'source-mobile-0',
      start_seconds: 2,
      duration_seconds: 3,
    },
    {
      id: 'scene_2',
      kind: 'screen',
      narration: 'It bills right.',
      headline: XSS,
      screen: 'source-mobile-1',
      start_seconds: 5,
      duration_seconds: 3,
    },
    { id: 'scene_3', kind: 'closing', narration: 'Try it.', headline: 'acme.test', start_seconds: 8, duration_seconds: 2 },
  ],
  assets: {
    screens: [
      screen('source-mobile-0', 'de', 'mobile', null),
      screen('source-mobile-1', 'de', 'mobile', XSS),
      screen('en-mobile-0', 'en', 'mobile', 'Pricing'),
    ],
  },
  quality_report: {
    checked_at: '2026-11-28T08:00:00.000Z',
    passed: false,
    flags: [{ code: 'blank_scene', scene_id: 'scene_2', message: `Scene 3 shows an almost empty screen ${XSS}` }],
    repaired: [],
  },
};

function editorHtml(state: EditorState, extra: Record<string, unknown> = {}): string {
  return renderView('edit-video', {
    title: 'Edit video',
    csrf: 'token',
    campaign: { campaign_id: CAMPAIGN, title: 'Acme', status: 'review' },
    video: { id: VIDEO, language: 'en', platform: 'tiktok', status: 'ready', revision: 2 },
    document,
    action: `/dashboard/campaigns/${CAMPAIGN}/videos/${VIDEO}/edit`,
    editor: editorView(state, document),
    ...extra,
  });
}

const unescape = (text: string) =>
  text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** The fields a browser posts for the form in `html` (our own markup: hidden inputs, textareas, checked radios). */
function postedFields(html: string): EditorForm {
  const form: EditorForm = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) form[m[1]] = unescape(m[2]);
  for (const m of html.matchAll(/<textarea [^>]*name="([^"]+)"[^>]*>([\s\S]*?)<\/textarea>/g)) form[m[1]] = unescape(m[2]);
  for (const m of html.matchAll(/<input type="radio" name="([^"]+)" value="([^"]*)" checked>/g)) form[m[1]] = unescape(m[2]);
  delete form._csrf;
  return form;
}

test('the page’s form posts back the state it was built from', () => {
  const state = stateOfDocument(document);
  expect(readEditorForm(postedFields(editorHtml(state)))).toEqual(state);
});

test('what came from the customer’s page is escaped: in a textarea, a screenshot’s heading, the title', () => {
  const html = editorHtml(stateOfDocument(document), { campaign: { campaign_id: CAMPAIGN, title: XSS, status: 'review' } });
  expect(html).not.toContain('<script>');
  expect(html).not.toContain('<img src=x');
  expect(html.match(/<\/textarea>/g)).toHaveLength(8);
  expect(html).toContain('&lt;/textarea&gt;&lt;script&gt;');
  // Thumbnails are same-origin links (img-src 'self'), whatever PUBLIC_BASE_URL says.
  expect(html).toContain(`src="/files/screens/${CAMPAIGN}/en-mobile-0.png?expires=1&amp;signature=s"`);
  expect(html).not.toContain('https://cdn.test');
});

test('only screen scenes move or go, within the screen scenes; the voice is one of the language’s', () => {
  const view = editorView(stateOfDocument(document), document);
  expect(view.scenes.map((s) => s.moves)).toEqual([
    { up: false, down: false, remove: false },
    { up: false, down: true, remove: true },
    { up: true, down: false, remove: true },
    { up: false, down: false, remove: false },
  ]);
  expect(view.voices.every((v) => v.id.startsWith('en-'))).toBe(true);
  expect(view.voices.filter((v) => v.selected).map((v) => v.id)).toEqual(['en-rhvoice-clb']);
  // The video's own language's page first.
  expect(view.screens[0].id).toBe('en-mobile-0');
});

test('moves, removals and a new scene change the form only; a button the form did not offer changes nothing', () => {
  const state = stateOfDocument(document);
  const ids = (s: EditorState) => s.scenes.map((scene) => scene.id);
  const down = applyEditorOp(state, { kind: 'down', at: 1 }, document);
  expect(ids(down.state)).toEqual(['scene_0', 'scene_2', 'scene_1', 'scene_3']);
  expect(down.notice).toMatch(/moved down, now scene 3\. Nothing is saved/);
  expect(ids(applyEditorOp(down.state, { kind: 'up', at: 2 }, document).state)).toEqual(ids(state));
  expect(ids(applyEditorOp(state, { kind: 'remove', at: 2 }, document).state)).toEqual(['scene_0', 'scene_1', 'scene_3']);

  const added = applyEditorOp(state, { kind: 'add' }, document);
  expect(added.state.scenes[3]).toEqual({ id: 'added_1', kind: 'screen', narration: '', headline: '', screen: 'en-mobile-0' });
  expect(added.state.scenes[4].kind).toBe('closing');
  expect(applyEditorOp(added.state, { kind: 'add' }, document).state.scenes[4].id).toBe('added_2');

  for (const op of [
    { kind: 'up', at: 1 },
    { kind: 'down', at: 0 },
    { kind: 'remove', at: 3 },
    { kind: 'remove', at: 9 },
  ] as const) {
    const refused = applyEditorOp(state, op, document);
    expect(refused.state).toBe(state);
    expect(refused.error).toMatch(/^Scene \d+ cannot be/);
  }
  let full = state;
  while (full.scenes.length < 12) full = applyEditorOp(full, { kind: 'add' }, document).state;
  expect(applyEditorOp(full, { kind: 'add' }, document).error).toBe('A video has at most 12 scenes.');
});

test('the edit a state asks for is the API’s edit: readEdit takes it, with the settings the editor does not show kept', () => {
  const state = stateOfDocument(document);
  state.scenes[1].narration = 'It ships\r\nfaster now.';
  state.voice = 'en-rhvoice-bdl';
  const edit = readEdit(document, editOfState(state, document, 'full'));
  expect(edit).toMatchObject({ voice_id: 'en-rhvoice-bdl', captions: 'burned', quality: 'full', primary_color: '#1f2937' });
  expect(edit.scenes[1]).toEqual({
    id: 'scene_1',
    kind: 'screen',
    narration: 'It ships faster now.',
    headline: 'Fast',
    screen: 'source-mobile-0',
  });
  expect(editOfState(state, document, 'draft').quality).toBe('draft');
});

test('the buttons and a form that is not the editor’s', () => {
  expect(parseEditorOp('preview')).toEqual({ kind: 'submit', quality: 'draft' });
  expect(parseEditorOp('render')).toEqual({ kind: 'submit', quality: 'full' });
  expect(parseEditorOp('remove:11')).toEqual({ kind: 'remove', at: 11 });
  expect(() => parseEditorOp('publish')).toThrow(/Choose what to do/);
  const form = postedFields(editorHtml(stateOfDocument(document)));
  expect(() => readEditorForm({ ...form, scene_count: '13' })).toThrow(/scene_count/);
  expect(() => readEditorForm({ ...form, scene_1_kind: 'intro' })).toThrow(/scene 2/);
  expect(() => readEditorForm({ ...form, scene_1_narration: ['a', 'b'] })).toThrow(/twice/);
});

test('the action’s errors about a scene say which, in words, and mark it on the form', () => {
  expect(sceneOfError('scenes[1].narration: a screen scene says something; it is empty.')).toEqual({
    message: 'Scene 2, narration: a screen scene says something; it is empty.',
    scene: 1,
  });
  expect(sceneOfError('scenes[0].headline must be at most 200 characters')).toEqual({
    message: 'Scene 1, headline must be at most 200 characters',
    scene: 0,
  });
  expect(sceneOfError('revision: this video is at revision 3')).toEqual({ message: 'revision: this video is at revision 3' });
  const html = editorHtml(stateOfDocument(document), { error: 'Scene 2, narration: empty', errorScene: 1 });
  expect(html).toContain('<li class="card scene invalid" id="scene-1"');
  expect(html).toContain('id="editor-error">Scene 2, narration: empty</p>');
});

test('a scene the check flagged is marked, with the words that explain it; the others are not', () => {
  const html = editorHtml(stateOfDocument(document));
  const scenes = html.split('<li class="card scene').slice(1);
  expect(scenes).toHaveLength(4);
  expect(scenes.map((scene) => scene.startsWith(' flagged'))).toEqual([false, false, true, false]);
  expect(scenes[2]).toContain('<li data-flag="blank_scene"><strong>Empty screen:</strong> Scene 3 shows an almost empty screen');
  // The message can carry the page's words: escaped like everything else from it.
  expect(scenes[2]).not.toContain('<script>');
  const unchecked = { ...document, quality_report: null };
  const clean = editorHtml(stateOfDocument(unchecked), { editor: editorView(stateOfDocument(unchecked), unchecked) });
  expect(clean).not.toContain('data-flag=');
});
