/**
 * The stages' turn queue (decisions §14: fair across organizations at every stage, on every node) on the real
 * databases: grants go round robin by organization, then by age; an organization arriving while another's many wait
 * gets the next turn; two nodes granting from one queue never pass the capacity nor grant a turn twice; and a node
 * killed while it holds and queues turns loses nothing: its turns are reclaimed after their lease and adopted.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { QueryTypes } from 'sequelize';
import { loadConfig, type AppConfig } from '../../config';
import { TurnGate } from '../../lib/campaign/turn-gate';
import { grantTurns, heldTurns, organizationBacklog, queueTurn, releaseTurn, turnKey, type NewTurn } from '../../lib/campaign/turns';
import type { GeneratingState } from '../../lib/campaign/states';
import { acquireDatabase, dropSchema, releaseDatabase, type Database } from '../../lib/db/database';
import { TEST_DATABASE_URL, uniqueName } from '../support/harness';

const ROOT = path.resolve(__dirname, '..', '..');

function turn(orgId: string, ageMs: number, stage: GeneratingState = 'collecting', weight = 1): NewTurn {
  return { campaignId: crypto.randomUUID(), stage, lane: '', orgId, weight, ageMs };
}
const keyOf = (t: NewTurn) => turnKey(t.campaignId, t.lane);

describe.each(['postgres', 'sqlite'] as const)('the turn queue on %s', (dialect) => {
  let config: AppConfig;
  let db: Database;

  beforeAll(async () => {
    config = loadConfig(
      {},
      {
        dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'cv-turns-')),
        databaseUrl: dialect === 'postgres' ? TEST_DATABASE_URL : undefined,
        databaseSchema: dialect === 'postgres' ? uniqueName('t') : undefined,
      },
    );
    db = await acquireDatabase(config);
  });

  afterAll(async () => {
    await releaseDatabase(config);
    if (config.databaseSchema) await dropSchema(TEST_DATABASE_URL, config.databaseSchema);
    fs.rmSync(config.dataDir, { recursive: true, force: true });
  });

  /** Grants one at a time (capacity 1, no express turn), releasing each: the order the queue serves them in. */
  async function serveAll(stage: GeneratingState, count: number): Promise<string[]> {
    const order: string[] = [];
    for (let i = 0; i < count; i += 1) {
      const [key] = await grantTurns(db, stage, 1, { express: false });
      order.push(key);
      const [campaignId, lane] = key.split('|');
      await releaseTurn(db, { campaignId, stage, lane }, 'n1');
    }
    return order;
  }

  test('turns are granted round robin by organization, then by age', async () => {
    const [a, b, c] = ['a', 'b', 'c'].map(() => crypto.randomUUID());
    // Queued in an order that is neither: the batch of A first, then B's and C's, ages interleaved.
    const turns = {
      a1: turn(a, 1),
      a2: turn(a, 2),
      a3: turn(a, 3),
      a4: turn(a, 4),
      a5: turn(a, 5),
      b10: turn(b, 10),
      b11: turn(b, 11),
      c20: turn(c, 20),
    };
    for (const name of ['a3', 'a1', 'a5', 'a2', 'a4', 'b11', 'c20', 'b10'] as const) await queueTurn(db, turns[name], 'n1', 60_000);
    const order = await serveAll('collecting', 8);
    const names = new Map(Object.entries(turns).map(([name, t]) => [keyOf(t), name]));
    expect(order.map((key) => names.get(key))).toEqual(['a1', 'b10', 'c20', 'a2', 'b11', 'a3', 'a4', 'a5']);
  });

  test("an organization's campaign entering while another's many wait gets the next free turn", async () => {
    const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
    const batch = Array.from({ length: 10 }, (_, i) => turn(a, 1000 + i, 'voiceover'));
    for (const t of batch) await queueTurn(db, t, 'n1', 60_000);
    const grant = () => grantTurns(db, 'voiceover', 2, { express: false });
    expect(await grant()).toEqual([keyOf(batch[0]), keyOf(batch[1])]);
    // B's one campaign, newer than every one of A's.
    const lone = turn(b, 5000, 'voiceover');
    await queueTurn(db, lone, 'n1', 60_000);
    expect(await grant()).toEqual([]);
    await releaseTurn(db, { campaignId: batch[0].campaignId, stage: 'voiceover', lane: '' }, 'n1');
    expect(await grant()).toEqual([keyOf(lone)]);
    // A's next only after B's.
    await releaseTurn(db, { campaignId: batch[1].campaignId, stage: 'voiceover', lane: '' }, 'n1');
    expect(await grant()).toEqual([keyOf(batch[2])]);
  });

  test("a full stage grants one express turn past its capacity: to a single campaign's organization, never to a batch, one at a time", async () => {
    const [a, b, c] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    const stage = 'processing';
    const release = (t: NewTurn) => releaseTurn(db, { campaignId: t.campaignId, stage, lane: '' }, 'n1');
    const batch = Array.from({ length: 4 }, (_, i) => turn(a, 100 + i, stage));
    for (const t of batch) await queueTurn(db, t, 'n1', 60_000);
    // The batch fills the stage; its other campaigns wait, none of them express.
    expect(await grantTurns(db, stage, 1)).toEqual([keyOf(batch[0])]);
    expect(await grantTurns(db, stage, 1)).toEqual([]);
    // B's single campaign does not wait behind the batch: the express turn, marked so.
    const lone = turn(b, 5000, stage);
    await queueTurn(db, lone, 'n1', 60_000);
    expect(await grantTurns(db, stage, 1)).toEqual([keyOf(lone)]);
    const held = await heldTurns(db, stage, 'n1');
    expect([held.get(keyOf(batch[0])), held.get(keyOf(lone)), held.get(keyOf(batch[1]))]).toEqual(['granted', 'express', 'waiting']);
    // One express turn at a time: C's single campaign waits while B's runs.
    const third = turn(c, 6000, stage);
    await queueTurn(db, third, 'n1', 60_000);
    expect(await grantTurns(db, stage, 1)).toEqual([]);
    // The express turn holds none of the capacity: the batch's turn ending frees it, and C, never served, takes it.
    await release(batch[0]);
    expect(await grantTurns(db, stage, 1)).toEqual([keyOf(third)]);
    expect((await heldTurns(db, stage, 'n1')).get(keyOf(third))).toBe('granted');
    // B's express turn ending: the stage is full (C), and the batch does not qualify for the express turn.
    await release(lone);
    expect(await grantTurns(db, stage, 1)).toEqual([]);
    await release(third);
    expect(await grantTurns(db, stage, 1)).toEqual([keyOf(batch[1])]);
    for (const t of batch) await release(t);
  });

  test("an organization has a backlog while another of its campaigns waits for a turn; a campaign's own lanes are none", async () => {
    const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
    const first = turn(a, 1, 'voiceover');
    const second = turn(a, 2, 'voiceover');
    const lanes = [
      { ...turn(b, 3, 'voiceover'), lane: 'en' },
      { ...turn(b, 3, 'voiceover'), lane: 'ja' },
    ];
    lanes[1].campaignId = lanes[0].campaignId;
    for (const t of [first, second, ...lanes]) await queueTurn(db, t, 'n1', 60_000);
    expect(await organizationBacklog(db, a, first.campaignId)).toBe(true);
    expect(await organizationBacklog(db, b, lanes[0].campaignId)).toBe(false);
    // Granted, A's second campaign no longer waits: A's first has no backlog left.
    expect(await grantTurns(db, 'voiceover', 100)).toEqual(expect.arrayContaining([first, second, ...lanes].map(keyOf)));
    expect(await organizationBacklog(db, a, first.campaignId)).toBe(false);
    for (const t of [first, second, ...lanes]) await releaseTurn(db, { campaignId: t.campaignId, stage: 'voiceover', lane: t.lane }, 'n1');
  });

  test('rendering turns hold their videos of the render slots: the granted never outnumber the slots', async () => {
    const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
    const big = turn(a, 1, 'rendering', 3);
    const small = turn(b, 2, 'rendering', 2);
    const lone = turn(b, 3, 'rendering', 1);
    for (const t of [big, small, lone]) await queueTurn(db, t, 'n1', 60_000);
    // 4 slots: A's 3 videos, then B's 2 do not fit beside them, and B's 1 behind it does not pass it.
    expect(await grantTurns(db, 'rendering', 4)).toEqual([keyOf(big)]);
    const [{ held }] = await db.sequelize.query<{ held: number | string }>(
      "SELECT SUM(weight) AS held FROM stage_turns WHERE stage = 'rendering' AND granted_ms IS NOT NULL",
      { type: QueryTypes.SELECT },
    );
    expect(Number(held)).toBe(3);
    await releaseTurn(db, { campaignId: big.campaignId, stage: 'rendering', lane: '' }, 'n1');
    expect(await grantTurns(db, 'rendering', 4)).toEqual([keyOf(small), keyOf(lone)]);
  });
});

