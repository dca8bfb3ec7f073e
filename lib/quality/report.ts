/**
 * The video's own check (decisions §13): the vocabulary of its report, defined once. The flag codes, the repair
 * actions and the report's shape; the API's schema (lib/http/api-schemas.ts), the render node's check
 * (lib/quality/check.ts), the repair's plan (lib/quality/repair.ts), the dashboard's words and docs/video.md derive
 * from these.
 */

/** What a customer's eye would catch in a finished video, one code per kind of defect. */
export const QUALITY_FLAG_CODES = [
  'blank_scene',
  'duplicate_screen',
  'cut_text',
  'wrong_language',
  'repeated_narration',
  'boilerplate',
  'cut_narration',
] as const;
export type QualityFlagCode = (typeof QUALITY_FLAG_CODES)[number];

/**
 * How a flagged scene was mended before the video was ready:
 * - `replaced`: another section of the page, not yet shown, in its place (its own screenshot and words);
 * - `reframed`: the same section framed again (the text column fitted, or the phone capture);
 * - `dropped`: the scene removed (a video keeps at least two screen scenes);
 * - `renarrated`: the scene's narration replaced (a repeated sentence by the section's next one, a cut one by a whole one).
 */
export const REPAIR_ACTIONS = ['replaced', 'reframed', 'dropped', 'renarrated'] as const;
export type RepairAction = (typeof REPAIR_ACTIONS)[number];

export interface QualityFlag {
  code: QualityFlagCode;
  /** The scene it was seen in (the video document's scene id); the later of two for duplicate_screen and repeated_narration. */
  scene_id: string;
  /** In a customer's words: what is wrong, and where. */
  message: string;
}

export interface QualityRepair {
  code: QualityFlagCode;
  scene_id: string;
  action: RepairAction;
}

/** A video's `quality` (decisions §13), as GET, the list, the webhooks, the document and the dashboard show it. */
export interface QualityReport {
  checked_at: string;
  /** No flag left after repair. */
  passed: boolean;
  flags: QualityFlag[];
  repaired: QualityRepair[];
}

/** The most repair rounds before a video is ready (decisions §13). */
export const MAX_REPAIR_ROUNDS = 2;
