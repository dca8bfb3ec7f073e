/**
 * The dashboard's New batch form (decisions §14): its rows, pasted (one page URL a line) or from a CSV file (columns
 * url,title,languages,platforms,variants under a header row), read into the items of campaigns.createBatch; and the shared
 * defaults taken from the New campaign form's own fields (lib/dashboard/create-form.ts). No CSV library is among the
 * project's dependencies, so the CSV is read here, by RFC 4180 (quoted fields, "" inside quotes, CRLF or LF). What an
 * item may hold is not judged here: the campaign actor's own checks say that (campaigns.checkBatch). Pure: no I/O.
 */
import { readCreateForm, type CreateCampaignInput, type PostedForm } from './create-form';

/** A row as read: its number (1 for the first row under the header), its fields, and what stops it being read. */
export interface BatchRow {
  number: number;
  url: string;
  title?: string;
  languages?: string[];
  platforms?: string[];
  /** Hook variants (decisions §15): a whole number, judged by the API (1–3, the plan's cap). */
  variants?: number;
  /** The row could not be read (wrong number of fields): its words; the row is not sent. */
  error?: string;
}

/** An item of campaigns.createBatch. */
export interface BatchItem {
  url: string;
  title?: string;
  languages?: string[];
  platforms?: string[];
  variants?: number;
}

export const BATCH_COLUMNS = ['url', 'title', 'languages', 'platforms', 'variants'] as const;

export class CsvError extends Error {}

/**
 * RFC 4180 records: fields split by commas, records by CRLF or LF; a field in double quotes may hold commas, line
 * breaks and "" for a quote. A quote left open, or text after a closing quote, throws a CsvError naming the line.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let afterQuote = false;
  let line = 1;
  let quoteLine = 1;
  const endField = () => {
    record.push(field);
    field = '';
    afterQuote = false;
  };
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 1;
        } else {
          quoted = false;
          afterQuote = true;
        }
      } else {
        if (c === '\n') line += 1;
        field += c;
      }
      continue;
    }
    if (c === ',') endField();
    else if (c === '\n' || (c === '\r' && text[i + 1] === '\n')) {
      if (c === '\r') i += 1;
      endField();
      records.push(record);
      record = [];
      line += 1;
    } else if (afterQuote) {
      throw new CsvError(`Line ${line}: after a closing quote only a comma or the line's end may follow.`);
    } else if (c === '"' && field === '') {
      quoted = true;
      quoteLine = line;
    } else field += c;
  }
  if (quoted) throw new CsvError(`Line ${quoteLine}: a quote is opened and never closed.`);
  if (field !== '' || record.length || afterQuote) {
    endField();
    records.push(record);
  }
  // Blank lines (a trailing line break, spacing between rows) are not rows.
  return records.filter((r) => !(r.length === 1 && r[0].trim() === ''));
}

/** A cell's list of codes: separated by spaces, commas or semicolons; empty means "the defaults". */
export function listCell(cell: string | undefined): string[] | undefined {
  const values = (cell ?? '')
    .split(/[\s;,]+/)
    .map((v) => v.trim())
    .filter(Boolean);
  return values.length ? values : undefined;
}

/** Does the text start with a CSV header row (its first line's first column one of the columns' names)? A URL never is. */
export function looksLikeCsv(text: string): boolean {
  const first = text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .find((l) => l.trim() !== '');
  const name = /^\s*"?([a-z]+)"?\s*(,|$)/i.exec(first ?? '')?.[1]?.toLowerCase();
  return name !== undefined && (BATCH_COLUMNS as readonly string[]).includes(name);
}

/**
 * The rows of the pasted text or the file: a CSV under a header row (url first), or else one page URL a line. A
 * refusal of the whole (a header naming an unknown column, a broken quote, no rows) throws a CsvError in words.
 */
