/**
 * A strict SubRip reader for the tests: CRLF line endings throughout (no bare LF or CR), no byte-order mark,
 * cues numbered 1, 2, 3… each with "HH:MM:SS,mmm --> HH:MM:SS,mmm" and at least one line of text, a blank
 * line after every cue. A leading RLM is removed where the WebVTT reader (lib/voice/captions.ts) removes it, so
 * the two compare equal. Throws on anything else.
 */
import type { Cue } from '../../lib/voice/captions';

const TIMING = /^(\d{2,}):([0-5]\d):([0-5]\d),(\d{3}) --> (\d{2,}):([0-5]\d):([0-5]\d),(\d{3})$/;
const RLM = '\u200F';
const RTL_LETTER = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]/u;

function needsRlm(line: string): boolean {
  const firstLetter = line.match(/\p{L}/u)?.[0];
  return firstLetter !== undefined && !RTL_LETTER.test(firstLetter) && RTL_LETTER.test(line);
}

const seconds = (h: string, m: string, s: string, ms: string) => Number(h) * 3600 + Number(m) * 60 + Number(s) + Number(ms) / 1000;

export function parseSrtStrict(text: string): Cue[] {
  if (text.startsWith('\uFEFF')) throw new SyntaxError('SRT: byte-order mark');
  if (/\r(?!\n)|(?<!\r)\n/.test(text)) throw new SyntaxError('SRT: a line ending other than CRLF');
  if (text === '') return [];
  if (!text.endsWith('\r\n\r\n')) throw new SyntaxError('SRT: the last cue is not followed by a blank line');
  const blocks = text.slice(0, -4).split('\r\n\r\n');
  return blocks.map((block, index) => {
    const [number, timing, ...lines] = block.split('\r\n');
    if (number !== String(index + 1)) throw new SyntaxError(`SRT cue ${index + 1}: numbered "${number}"`);
    const m = TIMING.exec(timing ?? '');
    if (!m) throw new SyntaxError(`SRT cue ${index + 1}: bad timing "${timing}"`);
    if (!lines.length || lines.some((l) => l.trim() === '')) throw new SyntaxError(`SRT cue ${index + 1}: empty text line`);
    const start = seconds(m[1], m[2], m[3], m[4]);
    const end = seconds(m[5], m[6], m[7], m[8]);
    if (end < start) throw new SyntaxError(`SRT cue ${index + 1}: ends before it starts`);
    const text = lines
      .map((l) => {
        const bare = l.startsWith(RLM) ? l.slice(1) : l;
        return l.startsWith(RLM) && !needsRlm(bare) ? l : bare;
      })
      .join('\n');
    return { start: Math.round(start * 1000) / 1000, end: Math.round(end * 1000) / 1000, text };
  });
}
