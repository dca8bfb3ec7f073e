/** The fair order of a stage's grants (lib/campaign/fair-order.ts): round robin by organization, then by age. */
import { pickExpress, pickGrants, type WaitingTurn } from '../../lib/campaign/fair-order';

const t = (key: string, orgId: string, ageMs: number, weight = 1, queuedMs = 0): WaitingTurn => ({ key, orgId, weight, ageMs, queuedMs });

test('organizations take turns, each its oldest first', () => {
  const waiting = [t('a3', 'A', 3), t('a1', 'A', 1), t('a2', 'A', 2), t('b9', 'B', 9), t('b8', 'B', 8), t('c5', 'C', 5)];
  expect(pickGrants(waiting, new Map(), 0, 10, 0).keys).toEqual(['a1', 'c5', 'b8', 'a2', 'b9', 'a3']);
});

test('the organization served least recently goes first, a never-served one before any', () => {
  const waiting = [t('a1', 'A', 1), t('b2', 'B', 2), t('c3', 'C', 3)];
  // A served at grant 7, B at 4, C never.
  const picked = pickGrants(
    waiting,
    new Map([
      ['A', 7],
      ['B', 4],
    ]),
    0,
    2,
    7,
  );
  expect(picked.keys).toEqual(['c3', 'b2']);
  expect([...picked.lastGrant]).toEqual([
    ['C', 8],
    ['B', 9],
  ]);
  expect(picked.grants).toBe(9);
});

test('a lone campaign of another organization goes before a batch that keeps arriving', () => {
  const batch = Array.from({ length: 60 }, (_, i) => t(`a${i}`, 'A', i));
  // A was served last; B's campaign is the newest of all.
  const picked = pickGrants([...batch, t('b', 'B', 1000)], new Map([['A', 3]]), 2, 3, 3);
  expect(picked.keys).toEqual(['b']);
});

test('grants stop at the capacity; age ties are broken by queue time', () => {
  const waiting = [t('a-late', 'A', 1, 1, 20), t('a-early', 'A', 1, 1, 10), t('a2', 'A', 2)];
  expect(pickGrants(waiting, new Map(), 1, 3, 0).keys).toEqual(['a-early', 'a-late']);
  expect(pickGrants(waiting, new Map(), 3, 3, 0).keys).toEqual([]);
});

test('weighted turns: one that does not fit is not passed by a smaller one; one larger than the whole capacity goes alone', () => {
  const waiting = [t('a-big', 'A', 1, 3), t('a-small', 'A', 2, 1)];
  expect(pickGrants(waiting, new Map(), 2, 4, 0).keys).toEqual([]);
  expect(pickGrants(waiting, new Map(), 0, 4, 0).keys).toEqual(['a-big', 'a-small']);
  expect(pickGrants([t('huge', 'A', 1, 9), t('b', 'B', 2)], new Map(), 0, 4, 0).keys).toEqual(['huge']);
});

describe('the express turn (pickExpress)', () => {
  const single =
    (...orgs: string[]) =>
    (orgId: string) =>
      orgs.includes(orgId);

  test("goes to an organization with a single campaign, not to a batch's", () => {
    const batch = Array.from({ length: 5 }, (_, i) => t(`a${i}`, 'A', i));
    expect(pickExpress([...batch, t('b', 'B', 100)], new Map(), single('B'))?.key).toBe('b');
    expect(pickExpress(batch, new Map(), single('B'))).toBeUndefined();
  });

  test('among several, the organization served least recently, with its oldest turn', () => {
    const waiting = [t('b2', 'B', 20), t('b1', 'B', 10), t('c', 'C', 5)];
    // C was served at grant 9, B at 4: B's oldest.
    const last = new Map([
      ['B', 4],
      ['C', 9],
    ]);
    expect(pickExpress(waiting, last, single('B', 'C'))?.key).toBe('b1');
    // Neither served yet: the oldest turn.
    expect(pickExpress(waiting, new Map(), single('B', 'C'))?.key).toBe('c');
  });
});
