/**
 * Reports (decisions §11). A report is not a second copy of the facts: the usage report is
 * counted from campaigns and videos, and a campaign's report is assembled, when asked, from what each owner
 * recorded — the transitions (campaigns), the scripts (script), the storyboards as spoken (voice) and the
 * render attempts (rendering). Its id is the campaign's under a prefix of its own, so there is nothing to keep in
 * step; a campaign has one once it has an outcome (review, published, failed).
 */
import { UUID_TEXT } from '../ids';
import { isGenerating } from '../campaign/states';
import type { ScriptDocument } from '../script/writer';
import type { Storyboard } from '../campaign/storyboard';

export const REPORT_ID_PREFIX = 'rpt_';

/** The campaign's report id, or null while it is generating (no report yet). */
export function reportIdOf(campaign: { id: string; status: string }): string | null {
  return isGenerating(campaign.status) ? null : `${REPORT_ID_PREFIX}${campaign.id}`;
}

/** The campaign id inside a report id; undefined when the text is not one of ours. */
export function campaignIdOfReport(reportId: string): string | undefined {
  if (!reportId.startsWith(REPORT_ID_PREFIX)) return undefined;
  const id = reportId.slice(REPORT_ID_PREFIX.length).toLowerCase();
  return UUID_TEXT.test(id) ? id : undefined;
}

/** `YYYY-MM`, a UTC month. */
export const MONTH_PATTERN = '^[0-9]{4}-(0[1-9]|1[0-2])$';

// ---- the usage report ----

export interface UsageCounts {
  campaigns: Array<{ status: string; count: number }>;
  videos: Array<{ language: string; platform: string; count: number; seconds: number }>;
}

