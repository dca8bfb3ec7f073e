/**
 * The campaign actor's sweep looks, every CAMPAIGN_SWEEP_INTERVAL, for campaigns that still name a lease
 * owner past its expiry (an actor that died). A partial index on the leased campaigns (a handful at any time) keeps
 * it from scanning every campaign ever made.
 */
import { Op, type QueryInterface } from 'sequelize';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.addIndex('campaigns', ['lease_expires_at'], { name: 'campaigns_leased', where: { lease_owner: { [Op.ne]: null } } });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.removeIndex('campaigns', 'campaigns_leased');
}
