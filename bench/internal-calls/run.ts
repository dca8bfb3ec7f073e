/**
 * bench/internal-calls: how many actions one campaign calls inside the cluster, and how many of
 * them go back to the campaign actor. One campaign of 3 languages × 2 platforms (draft renders: the count does not
 * depend on the quality) runs over the Redis transporter with TRACING_EXPORTER=event; every action executed for it
 * leaves a span whose trace id is the campaign's id (lib/campaign/stages.ts campaignTrace), and a collector on the
 * worker counts them by action.
 * Run: npm run bench:internal-calls
 */
import { startHarness, type Harness } from '../../test/support/harness';
import { runCampaign } from '../../test/support/campaign-run';
import { spanCollector, type ExportedSpan } from '../../test/support/spans';

const CAMPAIGN = { languages: ['en', 'ja', 'ko'], platforms: ['tiktok', 'youtube'], quality: 'draft' };
const limits = { ipUnauthenticated: 10_000, ipAuthenticated: 10_000, windowMs: 60_000, redisTimeoutMs: 10_000 };

async function main(): Promise<void> {
  const spans: ExportedSpan[] = [];
  let h: Harness | undefined;
  try {
    h = await startHarness({
      transport: 'redis',
      render: 'worker',
      workerServices: [spanCollector(spans)],
      config: { rateLimits: limits, videoTargetSeconds: 10, tracing: { exporter: 'event', zipkinUrl: '' } },
    });
    const { key } = await h.newCustomer('business');
    const { id, campaign } = await runCampaign(h, key, CAMPAIGN, 600_000);
    if (campaign.status !== 'review') throw new Error(`the campaign ended ${campaign.status}: ${JSON.stringify(campaign.error)}`);
    // Each node sends its finished spans every second.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const calls = spans.filter((span) => span.traceID === id && span.tags.action?.name);
    const byAction = new Map<string, number>();
    for (const span of calls) byAction.set(span.tags.action!.name!, (byAction.get(span.tags.action!.name!) ?? 0) + 1);
    const toActor = calls.filter((span) => span.tags.action!.name!.startsWith('campaigns.')).length;
    console.log(`bench/internal-calls: one campaign, ${CAMPAIGN.languages.join(', ')} × ${CAMPAIGN.platforms.join(', ')}`);
    console.log('');
    console.log('| action | calls |');
    console.log('|---|---|');
    for (const [action, count] of [...byAction].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])))
      console.log(`| ${action} | ${count} |`);
    console.log('');
    console.log(`internal calls: ${calls.length}; to the campaign actor (campaigns.*): ${toActor}`);
  } finally {
    await h?.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