export interface UsageReport {
  month: string;
  used: number;
  limit: number;
  resets_at: string;
  campaigns: { total: number; by_status: Record<string, number> };
  videos: { rendered: number; seconds: number };
  by_language: Array<{ language: string; videos: number; seconds: number }>;
  by_platform: Array<{ platform: string; videos: number; seconds: number }>;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** Sums by one key, largest first (then by name), so the table reads top-down. */
function sumBy<K extends 'language' | 'platform'>(rows: UsageCounts['videos'], key: K) {
  const sums = new Map<string, { videos: number; seconds: number }>();
  for (const row of rows) {
    const sum = sums.get(row[key]) ?? { videos: 0, seconds: 0 };
    sum.videos += row.count;
    sum.seconds += row.seconds;
    sums.set(row[key], sum);
  }
  return [...sums]
    .sort(([a, x], [b, y]) => y.videos - x.videos || a.localeCompare(b))
    .map(
      ([name, sum]) =>
        ({ [key]: name, videos: sum.videos, seconds: round1(sum.seconds) }) as { [P in K]: string } & { videos: number; seconds: number },
    );
}

/** The month's figures: `states` lists every campaign state, so a state with none reads 0 rather than missing. */
export function buildUsageReport(
  period: { month: string; used: number; limit: number; resets_at: string },
  counts: UsageCounts,
  states: readonly string[],
): UsageReport {
  const byStatus = Object.fromEntries(states.map((state) => [state, 0]));
  for (const row of counts.campaigns) byStatus[row.status] = (byStatus[row.status] ?? 0) + row.count;
  const rendered = counts.videos.reduce((n, row) => n + row.count, 0);
  const seconds = counts.videos.reduce((n, row) => n + row.seconds, 0);
  return {
    ...period,
    campaigns: { total: counts.campaigns.reduce((n, row) => n + row.count, 0), by_status: byStatus },
    videos: { rendered, seconds: round1(seconds) },
    by_language: sumBy(counts.videos, 'language'),
    by_platform: sumBy(counts.videos, 'platform'),
  };
}

// ---- a campaign's report ----

export interface ReportInputs {
  campaign: {
    campaign_id: string;
    status: string;
    url: string;
    created_at: string;
    error?: { code: string; message: string };
    videos: Array<{ id: string; language: string; platform: string; status: string; duration_seconds: number | null }>;
  };
  timeline: Array<{ from_status: string | null; to_status: string; at: string }>;
  scripts: Array<{ language: string; script_source: string; script: ScriptDocument }>;
  storyboards: Array<{ video_id: string; document: Storyboard }>;
  attempts: Array<{
    video_id: string;
    node_id: string | null;
    outcome: string;
    started_at: string;
    finished_at: string | null;
    wall_ms: number | null;
    error_message: string | null;
  }>;
}

export interface ReportScene {
  index: number;
  kind: 'title' | 'screen' | 'closing';
  on_screen_text: string;
  /** What the voice said, as spoken (after any re-fitting to the scene's time). */
  narration: string;
  /** Null when the campaign ended before its voiceover. */
  start_seconds: number | null;
  duration_seconds: number | null;
}

export interface CampaignReport {
  report_id: string;
  campaign_id: string;
  status: string;
  url: string;
  created_at: string;
  /** When it reached its outcome (review or failed). */
  finished_at: string | null;
  error?: { code: string; message: string };
  states: Array<{ state: string; entered_at: string; left_at: string | null; seconds: number | null }>;
  languages: Array<{
    language: string;
    script_source: string;
    /** Null when the campaign ended before its voiceover, or for storyboards older than this field. */
    voice: { engine: string; name: string } | null;
    /** Null until it was spoken. */
    total_seconds: number | null;
    scenes: ReportScene[];
  }>;
  videos: Array<{
    id: string;
    language: string;
    platform: string;
    status: string;
    duration_seconds: number | null;
    render_attempts: Array<{
      node_id: string | null;
      outcome: string;
      started_at: string;
      finished_at: string | null;
      seconds: number | null;
      error: string | null;
    }>;
  }>;
}

const secondsBetween = (from: string, to: string) => round1((Date.parse(to) - Date.parse(from)) / 1000);

export function buildCampaignReport(reportId: string, inputs: ReportInputs): CampaignReport {
  const { campaign, timeline } = inputs;
  const states = timeline.map((event, i) => {
    const next = timeline[i + 1];
    return {
      state: event.to_status,
      entered_at: event.at,
      left_at: next?.at ?? null,
      seconds: next ? secondsBetween(event.at, next.at) : null,
    };
  });
  const outcome = timeline.find((event) => event.to_status === 'review' || event.to_status === 'failed');
  const languages = inputs.scripts.map((row) => {
    const spoken = inputs.storyboards.find((s) => s.document.language === row.language)?.document;
    const script = row.script;
    const written = [script.title, ...script.screens, script.closing];
    const kinds = written.map((_, i): ReportScene['kind'] => (i === 0 ? 'title' : i === written.length - 1 ? 'closing' : 'screen'));
    const scenes: ReportScene[] = spoken
      ? spoken.scenes.map((scene) => ({
          index: scene.index,
          kind: scene.kind,
          on_screen_text: scene.onScreenText,
          narration: scene.narration.map((segment) => segment.text).join(' '),
          start_seconds: scene.startSeconds,
          duration_seconds: scene.durationSeconds,
        }))
      : written.map((scene, index) => ({
          index,
          kind: kinds[index],
          on_screen_text: scene.onScreenText,
          narration: scene.narration.map((segment) => segment.text).join(' '),
          start_seconds: null,
          duration_seconds: null,
        }));
    return {
      language: row.language,
      script_source: row.script_source,
      voice: spoken?.voice ?? null,
      total_seconds: spoken?.totalSeconds ?? null,
      scenes,
    };
  });
  const order = (language: string) => campaign.videos.findIndex((v) => v.language === language);
  languages.sort((a, b) => order(a.language) - order(b.language));
  return {
    report_id: reportId,
    campaign_id: campaign.campaign_id,
    status: campaign.status,
    url: campaign.url,
    created_at: campaign.created_at,
    finished_at: outcome?.at ?? null,
    ...(campaign.error ? { error: campaign.error } : {}),
    states,
    languages,
    videos: campaign.videos.map((video) => ({
      id: video.id,
      language: video.language,
      platform: video.platform,
      status: video.status,
      duration_seconds: video.duration_seconds,
      render_attempts: inputs.attempts
        .filter((attempt) => attempt.video_id === video.id)
        .sort((a, b) => Date.parse(a.started_at) - Date.parse(b.started_at))
        .map((attempt) => ({
          node_id: attempt.node_id,
          outcome: attempt.outcome,
          started_at: attempt.started_at,
          finished_at: attempt.finished_at,
          seconds: attempt.wall_ms !== null ? round1(attempt.wall_ms / 1000) : null,
          error: attempt.error_message,
        })),
    })),
  };
}
