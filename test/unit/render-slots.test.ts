import { ServiceBroker } from 'moleculer';
import { chooseRenderNode, EXPRESS_RENDER_SLOTS, RenderSlotTable, slotTableOf, takeRenderNode } from '../../lib/render/slots';

test('free slots: declared until reported, minus busy and calls not yet reported', () => {
  const table = new RenderSlotTable();
  expect(table.free('a', 2)).toBe(2);
  table.reserve('a');
  expect(table.free('a', 2)).toBe(1);
  table.report({ nodeID: 'a', slots: 3, busy: 1 });
  // The report counts the call we reserved for; the reservation is dropped.
  expect(table.free('a', 2)).toBe(2);
  table.forget('a');
  expect(table.free('a', 2)).toBe(2);
});

test('changed() wakes on a report and otherwise times out', async () => {
  const table = new RenderSlotTable();
  const woke = table.changed(5000);
  table.report({ nodeID: 'a', slots: 1, busy: 0 });
  await woke;
  const started = Date.now();
  await table.changed(50);
  expect(Date.now() - started).toBeGreaterThanOrEqual(40);
});

describe('the choice of a render node (takeRenderNode, the one way)', () => {
  const broker = new ServiceBroker({ logger: false });
  const endpoint = (id: string, slots: number) => ({ id, service: { metadata: { renderSlots: slots } } });

  test('picks the node with the most free slots and reserves it, so the next call goes elsewhere', () => {
    const table = slotTableOf(broker);
    let turn = 0;
    const strategy = {
      select: (list: ReturnType<typeof endpoint>[], ctx?: { meta: { renderAvoidNodes: string[] } }) =>
        takeRenderNode(list, table, ctx?.meta.renderAvoidNodes ?? [], turn++)!,
    };
    table.report({ nodeID: 'small', slots: 1, busy: 0 });
    table.report({ nodeID: 'big', slots: 2, busy: 0 });
    const list = [endpoint('small', 1), endpoint('big', 2)];
    const picks = [0, 1, 2].map(() => strategy.select(list).id);
    // big (2 free) → big or small (1 free each) → the other: never three on one node.
    expect(picks[0]).toBe('big');
    expect(new Set(picks.slice(1))).toEqual(new Set(['big', 'small']));
    expect(table.free('big', 2) + table.free('small', 1)).toBe(0);
  });

  test('a busy node is passed over, and nodes the caller avoids are skipped while others exist', () => {
    const other = new ServiceBroker({ logger: false });
    const table = slotTableOf(other);
    let turn = 0;
    const strategy = {
      select: (list: ReturnType<typeof endpoint>[], ctx?: { meta: { renderAvoidNodes: string[] } }) =>
        takeRenderNode(list, table, ctx?.meta.renderAvoidNodes ?? [], turn++)!,
    };
    table.report({ nodeID: 'a', slots: 1, busy: 1 });
    table.report({ nodeID: 'b', slots: 1, busy: 0 });
    expect(strategy.select([endpoint('a', 1), endpoint('b', 1)]).id).toBe('b');
    table.report({ nodeID: 'a', slots: 1, busy: 0 });
    table.report({ nodeID: 'b', slots: 1, busy: 0 });
    expect(strategy.select([endpoint('a', 1), endpoint('b', 1)], { meta: { renderAvoidNodes: ['b'] } }).id).toBe('a');
    // An avoided node with a free slot beats a full one: better a second try there than waiting.
    table.report({ nodeID: 'a', slots: 1, busy: 1 });
    table.report({ nodeID: 'b', slots: 1, busy: 0 });
    expect(strategy.select([endpoint('a', 1), endpoint('b', 1)], { meta: { renderAvoidNodes: ['b'] } }).id).toBe('b');
  });

  test('chooseRenderNode with requireFree waits (null) when no node has a free slot', () => {
    const table = new RenderSlotTable();
    table.report({ nodeID: 'a', slots: 1, busy: 1 });
    expect(chooseRenderNode([endpoint('a', 1)], table, [], 0, true)).toBeNull();
    expect(chooseRenderNode([endpoint('a', 1)], table, [], 0, false)?.id).toBe('a');
  });
});

test("an express render takes the node's express slot, apart from its slots", () => {
  const table = new RenderSlotTable();
  table.report({ nodeID: 'a', slots: 1, busy: 1 });
  // Every slot held: a render waits, an express one does not.
  expect(table.free('a', 1)).toBe(0);
  expect(table.free('a', 1, true)).toBe(EXPRESS_RENDER_SLOTS);
  const list = [{ id: 'a', service: { metadata: { renderSlots: 1 } } }];
  expect(takeRenderNode(list, table, [], 0)).toBeNull();
  expect(takeRenderNode(list, table, [], 0, true)?.id).toBe('a');
  // Reserved: the next express render waits, and the slots are as they were.
  expect(takeRenderNode(list, table, [], 1, true)).toBeNull();
  expect(table.free('a', 1)).toBe(0);
  // The node's report counts it; once it ends, the express slot is free again.
  table.report({ nodeID: 'a', slots: 1, busy: 1, expressBusy: 1 });
  expect(table.free('a', 1, true)).toBe(0);
  table.report({ nodeID: 'a', slots: 1, busy: 0, expressBusy: 0 });
  expect(table.free('a', 1, true)).toBe(EXPRESS_RENDER_SLOTS);
  expect(table.free('a', 1)).toBe(1);
  // A refused express call (settled) gives back the express reservation only.
  table.reserve('a', true);
  table.reserve('a');
  table.settle('a', true);
  expect([table.free('a', 1, true), table.free('a', 1)]).toEqual([EXPRESS_RENDER_SLOTS, 0]);
});
