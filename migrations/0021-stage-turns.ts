/**
 * Fair turns at every stage (decisions §14): before a campaign's stage is called, the campaign waits for a turn of
 * that stage, and turns are granted round robin by organization, then by age (lib/campaign/turns.ts). The queue
 * lives here, not in a node's memory, so every node grants from the same queue and a node that dies loses nothing
 * queued. Owned by the campaign actor, as the campaigns are.
 *   stage_turns     — one row per waiting or granted turn (a campaign's call of a stage, per lane); times in epoch ms
 *   stage_queues    — one row per stage: the lock every grant takes, and the count of grants made (the round robin's clock)
 *   stage_org_turns — per stage and organization, the grant count at its last grant: who was served least recently
 */
import { DataTypes, type QueryInterface } from 'sequelize';

const STAGES = ['collecting', 'processing', 'scripting', 'voiceover', 'rendering'];

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.createTable('stage_turns', {
    campaign_id: { type: DataTypes.UUID, allowNull: false, primaryKey: true },
    stage: { type: DataTypes.STRING(20), allowNull: false, primaryKey: true },
    /** A part of the campaign that calls the stage on its own (a language's lane); '' for the whole campaign. */
    lane: { type: DataTypes.STRING(40), allowNull: false, primaryKey: true },
    org_id: { type: DataTypes.UUID, allowNull: false },
    /** Of the stage's capacity, how much the turn holds (a render's pending videos; 1 elsewhere). */
    weight: { type: DataTypes.INTEGER, allowNull: false },
    /** The campaign's creation: the age that orders an organization's turns. */
    age_ms: { type: DataTypes.BIGINT, allowNull: false },
    queued_ms: { type: DataTypes.BIGINT, allowNull: false },
    /** Null while waiting. */
    granted_ms: { type: DataTypes.BIGINT, allowNull: true },
    /** The node whose actor waits for the turn, or runs the stage with it; it renews the lease while it lives. */
    holder: { type: DataTypes.STRING(200), allowNull: false },
    lease_expires_ms: { type: DataTypes.BIGINT, allowNull: false },
  });
  await qi.addIndex('stage_turns', ['stage', 'granted_ms'], { name: 'stage_turns_stage' });
  await qi.addIndex('stage_turns', ['holder'], { name: 'stage_turns_holder' });
  await qi.createTable('stage_queues', {
    stage: { type: DataTypes.STRING(20), allowNull: false, primaryKey: true },
    grants: { type: DataTypes.BIGINT, allowNull: false },
  });
  await qi.bulkInsert(
    'stage_queues',
    STAGES.map((stage) => ({ stage, grants: 0 })),
  );
  await qi.createTable('stage_org_turns', {
    stage: { type: DataTypes.STRING(20), allowNull: false, primaryKey: true },
    org_id: { type: DataTypes.UUID, allowNull: false, primaryKey: true },
    last_grant: { type: DataTypes.BIGINT, allowNull: false },
  });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('stage_org_turns');
  await qi.dropTable('stage_queues');
  await qi.dropTable('stage_turns');
}
