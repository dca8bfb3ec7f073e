/** How well an English voice is understood, measured without ears: the WAV is resampled to 16 kHz mono
 * (sox), transcribed by CMU PocketSphinx (Debian `pocketsphinx` + `pocketsphinx-en-us`), and the
 * transcript compared with the text by word error rate. Noisy as an absolute score (PocketSphinx's own
 * error rate on clean human speech is far from zero), good for ranking voices and for catching a
 * regression. Used by bench/voice and the voice-engine tests, not by the product. */
import path from 'node:path';
import { run } from './exec';

/** sox: any WAV → 16 kHz, mono, 16-bit, which is what the en-us acoustic model expects. */
export async function toSixteenKhzMono(input: string, output: string): Promise<void> {
  await run('sox', [input, '-r', '16000', '-c', '1', '-b', '16', output], { timeoutMs: 60_000 });
}

/** PocketSphinx's transcript of a WAV (resampled first), one line per utterance joined by spaces. */
export async function transcribe(wav: string): Promise<string> {
  const sixteen = path.join(path.dirname(wav), `${path.basename(wav, '.wav')}.16k.wav`);
  await toSixteenKhzMono(wav, sixteen);
  // The Debian build defaults to /usr/share/pocketsphinx/model/en-us (acoustic model, language model, dictionary).
  const { stdout } = await run('pocketsphinx_continuous', ['-infile', sixteen, '-logfn', '/dev/null'], { timeoutMs: 120_000 });
  return stdout.split('\n').join(' ').replace(/\s+/g, ' ').trim();
}

/** Lower case words without punctuation; hyphens split words ("built-in" → "built in"). */
export function words(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[’‘]/g, "'")
    .replace(/[^a-z0-9' ]+/g, ' ')
    .split(/\s+/)
    .map((w) => w.replace(/^'+|'+$/g, ''))
    .filter(Boolean);
}

/** (substitutions + deletions + insertions) / words of the reference: word-level Levenshtein distance. */
export function wordErrorRate(reference: string, hypothesis: string): number {
  const ref = words(reference);
  const hyp = words(hypothesis);
  if (!ref.length) throw new Error('wordErrorRate: empty reference');
  let prev = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= hyp.length; j += 1) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ref[i - 1] === hyp[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[hyp.length] / ref.length;
}
