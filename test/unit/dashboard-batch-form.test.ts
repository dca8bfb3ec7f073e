/**
 * The dashboard's New batch form (lib/dashboard/batch-form.ts): the CSV read by RFC 4180 (quoted fields with commas,
 * line breaks and doubled quotes; CRLF or LF; a broken quote named by its line), pasted URLs one a line, a row's
 * lists split by spaces or semicolons, the rows written back as the same CSV, a row's refusal said by its number, the
 * defaults read by the New campaign form's own reader, and a batch's counts in words.
 */
import {
  batchItems,
  CsvError,
  listCell,
  parseCsv,
  readBatchDefaults,
  readBatchRows,
  rowRefusal,
  rowsAsCsv,
} from '../../lib/dashboard/batch-form';
import { batchCountsWords } from '../../lib/dashboard/words';

describe('parseCsv (RFC 4180)', () => {
  test('plain fields, CRLF and LF records, a trailing line break and blank lines are not rows', () => {
    expect(parseCsv('a,b,c\r\n1,2,3\n4,5,6\n\n')).toEqual([
      ['a', 'b', 'c'],
      ['1', '2', '3'],
      ['4', '5', '6'],
    ]);
  });

  test('a quoted field holds commas, line breaks and doubled quotes; an empty quoted field is empty', () => {
    expect(parseCsv('"x, y","say ""hi""","two\nlines",""\r\nlast,"",,end')).toEqual([
      ['x, y', 'say "hi"', 'two\nlines', ''],
      ['last', '', '', 'end'],
    ]);
  });

  test('a quote left open and text after a closing quote are refused, naming the line', () => {
    expect(() => parseCsv('url\n"https://a.example\n')).toThrow(new CsvError('Line 2: a quote is opened and never closed.'));
    expect(() => parseCsv('url,title\n"a"b,c')).toThrow(CsvError);
    expect(() => parseCsv('url,title\n"a"b,c')).toThrow(/^Line 2: after a closing quote/);
  });

  test('a quote inside an unquoted field is kept as it is', () => {
    expect(parseCsv('a"b,c')).toEqual([['a"b', 'c']]);
  });
});