describe('two nodes on one PostgreSQL queue', () => {
  let config: AppConfig;
  let db: Database;

  beforeAll(async () => {
    config = loadConfig(
      {},
      { dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'cv-turns-')), databaseUrl: TEST_DATABASE_URL, databaseSchema: uniqueName('t') },
    );
    db = await acquireDatabase(config);
  });

  afterAll(async () => {
    await releaseDatabase(config);
    await dropSchema(TEST_DATABASE_URL, config.databaseSchema!);
    fs.rmSync(config.dataDir, { recursive: true, force: true });
  });

  function gates(capacity: number, leaseMs = 10_000, express = true): TurnGate[] {
    const made: TurnGate[] = [];
    for (const nodeID of ['node-1', 'node-2']) {
      made.push(
        new TurnGate({
          db,
          nodeID,
          leaseMs,
          pollMs: 200,
          capacityOf: () => capacity,
          express,
          // The broadcast: every node is told, itself included.
          announce: (stage) => made.forEach((gate) => gate.wake(stage)),
          warn: (message) => {
            throw new Error(message);
          },
        }),
      );
    }
    return made;
  }

  test('never grant past the capacity, nor one turn twice; at most one express turn besides', async () => {
    const capacity = 3;
    const [one, two] = gates(capacity);
    const orgs = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    const turns = Array.from({ length: 24 }, (_, i) => turn(orgs[i % 3], i, 'scripting'));
    // Within the capacity, and the express turn (an organization down to its last campaign qualifies), counted apart.
    const running = { granted: 0, express: 0 };
    const most = { granted: 0, express: 0 };
    const granted: string[] = [];
    await Promise.all(
      turns.map(async (t, i) => {
        const gate = i % 2 ? two : one;
        try {
          const kind = (await gate.take(t)).express ? 'express' : 'granted';
          running[kind] += 1;
          most[kind] = Math.max(most[kind], running[kind]);
          granted.push(keyOf(t));
          // The stage runs for a moment: other grants happen meanwhile.
          await new Promise((resolve) => setTimeout(resolve, 20 + (i % 5) * 10));
          running[kind] -= 1;
        } finally {
          await gate.release({ campaignId: t.campaignId, stage: 'scripting', lane: '' });
        }
      }),
    );
    expect(most.granted).toBeLessThanOrEqual(capacity);
    expect(most.granted).toBeGreaterThan(1);
    expect(most.express).toBeLessThanOrEqual(1);
    expect(new Set(granted).size).toBe(turns.length);
    // Each grant counts once in the stage's clock: 24 turns, 24 grants.
    const [{ grants }] = await db.sequelize.query<{ grants: number | string }>(
      "SELECT grants FROM stage_queues WHERE stage = 'scripting'",
      {
        type: QueryTypes.SELECT,
      },
    );
    expect(Number(grants)).toBe(turns.length);
    await Promise.all([one.stop(), two.stop()]);
  });

  test('a node killed while holding and queuing turns loses nothing: its turns are reclaimed after the lease and adopted', async () => {
    const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
    const held = turn(a, 1, 'rendering');
    const queued = turn(a, 2, 'rendering');
    // node itself (tsx as its loader, not tsx's wrapper process): the process killed is the one holding the turns.
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test', 'support', 'turn-holder.ts')], {
      cwd: ROOT,
      env: {
        ...process.env,
        TURN_DATABASE_URL: TEST_DATABASE_URL,
        TURN_SCHEMA: config.databaseSchema,
        TURN_NODE: 'doomed',
        TURN_LEASE_MS: '1500',
        TURN_CAPACITY: '1',
        TURNS: JSON.stringify([held, queued]),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    const seen = (line: string) =>
      new Promise<void>((resolve) => {
        const look = () => (output.includes(line) ? resolve() : setTimeout(look, 50));
        look();
      });
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await seen(`granted ${keyOf(held)}`);
    await seen(`queued ${keyOf(queued)}`);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));

    // Both turns are still in the queue, the dead node's.
    expect([...(await heldTurns(db, 'rendering', 'doomed'))].sort()).toEqual(
      [
        [keyOf(held), 'granted'],
        [keyOf(queued), 'waiting'],
      ].sort(),
    );
    // Another organization's campaign on a live node gets the slot once the dead node's lease ran out (no express
    // turn here: it would be granted at once, past the capacity).
    const [live] = gates(1, 10_000, false);
    const other = turn(b, 10, 'rendering');
    await live.take(other);
    expect(await heldTurns(db, 'rendering', 'doomed')).toEqual(
      new Map([
        [keyOf(held), 'waiting'],
        [keyOf(queued), 'waiting'],
      ]),
    );
    // The actors that take A's campaigns over adopt their turns, which kept their places: A's oldest next.
    const adopted = [live.take(held), live.take(queued)];
    await live.release({ campaignId: other.campaignId, stage: 'rendering', lane: '' });
    await adopted[0];
    expect(await heldTurns(db, 'rendering', 'node-1')).toEqual(
      new Map([
        [keyOf(held), 'granted'],
        [keyOf(queued), 'waiting'],
      ]),
    );
    await live.release({ campaignId: held.campaignId, stage: 'rendering', lane: '' });
    await adopted[1];
    await live.release({ campaignId: queued.campaignId, stage: 'rendering', lane: '' });
    await live.stop();
  });
});
