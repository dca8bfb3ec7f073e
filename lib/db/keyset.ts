/**
 * Keyset pages, the one way the public lists page (decisions §11 for campaigns, §14 for batches): the caller's
 * organization's rows, newest first by (created_at, id), `limit` a page, and an opaque cursor naming the page's last
 * row. The next page starts below that row's own (created_at, id), read by the database, so rows created meanwhile
 * never shift or repeat a page (an offset would) and no timestamp precision is lost. Each list's cursor has its own
 * prefix, so one list's cursor is not taken by the other.
 */
import { Op, type Attributes, type Model, type ModelStatic, type WhereOptions } from 'sequelize';
import { invalidInput } from '../errors';
import { UUID_TEXT } from '../ids';

/** The lists paged so, by their table's name. */
const CURSOR_PREFIX = { campaigns: 'c1:', batches: 'b1:' } as const;
export type KeysetList = keyof typeof CURSOR_PREFIX;

/** The cursor after the row `id`: base64url, so that nobody builds one by hand. */
export function encodeListCursor(id: string, list: KeysetList): string {
  return Buffer.from(`${CURSOR_PREFIX[list]}${id}`, 'utf8').toString('base64url');
}

/** The row id a cursor names; undefined when the text is not one of this list's. */
export function decodeListCursor(cursor: string, list: KeysetList): string | undefined {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const id = text.startsWith(CURSOR_PREFIX[list]) ? text.slice(CURSOR_PREFIX[list].length) : '';
  return UUID_TEXT.test(id) ? id : undefined;
}

export interface KeysetPageOptions<M extends Model> {
  /** The list, which is also its table's name. */
  list: KeysetList;
  orgId: string;
  /** The list's own filters, under the organization's. */
  where?: Array<WhereOptions<Attributes<M>>>;
  /** The previous page's next_cursor. */
  cursor?: string;
  limit: number;
}

export interface KeysetPage<M> {
  rows: M[];
  has_more: boolean;
  next_cursor: string | null;
}

/**
 * One page of `model`'s rows of the organization. A cursor that is not this list's, or names a row that is not the
 * organization's, is 400 invalid_input.
 */
export async function keysetPage<M extends Model & { id: string }>(
  model: ModelStatic<M>,
  { list, orgId, where = [], cursor, limit }: KeysetPageOptions<M>,
): Promise<KeysetPage<M>> {
  const sequelize = model.sequelize!;
  const conditions: WhereOptions[] = [{ org_id: orgId }, ...where];
  if (cursor !== undefined) {
    const after = decodeListCursor(cursor, list);
    if (!after || !(await model.count({ where: { [Op.and]: [conditions[0], { id: after }] } })))
      throw invalidInput("cursor is not valid: pass the previous page's next_cursor as it is.");
    conditions.push(
      sequelize.literal(
        `("created_at", "id") < (SELECT k."created_at", k."id" FROM "${list}" AS k WHERE k."id" = ${sequelize.escape(after)})`,
      ),
    );
  }
  const rows = await model.findAll({
    where: { [Op.and]: conditions },
    order: [
      ['created_at', 'DESC'],
      ['id', 'DESC'],
    ],
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return { rows: page, has_more: hasMore, next_cursor: hasMore ? encodeListCursor(page[page.length - 1].id, list) : null };
}
