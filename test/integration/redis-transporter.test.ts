/**
 * The Redis transporter's send(): a PUBLISH its client rejects (connection closed with the packet queued, as
 * around a Redis restart) is logged, never left as an unhandled rejection (which ends a Node 22 process).
 */
import type Redis from 'ioredis';
import { ServiceBroker } from 'moleculer';
import { transporterOption, type RedisSingleConnectionTransporter } from '../../lib/redis-transporter';
import { TEST_REDIS_URL, uniqueName } from '../support/harness';

test('a publish the Redis client rejects is logged, not left unhandled', async () => {
  const broker = new ServiceBroker({
    namespace: uniqueName('tx'),
    nodeID: uniqueName('tx-node'),
    logger: false,
    transporter: transporterOption(TEST_REDIS_URL) as any,
  });
  await broker.start();
  const tx = broker.transit!.tx as unknown as RedisSingleConnectionTransporter & {
    clientPub: Redis;
    logger: { warn: (...args: unknown[]) => void };
  };
  const warnings: string[] = [];
  tx.logger.warn = (...args: unknown[]) => warnings.push(args.map(String).join(' '));
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    tx.clientPub.disconnect();
    await tx.send('MOL-test.PROBE', Buffer.from('probe'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(unhandled).toEqual([]);
    expect(warnings).toContainEqual(expect.stringMatching(/^Redis publish to MOL-test\.PROBE failed: Connection is closed/));
  } finally {
    process.off('unhandledRejection', onUnhandled);
    await broker.stop().catch(() => undefined);
  }
});
