/**
 * The usage page's chart of the last months: campaigns counted against the quota per month as bars,
 * drawn by the server as SVG (no chart library, no script: the CSP allows none inline, and the page works without
 * JavaScript). Pure: the months in, the shapes' coordinates and the words for screen readers out; the template
 * (lib/dashboard/views/usage.eta) writes them as elements, escaped. The same numbers are in the table beside it.
 */

export interface ChartMonth {
  /** YYYY-MM */
  month: string;
  used: number;
}

export interface ChartBar {
  month: string;
  /** "Sep" (and "S", for a phone's width); the year under it for each January and the first bar. */
  label: string;
  initial: string;
  year: string | null;
  value: number;
  current: boolean;
  x: number;
  y: number;
  width: number;
  height: number;
  /** The centre of the bar's slot, where its value and label are written. */
  centre: number;
  valueY: number;
}

export interface UsageChart {
  width: number;
  height: number;
  plot: { left: number; right: number; top: number; bottom: number };
  bars: ChartBar[];
  gridlines: Array<{ y: number; value: number }>;
  labelY: number;
  yearY: number;
  title: string;
  desc: string;
}

/** Small enough that its 14-unit text stays readable when the chart is scaled down to a phone's width (about 340 px). */
const WIDTH = 480;
const HEIGHT = 230;
const MARGIN = { left: 38, right: 4, top: 26, bottom: 48 };

const monthShort = new Intl.DateTimeFormat('en-GB', { month: 'short', timeZone: 'UTC' });
const monthLong = new Intl.DateTimeFormat('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });
const dateOf = (month: string) => new Date(`${month}-01T00:00:00Z`);

/** "September 2025" for YYYY-MM. */
export function monthName(month: string): string {
  return monthLong.format(dateOf(month));
}

/** The smallest of 1, 2, 5 × 10^k at or above `max` / `ticks`: the gridlines' step, so at most `ticks` lines. */
function niceStep(max: number, ticks: number): number {
  const rough = Math.max(1, max / ticks);
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= rough);
  return step ?? 10 * power;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The chart of `months` (oldest first); `currentMonth` is marked. */
export function usageChart(months: ChartMonth[], currentMonth: string): UsageChart {
  const plot = { left: MARGIN.left, right: WIDTH - MARGIN.right, top: MARGIN.top, bottom: HEIGHT - MARGIN.bottom };
  const most = Math.max(0, ...months.map((m) => m.used));
  const step = niceStep(most, 4);
  const top = Math.max(step, Math.ceil(most / step) * step);
  const scale = (value: number) => plot.bottom - ((plot.bottom - plot.top) * value) / top;
  const slot = (plot.right - plot.left) / Math.max(1, months.length);
  const barWidth = Math.round(slot * 0.64);
  const bars = months.map((m, i): ChartBar => {
    const centre = plot.left + slot * i + slot / 2;
    const y = scale(m.used);
    const at = dateOf(m.month);
    return {
      month: m.month,
      label: monthShort.format(at),
      initial: monthShort.format(at).charAt(0),
      // The first bar's year, unless January follows at once (two years side by side would touch at a phone's width).
      year: m.month.endsWith('-01') || (i === 0 && !m.month.endsWith('-12')) ? m.month.slice(0, 4) : null,
      value: m.used,
      current: m.month === currentMonth,
      x: round(centre - barWidth / 2),
      y: round(y),
      width: barWidth,
      // A month with none still shows a hairline, so the axis reads as twelve months.
      height: round(Math.max(plot.bottom - y, 1)),
      centre: round(centre),
      valueY: round(y - 6),
    };
  });
  const gridlines = [];
  for (let value = 0; value <= top; value += step) gridlines.push({ y: round(scale(value)), value });
  const first = months[0]?.month;
  const last = months[months.length - 1]?.month;
  const busiest = months.filter((m) => m.used === most && most > 0).map((m) => monthName(m.month));
  return {
    width: WIDTH,
    height: HEIGHT,
    plot,
    bars,
    gridlines,
    labelY: plot.bottom + 19,
    yearY: plot.bottom + 37,
    title: 'Campaigns counted against the quota, by month',
    desc:
      first && last
        ? `From ${monthName(first)} to ${monthName(last)}: ` +
          months.map((m) => `${monthName(m.month)}, ${plural(m.used, 'campaign')}`).join('; ') +
          '. ' +
          (busiest.length ? `The most was ${most}, in ${busiest.join(' and ')}.` : 'No campaigns in these months.')
        : 'No months to show.',
  };
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
