/**
 * A multipart/form-data body (an HTML form with a file, such as the dashboard's New batch form) read into the same
 * shape as a urlencoded form's: each name a string, or a list when it repeats; a file becomes its text (UTF-8).
 * Node's own WHATWG `Response.formData()` parses it, so no multipart package is needed; the body is read whole, up to
 * `limitBytes` (a larger one is refused with 413 before it is parsed).
 */
import type { IncomingMessage } from 'node:http';
import { invalidInput } from '../errors';

export type FormFields = Record<string, string | string[]>;

export const isMultipartForm = (contentType: string | undefined): boolean => /^multipart\/form-data\s*;/i.test(contentType ?? '');

/** The body's bytes, refused with 413 once past `limitBytes`. */
async function bodyOf(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) throw tooLarge(limitBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limitBytes) throw tooLarge(limitBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

const tooLarge = (limitBytes: number) => invalidInput(`The form is larger than ${Math.round(limitBytes / 1024)} KB.`, 413);

export async function readMultipartForm(req: IncomingMessage, limitBytes: number): Promise<FormFields> {
  const body = await bodyOf(req, limitBytes);
  let data: FormData;
  try {
    data = await new Response(new Uint8Array(body), { headers: { 'content-type': req.headers['content-type'] ?? '' } }).formData();
  } catch {
    throw invalidInput('The form could not be read (a broken multipart body).');
  }
  const fields: FormFields = {};
  for (const [name, entry] of data.entries()) {
    const value = typeof entry === 'string' ? entry : await entry.text();
    const before = fields[name];
    fields[name] = before === undefined ? value : Array.isArray(before) ? [...before, value] : [before, value];
  }
  return fields;
}
