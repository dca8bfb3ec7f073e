/**
 * A campaign node's side of the turn queue in a process of its own, for test/integration/stage-turns.test.ts to kill:
 * it queues the turns named in TURNS (JSON NewTurn[]) through a TurnGate on the test's PostgreSQL schema, prints
 * `queued <key>` and `granted <key>` as they happen, and holds every turn until it is killed.
 */
import { loadConfig } from '../../config';
import { acquireDatabase } from '../../lib/db/database';
import { TurnGate } from '../../lib/campaign/turn-gate';
import { queueTurn, turnKey, type NewTurn } from '../../lib/campaign/turns';

async function main() {
  const config = loadConfig({}, { databaseUrl: process.env.TURN_DATABASE_URL, databaseSchema: process.env.TURN_SCHEMA, dataDir: '/tmp' });
  const db = await acquireDatabase(config);
  const gate = new TurnGate({
    db,
    nodeID: process.env.TURN_NODE ?? 'holder',
    leaseMs: Number(process.env.TURN_LEASE_MS ?? 1000),
    pollMs: 100,
    capacityOf: () => Number(process.env.TURN_CAPACITY ?? 1),
    announce: () => undefined,
    warn: (message) => console.error(message),
  });
  const turns = JSON.parse(process.env.TURNS ?? '[]') as NewTurn[];
  const leaseMs = Number(process.env.TURN_LEASE_MS ?? 1000);
  for (const turn of turns) {
    // Queued first (take() queues it again, the same row), so the test knows it is in the table before it kills us.
    await queueTurn(db, turn, process.env.TURN_NODE ?? 'holder', leaseMs);
    console.log(`queued ${turnKey(turn.campaignId, turn.lane)}`);
    gate.take(turn).then(
      () => console.log(`granted ${turnKey(turn.campaignId, turn.lane)}`),
      (err: Error) => console.log(`lost ${turnKey(turn.campaignId, turn.lane)} ${err.message}`),
    );
  }
  setInterval(() => undefined, 60_000);
}

main().catch((err: Error) => {
  console.error(err);
  process.exit(1);
});