describe('readBatchRows', () => {
  test('pasted URLs: one a line, blank lines and spaces around ignored, numbered from 1', () => {
    expect(readBatchRows('  https://a.example/one \n\nhttps://b.example/two\r\n')).toEqual([
      { number: 1, url: 'https://a.example/one' },
      { number: 2, url: 'https://b.example/two' },
    ]);
  });

  test('a CSV under its header: lists split by spaces or semicolons, empty cells left to the defaults, a BOM ignored', () => {
    const rows = readBatchRows(
      '\uFEFFurl,title,languages,platforms\r\nhttps://a.example/,"Spring, sale","en;ja",tiktok youtube\r\nhttps://b.example/,,,\r\n',
    );
    expect(rows).toEqual([
      { number: 1, url: 'https://a.example/', title: 'Spring, sale', languages: ['en', 'ja'], platforms: ['tiktok', 'youtube'] },
      { number: 2, url: 'https://b.example/' },
    ]);
    expect(batchItems(rows)).toEqual([
      { url: 'https://a.example/', title: 'Spring, sale', languages: ['en', 'ja'], platforms: ['tiktok', 'youtube'] },
      { url: 'https://b.example/' },
    ]);
  });

  test('columns in any order, some left out; the header is read case-insensitively', () => {
    expect(readBatchRows('URL,Languages\nhttps://a.example/,ko')).toEqual([{ number: 1, url: 'https://a.example/', languages: ['ko'] }]);
    expect(readBatchRows('languages,url\nko,https://a.example/')).toEqual([{ number: 1, url: 'https://a.example/', languages: ['ko'] }]);
  });

  test("a variants column: a whole number is sent for the API to judge, anything else is the row's refusal; written back", () => {
    const rows = readBatchRows('url,variants\nhttps://a.example/,2\nhttps://b.example/,\nhttps://c.example/,two\n');
    expect(rows).toEqual([
      { number: 1, url: 'https://a.example/', variants: 2 },
      { number: 2, url: 'https://b.example/' },
      { number: 3, url: 'https://c.example/', error: 'Its variants “two” is not a whole number.' },
    ]);
    expect(batchItems(rows.slice(0, 2))).toEqual([{ url: 'https://a.example/', variants: 2 }, { url: 'https://b.example/' }]);
    expect(readBatchRows(rowsAsCsv(rows.slice(0, 2)))).toEqual(rows.slice(0, 2));
  });

  test('a row with the wrong number of fields or no url is kept, with its words', () => {
    const rows = readBatchRows('url,title\nhttps://a.example/,A,extra\n,B\n');
    expect(rows.map((r) => r.error)).toEqual(['It has 3 fields; the header row has 2.', 'Its url is empty.']);
  });

  test('the whole refused in words: an unknown column, a column twice, no rows', () => {
    expect(() => readBatchRows('url,name\nhttps://a.example/,x')).toThrow(
      'The header row names a column “name”: the columns are url, title, languages, platforms, variants.',
    );
    expect(() => readBatchRows('url,url\na,b')).toThrow('The header row names the column “url” twice.');
    expect(() => readBatchRows('title,languages\nA,en')).toThrow(
      'The header row has no url column: the columns are url, title, languages, platforms, variants.',
    );
    expect(() => readBatchRows('url,title\n')).toThrow(/^No rows/);
    expect(() => readBatchRows('  \n ')).toThrow(/^No rows/);
  });

  test('rows written back as CSV read the same (quotes, commas and line breaks in titles)', () => {
    const rows = readBatchRows(
      'url,title,languages,platforms\nhttps://a.example/,"He said ""go"", twice",en ja,\nhttps://b.example/,"two\nlines",,tiktok\n',
    );
    const again = readBatchRows(rowsAsCsv(rows));
    expect(again).toEqual(rows);
    expect(rowsAsCsv(rows).split('\n')[0]).toBe('url,title,languages,platforms,variants');
  });
});

describe('words', () => {
  test('listCell: spaces, semicolons or commas; nothing means the defaults', () => {
    expect(listCell(' en ;ja  ko,fr ')).toEqual(['en', 'ja', 'ko', 'fr']);
    expect(listCell(' ; ')).toBeUndefined();
    expect(listCell(undefined)).toBeUndefined();
  });

  test("a row's refusal is named by its number, as a sentence", () => {
    expect(rowRefusal({ number: 3 }, 'url must not be empty')).toBe('Row 3: Url must not be empty.');
    expect(rowRefusal({ number: 1 }, 'Its url is empty.')).toBe('Row 1: Its url is empty.');
  });

  test("the defaults are the New campaign form's fields, with its words for an empty choice", () => {
    expect(readBatchDefaults({ languages: ['en', 'ja'], platforms: 'tiktok', quality: 'draft' })).toEqual({
      defaults: { languages: ['en', 'ja'], platforms: ['tiktok'], quality: 'draft' },
    });
    expect(readBatchDefaults({ platforms: 'tiktok' }).error).toBe('Choose at least one of the languages.');
    // Hook variants: the default (1) sends nothing; 2 is sent as a number.
    expect(readBatchDefaults({ languages: 'en', platforms: 'tiktok', variants: '1' }).defaults).toEqual({
      languages: ['en'],
      platforms: ['tiktok'],
    });
    expect(readBatchDefaults({ languages: 'en', platforms: 'tiktok', variants: '2' }).defaults).toEqual({
      languages: ['en'],
      platforms: ['tiktok'],
      variants: 2,
    });
  });

  test("a batch's counts: in the states' order, the empty ones left out", () => {
    expect(batchCountsWords({ collecting: 0, rendering: 1, review: 2, failed: 0 })).toBe(
      '3 campaigns: 1 rendering videos, 2 ready for review',
    );
    expect(batchCountsWords({ review: 1 })).toBe('1 campaign: 1 ready for review');
  });
});
