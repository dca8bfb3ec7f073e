/**
 * festival with its voice kept loaded. `text2wave` starts festival and loads the HTS voice (about 1.2 s and
 * 330 MB) for every file, which was most of the voiceover stage (bench/e2e/README.md); one `festival --pipe`
 * process loads it once and then says each text in about 0.1–0.2 s. The Scheme below does exactly what
 * text2wave does (tts_file in the default text mode, the waves of its utterances saved one after another,
 * the RIFF header rewritten with the total), so its files are byte-for-byte text2wave's.
 *
 * The text never becomes Scheme: it is written to a file that festival reads in text mode, as text2wave
 * reads stdin. Only the two file names go into Scheme strings, escaped. Each request ends with a line on
 * festival's stderr (unbuffered there; its stdout is block-buffered into a pipe): `cvg-ok <id>` or, through
 * unwind-protect when festival raised an error, `cvg-fail <id>` — the process stays usable after a failure.
 *
 * Processes are kept in a tarn pool (knex's): created when a text waits and none is free (up to `max`), ended
 * after `idleMs` unused, replaced when one dies or times out; a festival that cannot start fails the text
 * waiting for it (propagateCreateError) instead of being retried for ever.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { Pool } from 'tarn';

const SAY_FUNCTION = `
(define (cvg_words id utt offset)
  (let ((tok (utt.relation.first utt 'Token)))
    (while tok
      (let ((words nil))
        (mapcar
          (lambda (d) (if (member_string "Word" (item.relations d)) (set! words (cons (item.relation d 'Word) words))))
          (item.daughters tok))
        (if words
          (format stderr "cvg-word %s %f %f %s\\n" id
            (+ offset (item.feat (car (last words)) "word_start"))
            (+ offset (item.feat (car words) "word_end"))
            (item.name tok))))
      (set! tok (item.next tok)))))
(define (cvg_say id textfile outfile words)
  (unwind-protect
    (let ((fp (fopen outfile "wb")) (total 0) (last nil))
      (set! tts_hooks
        (list utt.synth
          (lambda (utt)
            (if (eq? total 0) (wave.save.header fp (utt.wave utt) 'riff nil (list (list "numsamples" 0))))
            (if words (cvg_words id utt (/ total (get_param 'sample_rate (wave.info (utt.wave utt)) 16000))))
            (set! total (+ total (get_param 'num_samples (wave.info (utt.wave utt)) 0)))
            (wave.save.data.fp (utt.wave utt) fp 'riff nil)
            (set! last utt))))
      (tts_file textfile nil)
      (fseek fp 0 0)
      (wave.save.header fp (utt.wave last) 'riff nil (list (list "numsamples" total)))
      (fclose fp)
      (format stderr "cvg-ok %s\\n" id))
    (format stderr "cvg-fail %s\\n" id)))
`;

/** A Scheme string literal of `text` (SIOD reads \\ and \\" inside strings). */
export function schemeString(text: string): string {
  if (/[\0\n\r]/.test(text)) throw new Error('festival: a file name with a newline or NUL');
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** A token of the text (as written: "20", not "twenty") and when it is said, in seconds of the file. */
export interface FestivalWord {
  text: string;
  start: number;
  end: number;
}

export interface FestivalProcessOptions {
  /** default `festival` on PATH */
  binary: string;
  /** festival voice name, e.g. cmu_us_slt_arctic_hts (letters, digits, underscores: checked by the caller) */
  voice: string;
  /** limit for loading the voice, and for each text; the process is killed past it */
  timeoutMs: number;
}

/** One `festival --pipe` process with the voice loaded, saying one text at a time. */
export class FestivalProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private stderrTail = '';
  private waiting?: { id: string; resolve: () => void; reject: (err: Error) => void };
  /** `cvg-word` lines of the text being said (its word times, when asked) */
  private wordLines: string[] = [];
  private partialLine = '';
  private requests = 0;
  private exited?: Error;

  private constructor(private readonly opts: FestivalProcessOptions) {
    // Never lowered (lib/campaign/cpu-class.ts lowerIfBulk): the process is pooled and says the texts of every job on this
    // node, bulk and interactive alike, so lowering it for the batch that started it would slow the next campaign's.
    this.child = spawn(opts.binary, ['--pipe'], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.resume(); // nothing is read from stdout; drained so festival never blocks on it
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => this.onStderr(chunk));
    this.child.stdin.on('error', () => {
      /* reported by 'exit' */
    });
    this.child.on('error', (err: NodeJS.ErrnoException) =>
      this.onExit(err.code === 'ENOENT' ? new Error(`${opts.binary} not found (Debian package festival)`) : err),
    );
    this.child.on('exit', (code, signal) => this.onExit(new Error(`festival exited (${signal ?? `code ${code}`})`)));
  }

  /** Starts festival and loads the voice; resolves when it is ready to speak. */
  static async start(opts: FestivalProcessOptions): Promise<FestivalProcess> {
    const process = new FestivalProcess(opts);
    try {
      await process.command('ready', `${SAY_FUNCTION}\n(voice_${opts.voice})\n(format stderr "cvg-ok ready\\n")\n`);
    } catch (err) {
      process.kill();
      throw err;
    }
    return process;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** Says the text of `textFile` into the RIFF WAV `outFile`; with `words`, returns each token's times (seconds in the file). */
  async say(textFile: string, outFile: string, words = false): Promise<FestivalWord[]> {
    this.requests += 1;
    const id = String(this.requests);
    this.wordLines = [];
    await this.command(id, `(cvg_say "${id}" ${schemeString(textFile)} ${schemeString(outFile)} ${words ? 't' : 'nil'})\n`);
    const prefix = `cvg-word ${id} `;
    return this.wordLines.flatMap((line) => {
      const m = /^(\S+) (\S+) (.*)$/.exec(line.slice(prefix.length));
      return line.startsWith(prefix) && m ? [{ text: m[3], start: Number(m[1]), end: Number(m[2]) }] : [];
    });
  }

  kill(): void {
    if (!this.exited) this.child.kill('SIGKILL');
  }

  private command(id: string, scheme: string): Promise<void> {
    if (this.exited) return Promise.reject(this.exited);
    if (this.waiting) return Promise.reject(new Error('festival: one text at a time'));
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.kill();
        finish(new Error(`festival timed out after ${this.opts.timeoutMs} ms`));
      }, this.opts.timeoutMs);
      const finish = (err?: Error) => {
        clearTimeout(timer);
        this.waiting = undefined;
        if (err) reject(err);
        else resolve();
      };
      this.waiting = { id, resolve: () => finish(), reject: finish };
      this.stderrTail = '';
      this.child.stdin.write(scheme);
    });
  }

  private onStderr(chunk: string): void {
    this.stderrTail = (this.stderrTail + chunk).slice(-4000);
    const complete = (this.partialLine + chunk).split('\n');
    this.partialLine = complete.pop() ?? '';
    for (const line of complete) if (line.startsWith('cvg-word ')) this.wordLines.push(line);
    const waiting = this.waiting;
    if (!waiting) return;
    const lines = this.stderrTail.split('\n');
    for (const line of lines.slice(0, -1)) {
      if (line === `cvg-ok ${waiting.id}`) return waiting.resolve();
      if (line === `cvg-fail ${waiting.id}`) {
        const reason = lines
          .filter((l) => /ERROR|error/.test(l))
          .slice(-3)
          .join(' | ');
        return waiting.reject(new Error(`festival failed: ${reason || 'no reason given'}`));
      }
    }
  }

  private onExit(err: Error): void {
    if (this.exited) return;
    const tail = this.stderrTail.trim().split('\n').slice(-3).join(' | ');
    this.exited = tail ? new Error(`${err.message}: ${tail}`) : err;
    this.waiting?.reject(this.exited);
  }
}

