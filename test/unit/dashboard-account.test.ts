/**
 * The account side's pure parts: the one-time flash (lib/dashboard/flash.ts: read once, only in its scope, sealed so
 * the store holds no key in the clear), the usage chart (lib/dashboard/usage-chart.ts: twelve months, bars in
 * proportion, words for screen readers) and the months it covers (lib/campaign/quota.ts periodsEndingAt), and the
 * account pages' templates escaping what came from a customer (an organization's name, an email).
 */
import { periodsEndingAt } from '../../lib/campaign/quota';
import { createFlashStore } from '../../lib/dashboard/flash';
import { renderView } from '../../lib/dashboard/render';
import { usageChart } from '../../lib/dashboard/usage-chart';

test('a flash is read once, only in the scope it was kept for, and a forged id reads nothing', async () => {
  const store = createFlashStore({ prefix: 'test:' });
  const id = await store.put('session-a', { newKey: 'sk_live_0123', notice: 'Key created.' });
  expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(await store.take('session-b', id)).toBeNull();
  expect(await store.take('session-a', id)).toEqual({ newKey: 'sk_live_0123', notice: 'Key created.' });
  expect(await store.take('session-a', id)).toBeNull();
  expect(await store.take('session-a', 'x'.repeat(43))).toBeNull();
  expect(await store.take('session-a', undefined)).toBeNull();
  await store.close();
});

test('a flash asked for from another scope stays for its own', async () => {
  const store = createFlashStore({ prefix: 'test:' });
  const id = await store.put('a', { notice: 'hello' });
  await store.take('b', id);
  expect(await store.take('a', id)).toEqual({ notice: 'hello' });
  await store.close();
});

test('the months a chart covers: twelve, oldest first, across a new year', () => {
  expect(periodsEndingAt('2026-02', 12)).toEqual([
    '2025-03',
    '2025-04',
    '2025-05',
    '2025-06',
    '2025-07',
    '2025-08',
    '2025-09',
    '2025-10',
    '2025-11',
    '2025-12',
    '2026-01',
    '2026-02',
  ]);
  expect(periodsEndingAt('2026-12', 1)).toEqual(['2026-12']);
});

test('the chart: a bar per month in proportion, the year under the first bar and January, the current month marked, its words', () => {
  const months = periodsEndingAt('2026-02', 12).map((month, i) => ({ month, used: i === 10 ? 8 : i === 11 ? 2 : 0 }));
  const chart = usageChart(months, '2026-02');
  expect(chart.bars).toHaveLength(12);
  const [jan, feb] = chart.bars.slice(-2);
  expect(jan.height / feb.height).toBeCloseTo(4, 1);
  expect(chart.bars[0].height).toBe(1);
  expect(chart.bars.filter((b) => b.year).map((b) => [b.label, b.year])).toEqual([
    ['Mar', '2025'],
    ['Jan', '2026'],
  ]);
  expect(chart.bars.filter((b) => b.current).map((b) => b.month)).toEqual(['2026-02']);
  expect(chart.gridlines.map((g) => g.value)).toEqual([0, 2, 4, 6, 8]);
  for (const bar of chart.bars) expect(bar.x + bar.width).toBeLessThanOrEqual(chart.plot.right);
  expect(chart.desc).toContain('January 2026, 8 campaigns; February 2026, 2 campaigns.');
  expect(chart.desc).toContain('The most was 8, in January 2026.');
  expect(
    usageChart(
      months.map((m) => ({ ...m, used: 0 })),
      '2026-02',
    ).desc,
  ).toContain('No campaigns in these months.');
});

test('the people, invitation and account pages escape what a customer typed', () => {
  const session = { email: '<b>me</b>@x.example', role: 'owner', org_name: '<img src=x onerror=alert(1)>', plan: 'growth', limits: {} };
  const invite = renderView('invite', {
    title: 'Join',
    ownBrand: true,
    invite: { org_name: '<script>alert(1)</script>', role: 'member', email: 'a@b.example', expires_at: '2026-01-01T00:00:00Z' },
    action: '/dashboard/invite/t',
    passwordRule: 'between 10 and 200 characters',
    csrf: 't',
  });
  expect(invite).not.toContain('<script>alert');
  expect(invite).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  const account = renderView('account', { title: 'Your account', session, csrf: 't', passwordRule: '' });
  expect(account).not.toContain('<img src=x');
  expect(account).not.toContain('<b>me</b>');
});
