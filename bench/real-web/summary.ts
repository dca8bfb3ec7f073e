/**
 * The real-web bench's counting, apart from its running: each site's outcome from the campaign's GET body (videos
 * ready; and once videos carry `quality`, decisions §13, passed, flags by code, repairs by action) and the table
 * the bench prints, with its totals.
 */
import { QUALITY_FLAG_CODES, REPAIR_ACTIONS, type QualityReport } from '../../lib/quality/report';

/** One site of the set, as sites.json lists it. */
export interface SiteEntry {
  name: string;
  /** The page under the site's folder, e.g. "/" or "/ko/index.html". */
  path: string;
  kind: string;
  languages: string[];
  platforms: string[];
  repo: string;
  notes?: string;
}

/** The fields of a video in GET /api/v1/campaigns/{id} that the bench reads. */
export interface CampaignVideo {
  id: string;
  language: string;
  platform: string;
  /** The hook variant (a, b, c); absent from an answer of a version without variants. */
  variant?: string;
  status: string;
  duration_seconds: number | null;
  script_source?: string;
  file_url: string | null;
  captions_url: string | null;
  captions_srt_url?: string | null;
  thumbnail_url?: string | null;
  quality?: QualityReport | null;
}

export interface CampaignBody {
  campaign_id: string;
  status: string;
  progress?: number;
  error?: { code: string; message: string };
  videos: CampaignVideo[];
}

export interface SiteOutcome {
  site: string;
  kind: string;
  status: string;
  seconds: number;
  videos: number;
  ready: number;
  /** Videos that carry a quality report; the counts below are over them. */
  checked: number;
  passed: number;
  unflagged: number;
  flags: Record<string, number>;
  repairs: Record<string, number>;
  error?: string;
}

function count(into: Record<string, number>, key: string): void {
  into[key] = (into[key] ?? 0) + 1;
}

export function outcomeOf(entry: SiteEntry, status: string, seconds: number, body?: CampaignBody, error?: string): SiteOutcome {
  const outcome: SiteOutcome = {
    site: entry.name,
    kind: entry.kind,
    status,
    seconds,
    videos: 0,
    ready: 0,
    checked: 0,
    passed: 0,
    unflagged: 0,
    flags: {},
    repairs: {},
    ...(error ? { error } : {}),
  };
  for (const video of body?.videos ?? []) {
    outcome.videos += 1;
    if (video.status === 'ready') outcome.ready += 1;
    const quality = video.quality;
    if (!quality) continue;
    outcome.checked += 1;
    if (quality.passed) outcome.passed += 1;
    if (quality.flags.length === 0) outcome.unflagged += 1;
    for (const flag of quality.flags) count(outcome.flags, flag.code);
    for (const repair of quality.repaired) count(outcome.repairs, repair.action);
  }
  return outcome;
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r) => r.map((cell, c) => cell.padEnd(widths[c])).join('  ')).join('\n');
}

const tally = (counts: Record<string, number>, order: readonly string[]) =>
  order
    .filter((k) => counts[k])
    .map((k) => `${k}:${counts[k]}`)
    .join(' ') || '-';

export function summary(outcomes: SiteOutcome[]): string {
  const anyQuality = outcomes.some((o) => o.checked > 0);
  const header = ['site', 'kind', 'status', 's', 'videos', ...(anyQuality ? ['passed', 'flags', 'repairs'] : [])];
  const rows = outcomes.map((o) => [
    o.site,
    o.kind,
    o.status,
    String(o.seconds),
    `${o.ready}/${o.videos}`,
    ...(anyQuality
      ? [o.checked ? `${o.passed}/${o.checked}` : '-', tally(o.flags, QUALITY_FLAG_CODES), tally(o.repairs, REPAIR_ACTIONS)]
      : []),
  ]);
  const lines = [table([header, ...rows])];
  const videos = outcomes.reduce((n, o) => n + o.videos, 0);
  const ready = outcomes.reduce((n, o) => n + o.ready, 0);
  const sitesOk = outcomes.filter((o) => o.status === 'review').length;
  lines.push('', `sites in review: ${sitesOk}/${outcomes.length}; videos ready: ${ready}/${videos}`);
  for (const o of outcomes.filter((x) => x.error)) lines.push(`  ${o.site}: ${o.error}`);
  if (anyQuality) {
    const checked = outcomes.reduce((n, o) => n + o.checked, 0);
    const unflagged = outcomes.reduce((n, o) => n + o.unflagged, 0);
    const passed = outcomes.reduce((n, o) => n + o.passed, 0);
    const flags: Record<string, number> = {};
    const repairs: Record<string, number> = {};
    for (const o of outcomes) {
      for (const [k, n] of Object.entries(o.flags)) flags[k] = (flags[k] ?? 0) + n;
      for (const [k, n] of Object.entries(o.repairs)) repairs[k] = (repairs[k] ?? 0) + n;
    }
    const pct = (n: number, of: number) => (of ? `${((100 * n) / of).toFixed(0)} %` : '-');
    lines.push(
      // Over all videos of the run (a failed video has no report, so it counts against), then over the checked ones.
      `videos with no flag: ${unflagged}/${videos} (${pct(unflagged, videos)}); of the ${checked} checked: ${pct(unflagged, checked)}, passed ${passed} (${pct(passed, checked)})`,
      `flags by code: ${tally(flags, QUALITY_FLAG_CODES)}`,
      `repairs by action: ${tally(repairs, REPAIR_ACTIONS)}`,
    );
  } else {
    lines.push('quality: no video carries a quality report');
  }
  return lines.join('\n');
}