export function readBatchRows(input: string): BatchRow[] {
  const text = input.replace(/^\uFEFF/, '');
  let rows: BatchRow[];
  if (looksLikeCsv(text)) {
    const [header, ...records] = parseCsv(text);
    const columns = header.map((name) => name.trim().toLowerCase());
    const unknown = columns.find((name) => !(BATCH_COLUMNS as readonly string[]).includes(name));
    if (unknown !== undefined)
      throw new CsvError(`The header row names a column “${unknown.slice(0, 40)}”: the columns are ${BATCH_COLUMNS.join(', ')}.`);
    if (!columns.includes('url')) throw new CsvError(`The header row has no url column: the columns are ${BATCH_COLUMNS.join(', ')}.`);
    const twice = columns.find((name, i) => columns.indexOf(name) !== i);
    if (twice) throw new CsvError(`The header row names the column “${twice}” twice.`);
    rows = records.map((record, index) => {
      const cell = (name: string) => {
        const at = columns.indexOf(name);
        return at < 0 ? undefined : record[at]?.trim();
      };
      const row: BatchRow = {
        number: index + 1,
        url: cell('url') ?? '',
        ...(cell('title') ? { title: cell('title') } : {}),
        ...(listCell(cell('languages')) ? { languages: listCell(cell('languages')) } : {}),
        ...(listCell(cell('platforms')) ? { platforms: listCell(cell('platforms')) } : {}),
        ...(/^\d+$/.test(cell('variants') ?? '') ? { variants: Number(cell('variants')) } : {}),
      };
      if (record.length !== columns.length)
        row.error = `It has ${record.length} ${record.length === 1 ? 'field' : 'fields'}; the header row has ${columns.length}.`;
      else if (!row.url) row.error = 'Its url is empty.';
      else if (cell('variants') && row.variants === undefined)
        row.error = `Its variants “${cell('variants')!.slice(0, 20)}” is not a whole number.`;
      return row;
    });
  } else {
    rows = text
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter(Boolean)
      .map((url, index) => ({ number: index + 1, url }));
  }
  if (!rows.length) throw new CsvError('No rows: paste page URLs, one a line, or choose a CSV file with a header row and a row per page.');
  return rows;
}

/** The rows as campaigns.createBatch's items (a row that could not be read is not among them: check `error` first). */
export function batchItems(rows: BatchRow[]): BatchItem[] {
  return rows.map((row) => ({
    url: row.url,
    ...(row.title ? { title: row.title } : {}),
    ...(row.languages ? { languages: row.languages } : {}),
    ...(row.platforms ? { platforms: row.platforms } : {}),
    ...(row.variants !== undefined ? { variants: row.variants } : {}),
  }));
}

/** A cell of the CSV written back: quoted when it holds a comma, a quote or a line break. */
function csvCell(value: string): string {
  return /[",\r\n]/.test(value) || value !== value.trim() ? `"${value.replace(/"/g, '""')}"` : value;
}

/** The rows written back as the CSV the form reads (the preview's editable text, and what "Create" sends). */
export function rowsAsCsv(rows: BatchRow[]): string {
  const lines = rows.map((row) =>
    [row.url, row.title ?? '', (row.languages ?? []).join(' '), (row.platforms ?? []).join(' '), row.variants?.toString() ?? '']
      .map(csvCell)
      .join(','),
  );
  return [BATCH_COLUMNS.join(','), ...lines].join('\n') + '\n';
}

/** The create form's fields the batch's defaults take: the rest are each campaign's own or the API's defaults. */
export const BATCH_DEFAULT_FIELDS = ['languages', 'platforms', 'variants', 'quality'] as const;

/**
 * The defaults from the posted form, read by the New campaign form's own reader (the same words for an empty list of
 * languages or platforms).
 */
export function readBatchDefaults(form: PostedForm): {
  defaults: Pick<CreateCampaignInput, 'languages' | 'platforms' | 'variants' | 'quality'>;
  error?: string;
} {
  const { body, error } = readCreateForm({
    url: 'batch',
    languages: form.languages,
    platforms: form.platforms,
    variants: form.variants,
    quality: form.quality,
  });
  const defaults = {
    ...(body.languages ? { languages: body.languages } : {}),
    ...(body.platforms ? { platforms: body.platforms } : {}),
    ...(body.variants !== undefined ? { variants: body.variants } : {}),
    ...(body.quality ? { quality: body.quality } : {}),
  };
  return { defaults, ...(error ? { error } : {}) };
}

/** A row's refusal in words, by its number: "Row 3: languages must …". */
export function rowRefusal(row: Pick<BatchRow, 'number'>, message: string): string {
  const said = message.replace(/\.$/, '');
  return `Row ${row.number}: ${said.charAt(0).toUpperCase()}${said.slice(1)}.`;
}