export interface FestivalPoolOptions extends FestivalProcessOptions {
  /** processes at most (each holds the voice: ~330 MB) */
  max: number;
  /** a process unused this long ends */
  idleMs: number;
}

/** festival processes shared by every synthesis of this node. */
export class FestivalPool {
  private readonly pool: Pool<FestivalProcess>;
  private readonly processes = new Set<FestivalProcess>();
  /** festival processes started so far (each loaded the voice once) */
  started = 0;
  /** Set by close(): tarn leaves an acquire on a destroyed pool pending until its timeout, so none is made. */
  private closed = false;

  constructor(opts: FestivalPoolOptions) {
    this.pool = new Pool<FestivalProcess>({
      create: async () => {
        this.started += 1;
        const process = await FestivalProcess.start(opts);
        this.processes.add(process);
        return process;
      },
      destroy: (process) => {
        process.kill();
        this.processes.delete(process);
      },
      validate: (process) => process.alive,
      min: 0,
      max: opts.max,
      propagateCreateError: true,
      createTimeoutMillis: opts.timeoutMs,
      acquireTimeoutMillis: 10 * opts.timeoutMs,
      idleTimeoutMillis: opts.idleMs,
      reapIntervalMillis: Math.max(1000, Math.min(opts.idleMs, 30_000)),
    });
  }

  /** Writes `text` beside `outFile` and says it there; with `words`, returns its tokens' times. */
  async synthesize(text: string, outFile: string, words = false): Promise<FestivalWord[]> {
    const textFile = `${outFile}.txt`;
    await writeFile(textFile, `${text}\n`, 'utf8');
    if (this.closed) throw new Error('festival: the voice service is stopping');
    const process = await this.pool.acquire().promise;
    try {
      return await process.say(textFile, outFile, words);
    } finally {
      // A dead process fails validation at the next acquire and is replaced.
      this.pool.release(process);
    }
  }

  /** The process ids of the festival processes alive now. */
  pids(): number[] {
    return [...this.processes].filter((p) => p.alive && p.pid !== undefined).map((p) => p.pid as number);
  }

  /** Ends every process (the service's stop). */
  async close(): Promise<void> {
    this.closed = true;
    await this.pool.destroy();
  }
}
