/**
 * Accessibility of a page as axe-core (a kept library, Deque's rules engine) judges it, in the real browser: the
 * page's serious and critical violations, each with its rule, impact and the elements it names. The dashboard's
 * browser tests call it on every page at 1280 px and 390 px.
 */
import fs from 'node:fs';
import type { Page } from 'puppeteer-core';

const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * The serious and critical violations on the page as it is now. axe is injected through the DevTools protocol
 * (page.evaluate), not a <script> tag, so the dashboard's strict Content-Security-Policy stays as served.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            context: Document,
            options: object,
          ) => Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> }> }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** `seriousViolations` at each width (the page reloaded at that viewport); keyed by width, empty when clean. */
export async function violationsAtWidths(page: Page, widths: number[] = [1280, 390]): Promise<Record<number, AxeViolation[]>> {
  const found: Record<number, AxeViolation[]> = {};
  const viewport = page.viewport();
  for (const width of widths) {
    await page.setViewport({ width, height: viewport?.height ?? 900 });
    await page.reload({ waitUntil: 'load' });
    found[width] = await seriousViolations(page);
  }
  if (viewport) await page.setViewport(viewport);
  return found;
}
