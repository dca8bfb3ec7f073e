// TEMPORARY interface stub until the repair planner lands (replaced at merge).
import type { Storyboard, VideoEditScene } from '../campaign/storyboard';
import type { ShotContent } from '../render/framing';
import type { VideoCheck } from './check';
import type { QualityFlag, QualityRepair } from './report';
export interface RepairCandidate {
  key: string;
  heading: string | null;
  section?: number;
  texts: string[];
  content?: ShotContent | null;
}
export interface RepairPlan {
  scenes: VideoEditScene[];
  repaired: QualityRepair[];
  unrepaired: QualityFlag[];
}
export function planRepair(
  _storyboard: Storyboard,
  _check: VideoCheck,
  _candidates: RepairCandidate[],
  _screenIdOf: (key: string) => string,
): RepairPlan | null {
  return null;
}
