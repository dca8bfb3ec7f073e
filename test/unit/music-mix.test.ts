/**
 * Music under the voice (lib/render/music.ts, lib/capture/music.ts) on real ffmpeg and a real voice (espeak-ng,
 * levelled as the voice stage levels scenes): the mastered mix measured by ebur128, the narration against the music
 * measured on the stems the same graph renders (the music ducked by the same voice), the pauses and the fades heard
 * by their levels; and what is not a music track refused, as the create's 422 says.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { MUSIC_DEFAULT_VOLUME } from '../../lib/campaign/options';
import { audioTrackProblem, fetchMusic, MusicError } from '../../lib/capture/music';
import {
  measureLoudness,
  MIX_LOUDNESS_LUFS,
  MIX_TRUE_PEAK_DBTP,
  mixNarrationWithMusic,
  renderPremix,
  type MusicMixInput,
} from '../../lib/render/music';
import { concatAudio, normalizeAudio } from '../../lib/voice/audio';
import { MUSIC_TRACK_SECONDS, musicTrack } from '../fixtures/music-track';
import { levelOver, speechAndPauses, WINDOW_SECONDS, windowLevels } from '../support/audio-levels';

const run = promisify(execFile);
let dir: string;
let mix: MusicMixInput;
/** Where the long pause between the second and third scenes is, in seconds. */
let longPause: { start: number; end: number };

const SCENES = [
  { text: 'Meet Acme, the complete guide to product analytics. Track every click and every sale in one place.', pauseMs: 450 },
  // A scene padded to its minimum length, as the voice stage pads a short one: a long pause after it.
  { text: 'Dashboards update in real time, and your whole team can share them with one link.', pauseMs: 1800 },
  { text: 'Start your free trial today at acme dot io.', pauseMs: 450 },
];

const seconds = async (file: string) =>
  Number((await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file])).stdout);

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'music-mix-'));
  const scenes = await Promise.all(
    SCENES.map(async (scene, i) => {
      const raw = path.join(dir, `raw-${i}.wav`);
      await run('espeak-ng', ['-v', 'en', '-w', raw, scene.text]);
      const levelled = path.join(dir, `scene-${i}.wav`);
      await normalizeAudio(raw, levelled, { padEndMs: scene.pauseMs });
      return levelled;
    }),
  );
  const narration = path.join(dir, 'narration.wav');
  await concatAudio(scenes, narration);
  const [first, second] = await Promise.all(scenes.slice(0, 2).map(seconds));
  longPause = { start: first + second - SCENES[1].pauseMs / 1000, end: first + second };
  const music = path.join(dir, 'music.mp3');
  await fs.writeFile(music, await musicTrack());
  mix = { narration, music, volume: MUSIC_DEFAULT_VOLUME, durationSeconds: await seconds(narration) };
}, 60_000);
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

/** Window indices wholly inside [start, end) seconds, a window's margin kept from each edge. */
const windowsBetween = (start: number, end: number) => {
  const indices: number[] = [];
  for (let i = Math.ceil(start / WINDOW_SECONDS) + 1; (i + 2) * WINDOW_SECONDS <= end; i += 1) indices.push(i);
  return indices;
};

test('the mix is mastered to −14 LUFS under −1 dBTP; the voice is ≥ 10 dB above the music while it speaks; the music is heard in the pauses, looped, faded in and out', async () => {
  const output = path.join(dir, 'mix.m4a');
  const report = await mixNarrationWithMusic(mix, path.join(dir, 'premix.wav'), output);
  // The track was brought to `volume` of the narration's loudness before ducking (0.4: 8 dB below it).
  expect(report.musicLufs + report.musicGainDb - report.voiceLufs).toBeCloseTo(20 * Math.log10(MUSIC_DEFAULT_VOLUME), 1);

  // Measured on the encoded file, as a platform would.
  const measured = await measureLoudness(output);
  expect(Math.abs(measured.integratedLufs - MIX_LOUDNESS_LUFS)).toBeLessThanOrEqual(1);
  expect(measured.truePeakDbtp).toBeLessThanOrEqual(MIX_TRUE_PEAK_DBTP);
  expect(Math.abs((await seconds(output)) - mix.durationSeconds)).toBeLessThan(0.1);

  // The stems, each alone through the same graph: the narration, and the music ducked by it.
  const voicePath = path.join(dir, 'voice.wav');
  const musicPath = path.join(dir, 'music-ducked.wav');
  await Promise.all([renderPremix(mix, 'voice', voicePath), renderPremix(mix, 'music', musicPath)]);
  const [voice, music, mixed] = await Promise.all([windowLevels(voicePath), windowLevels(musicPath), windowLevels(output)]);
  const { speech, pauses } = speechAndPauses(voice);
  expect(speech.length).toBeGreaterThan(30);
  // While the voice speaks: at least 10 dB above the music over all its speaking windows, and in 90 % of them one by one.
  const above = levelOver(voice, speech) - levelOver(music, speech);
  expect(above).toBeGreaterThanOrEqual(10);
  const each = speech.map((i) => voice[i] - music[i]).sort((a, b) => a - b);
  expect(each[Math.floor(each.length * 0.1)]).toBeGreaterThanOrEqual(10);

  // The long pause between scenes 2 and 3 (after the 6 s track ended: it was looped): the mix is the music alone,
  // back up from its ducked level, and far above silence.
  expect(longPause.start).toBeGreaterThan(MUSIC_TRACK_SECONDS);
  const pause = windowsBetween(longPause.start + 0.4, longPause.end);
  expect(pause.length).toBeGreaterThanOrEqual(3);
  expect(pause.every((i) => pauses.includes(i))).toBe(true);
  for (const i of pause) expect(mixed[i]).toBeGreaterThan(-35);
  expect(levelOver(music, pause) - levelOver(music, speech)).toBeGreaterThan(8);

  // Faded in from nothing and out to nothing: the first and last windows of the music far below the pause's.
  const bed = levelOver(music, pause);
  expect(bed - music[0]).toBeGreaterThan(15);
  expect(bed - music[music.length - 1]).toBeGreaterThan(15);
  console.log(
    `music mix: ${measured.integratedLufs} LUFS, true peak ${measured.truePeakDbtp} dBTP; voice above music while speaking ` +
      `${above.toFixed(1)} dB (10th percentile of windows ${each[Math.floor(each.length * 0.1)].toFixed(1)} dB); mix in the pause ` +
      `${levelOver(mixed, pause).toFixed(1)} dBFS; report ${JSON.stringify(report)}`,
  );
}, 60_000);

