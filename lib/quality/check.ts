// TEMPORARY interface stub until the check lands (replaced at merge).
import type { Storyboard } from '../campaign/storyboard';
import type { QualityFlag } from './report';
export interface SceneObservation {
  scene_id: string;
  kind: 'title' | 'screen' | 'closing';
  stats: { mean: number; stdev: number; edgeDensity: number; distinctColours?: number };
  pageWords: string[];
  ocrUsed: boolean;
  fingerprint?: string;
}
export interface VideoCheck {
  flags: QualityFlag[];
  scenes: SceneObservation[];
}
export function checkVideo(_input: { videoPath: string; storyboard: Storyboard; workDir: string }): Promise<VideoCheck> {
  return Promise.resolve({ flags: [], scenes: [] });
}