test('volume 1 puts the music as loud as the voice between sentences, and still ≥ 10 dB under it while the voice speaks', async () => {
  const loud = { ...mix, volume: 1 };
  const [voicePath, musicPath, defaultPath] = ['voice-1.wav', 'music-1.wav', 'music-default.wav'].map((f) => path.join(dir, f));
  const [report] = await Promise.all([
    renderPremix(loud, 'voice', voicePath),
    renderPremix(loud, 'music', musicPath),
    renderPremix(mix, 'music', defaultPath),
  ]);
  expect(report.musicLufs + report.musicGainDb).toBeCloseTo(report.voiceLufs, 1);
  const [voice, music, quieter] = await Promise.all([windowLevels(voicePath), windowLevels(musicPath), windowLevels(defaultPath)]);
  const { speech } = speechAndPauses(voice);
  const pause = windowsBetween(longPause.start + 0.4, longPause.end);
  expect(levelOver(voice, speech) - levelOver(music, speech)).toBeGreaterThanOrEqual(10);
  // The default volume (0.4) is 8 dB below volume 1 in the pause, where nothing ducks it.
  expect(levelOver(music, pause) - levelOver(quieter, pause)).toBeCloseTo(-20 * Math.log10(MUSIC_DEFAULT_VOLUME), 0);
}, 60_000);

describe('what is a music track', () => {
  const make = async (name: string, args: string[]) => {
    const file = path.join(dir, name);
    await run('ffmpeg', ['-v', 'error', '-y', ...args, file]);
    return file;
  };

  test('MP3, AAC (ADTS and M4A), WAV and OGG are; a page, a video, a blip and another codec are not, each said so', async () => {
    const tone = ['-f', 'lavfi', '-i', 'sine=f=440:d=2'];
    const good = await Promise.all([
      make('t.mp3', [...tone, '-c:a', 'libmp3lame']),
      make('t.aac', [...tone, '-c:a', 'aac', '-f', 'adts']),
      make('t.m4a', [...tone, '-c:a', 'aac']),
      make('t.wav', tone),
      make('t.ogg', [...tone, '-c:a', 'libvorbis']),
    ]);
    for (const file of good)
      expect({ file: path.basename(file), problem: await audioTrackProblem(file) }).toEqual({ file: path.basename(file), problem: null });
    const page = path.join(dir, 'page.mp3');
    await fs.writeFile(page, '<!doctype html><title>not music</title><p>hello</p>');
    expect(await audioTrackProblem(page)).toMatch(/^is not an audio file \(MP3, AAC, WAV or OGG\)/);
    const video = await make('v.mp4', ['-f', 'lavfi', '-i', 'testsrc=d=2:s=160x120', ...tone, '-c:v', 'libx264', '-c:a', 'aac']);
    expect(await audioTrackProblem(video)).toMatch(/is a video/);
    const blip = await make('blip.wav', ['-f', 'lavfi', '-i', 'sine=f=440:d=0.4']);
    expect(await audioTrackProblem(blip)).toMatch(/shorter than 1 s/);
    const flac = await make('t.flac', tone);
    expect(await audioTrackProblem(flac)).toMatch(/is flac audio/);
  }, 30_000);

  test('fetched through the address guard: bytes as served; a page, a file too large, a private address refused (not retried)', async () => {
    const track = await musicTrack();
    const server = http.createServer((req, res) => {
      if (req.url === '/music.mp3') return res.writeHead(200, { 'content-type': 'audio/mpeg' }).end(track);
      if (req.url === '/page') return res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>no</p>');
      if (req.url === '/to-metadata') return res.writeHead(302, { location: 'http://169.254.169.254/music.mp3' }).end();
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const options = { guard: { allowLoopback: true }, timeoutMs: 5_000 };
    const failure = (url: string, maxBytes?: number) =>
      fetchMusic(url, { ...options, maxBytes }).then(
        () => null,
        (err: unknown) => err as MusicError,
      );
    try {
      expect((await fetchMusic(`${base}/music.mp3`, options)).equals(track)).toBe(true);
      const cases: Array<[string, number | undefined, RegExp]> = [
        [`${base}/page`, undefined, /^is not an audio file/],
        [`${base}/music.mp3`, 1000, /^is larger than 1000 bytes/],
        [`${base}/to-metadata`, undefined, /^must point to a public address/],
      ];
      for (const [url, maxBytes, message] of cases) {
        const err = await failure(url, maxBytes);
        expect(err).toBeInstanceOf(MusicError);
        expect(err?.message).toMatch(message);
        expect(err?.retryable).toBe(false);
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
