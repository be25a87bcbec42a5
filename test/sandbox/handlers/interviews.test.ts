// Interviews and sessions of the sandbox over real HTTP: the seeded interviews and what their
// sessions hold, generated media and recordings, preview and test sessions, and ending a session.

import { crc32, inflateSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ENGAGEMENT_AP,
  INTERVIEW_AP_CLERK,
  INTERVIEW_BUYER,
  INTERVIEW_CONTROLLER,
  SESSION_AP_CLERK,
  SESSION_BUYER,
  SESSION_CONTROLLER,
} from '../../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { TestClock } from '../../helpers/clock.js';
import { call } from '../raw-http.js';

const E = `/engagements/${ENGAGEMENT_AP}`;
const UNKNOWN = '01AAAAAAAAAAAAAAAAAAAAAAAA';

let sb: SandboxHandle;
// The sandbox's clock stands still: a session end is read at the moment a test moves it to.
const clock = new TestClock({ frozen: true });
beforeAll(async () => {
  // 0.01: a session end (5 s) takes 50 ms of the clock.
  sb = await startSandbox({ port: 0, timeScale: 0.01, rateLimit: false, clock: clock.now });
});
afterAll(() => sb.close());
beforeEach(() => sb.admin.reset());

/** Raw bytes of a file answer, with its headers. */
async function download(path: string) {
  const res = await request(`${sb.api}${path}`, { headers: { authorization: `Bearer ${sb.tokens.read}` } });
  const body = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers, body };
}

/** Check a PNG chunk by chunk (CRCs included) and return its size. */
function readPng(b: Buffer): { width: number; height: number } {
  expect(b.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  let o = 8;
  const types: string[] = [];
  const idat: Buffer[] = [];
  while (o < b.length) {
    const len = b.readUInt32BE(o);
    const type = b.toString('latin1', o + 4, o + 8);
    const data = b.subarray(o + 8, o + 8 + len);
    expect(b.readUInt32BE(o + 8 + len)).toBe(crc32(b.subarray(o + 4, o + 8 + len)) >>> 0);
    if (type === 'IDAT') idat.push(data);
    types.push(type);
    o += 12 + len;
  }
  expect(types[0]).toBe('IHDR');
  expect(types[types.length - 1]).toBe('IEND');
  const ihdr = b.subarray(16, 29);
  const width = ihdr.readUInt32BE(0);
  const height = ihdr.readUInt32BE(4);
  // The pixel data inflates to exactly one filter byte plus RGB per row.
  expect(inflateSync(Buffer.concat(idat)).length).toBe(height * (width * 3 + 1));
  return { width, height };
}

describe('interviews', () => {
  it('lists the three interviews of the AP audit, two in French and one in English', async () => {
    const r = await call(sb, 'GET', `${E}/interviews`);
    expect(r.status).toBe(200);
    expect(r.json.data.map((i: any) => i.id)).toEqual([INTERVIEW_AP_CLERK, INTERVIEW_CONTROLLER, INTERVIEW_BUYER]);
    expect(r.json.data.map((i: any) => `${i.interviewee_name}:${i.locale}`)).toEqual(['Nathalie Roux:fr', 'Julien Moreau:fr', 'Emma Clarke:en']);
  });

  it('gives one interview with its session, and 404 for an unknown one', async () => {
    const r = await call(sb, 'GET', `/interviews/${INTERVIEW_AP_CLERK}`);
    expect(r.json.data).toMatchObject({ interviewee_role: 'Comptable fournisseurs', session_ids: [SESSION_AP_CLERK], chapter_count: 3 });
    expect((await call(sb, 'GET', `/interviews/${UNKNOWN}`)).status).toBe(404);
  });

  it('has three chapters per interview, each with a recap whose items cite segments of that interview', async () => {
    for (const [interview, session] of [
      [INTERVIEW_AP_CLERK, SESSION_AP_CLERK],
      [INTERVIEW_CONTROLLER, SESSION_CONTROLLER],
      [INTERVIEW_BUYER, SESSION_BUYER],
    ] as const) {
      const chapters = (await call(sb, 'GET', `/interviews/${interview}/chapters`)).json.data;
      expect(chapters.map((c: any) => c.position)).toEqual([1, 2, 3]);
      const segments = (await call(sb, 'GET', `/sessions/${session}/transcript`)).json.data.segments;
      const ids = new Set(segments.map((s: any) => s.id));
      for (const c of chapters) {
        const recap = await call(sb, 'GET', `/interviews/${interview}/chapters/${c.id}/recap`);
        expect(recap.status).toBe(200);
        expect(recap.json.data.summary.length).toBeGreaterThan(40);
        for (const item of recap.json.data.items) for (const s of item.segment_ids) expect(ids).toContain(s);
      }
    }
  });

  it('answers 404 for the recap of a chapter of another interview', async () => {
    const [chapter] = (await call(sb, 'GET', `/interviews/${INTERVIEW_BUYER}/chapters`)).json.data;
    expect((await call(sb, 'GET', `/interviews/${INTERVIEW_AP_CLERK}/chapters/${chapter.id}/recap`)).status).toBe(404);
  });

  it('serves an interview source by evidence type, only for sources of that interview', async () => {
    const [seg] = (await call(sb, 'GET', `/sessions/${SESSION_CONTROLLER}/transcript`)).json.data.segments;
    const own = await call(sb, 'GET', `/interviews/${INTERVIEW_CONTROLLER}/sources/transcript_segment/${seg.id}`);
    expect(own.status).toBe(200);
    expect(own.json.data).toMatchObject({ type: 'transcript_segment', id: seg.id, text: seg.text, session_id: SESSION_CONTROLLER });
    expect((await call(sb, 'GET', `/interviews/${INTERVIEW_AP_CLERK}/sources/transcript_segment/${seg.id}`)).status).toBe(404);
    const [chapter] = (await call(sb, 'GET', `/interviews/${INTERVIEW_CONTROLLER}/chapters`)).json.data;
    const item = (await call(sb, 'GET', `/interviews/${INTERVIEW_CONTROLLER}/chapters/${chapter.id}/recap`)).json.data.items[0];
    const recapItem = await call(sb, 'GET', `/interviews/${INTERVIEW_CONTROLLER}/sources/recap_item/${item.id}`);
    expect(recapItem.json.data.text).toBe(item.text);
    expect((await call(sb, 'GET', `/interviews/${INTERVIEW_CONTROLLER}/sources/transcript_segment/${UNKNOWN}`)).status).toBe(404);
  });
});

describe('sessions', () => {
  it('has ended sessions whose transcript has 12 to 20 turns in time order, both speakers', async () => {
    for (const session of [SESSION_AP_CLERK, SESSION_CONTROLLER, SESSION_BUYER]) {
      const s = (await call(sb, 'GET', `/sessions/${session}`)).json.data;
      expect(s).toMatchObject({ status: 'ended', engagement_id: ENGAGEMENT_AP });
      expect(Date.parse(s.ended_at) - Date.parse(s.started_at)).toBe(s.duration_ms);
      const t = (await call(sb, 'GET', `/sessions/${session}/transcript`)).json.data;
      expect(t.segments.length).toBeGreaterThanOrEqual(12);
      expect(t.segments.length).toBeLessThanOrEqual(20);
      expect(new Set(t.segments.map((x: any) => x.speaker))).toEqual(new Set(['interviewer', 'participant']));
      let last = -1;
      for (const seg of t.segments) {
        expect(seg.start_ms).toBeGreaterThan(last);
        expect(seg.end_ms).toBeGreaterThan(seg.start_ms);
        last = seg.end_ms;
      }
      expect(last).toBeLessThanOrEqual(s.duration_ms);
    }
  });

  it('lists frames with their media, the latest frame, and pins in time order', async () => {
    const frames = (await call(sb, 'GET', `/sessions/${SESSION_AP_CLERK}/frames`)).json.data;
    expect(frames.length).toBeGreaterThanOrEqual(2);
    expect(frames[0].media).toEqual({ disk: 'frames', path: `sessions/${SESSION_AP_CLERK}/frame-001.png` });
    const latest = (await call(sb, 'GET', `/sessions/${SESSION_AP_CLERK}/frames/latest`)).json.data;
    expect(latest.id).toBe(frames[frames.length - 1].id);
    const pins = (await call(sb, 'GET', `/sessions/${SESSION_AP_CLERK}/pins`)).json.data;
    expect(pins.length).toBeGreaterThan(0);
    expect(pins.map((p: any) => p.at_ms)).toEqual([...pins.map((p: any) => p.at_ms)].sort((a, b) => a - b));
  });

  it('lists the artifacts shared during a session', async () => {
    const r = (await call(sb, 'GET', `/sessions/${SESSION_AP_CLERK}/artifacts`)).json.data;
    expect(r.map((a: any) => a.filename)).toEqual(['Procédure de traitement des factures fournisseurs v3.pdf']);
    expect(r[0]).not.toHaveProperty('content');
  });

  it('answers 404 for a session of another workspace', async () => {
    const globex = sb.workspaces.find((w) => w.slug === 'globex');
    const r = await call(sb, 'GET', `/sessions/${SESSION_AP_CLERK}`, { host: 'globex.localhost', token: globex?.tokens.read });
    expect(r.status).toBe(404);
  });
});

describe('media', () => {
  it('serves a frame as a valid PNG and its thumbnail as a smaller one', async () => {
    const path = `sessions/${SESSION_AP_CLERK}/frame-001.png`;
    const full = await download(`/media/frames/${path}`);
    expect(full.status).toBe(200);
    expect(full.headers['content-type']).toBe('image/png');
    expect(Number(full.headers['content-length'])).toBe(full.body.length);
    expect(readPng(full.body)).toEqual({ width: 640, height: 360 });
    const thumb = await download(`/media-thumbnails/frames/${path}`);
    expect(readPng(thumb.body)).toEqual({ width: 160, height: 90 });
  });

  it('serves artifact previews, and answers 404 for an unknown path or disk', async () => {
    const [artifact] = (await call(sb, 'GET', `${E}/artifacts`)).json.data;
    const preview = await download(`/media/${artifact.media.disk}/${artifact.media.path}`);
    expect(preview.status).toBe(200);
    expect(readPng(preview.body).height).toBeGreaterThan(readPng(preview.body).width);
    expect((await download(`/media/frames/sessions/${SESSION_AP_CLERK}/frame-999.png`)).status).toBe(404);
    expect((await download(`/media/other/sessions/${SESSION_AP_CLERK}/frame-001.png`)).status).toBe(404);
  });
});

describe('recordings', () => {
  it('streams a session recording as a WAV whose length matches its header and Content-Length', async () => {
    const s = (await call(sb, 'GET', `/sessions/${SESSION_AP_CLERK}`)).json.data;
    const [recording] = s.recording_ids;
    const res = await request(`${sb.api}/sessions/${SESSION_AP_CLERK}/recordings/${recording}/stream`, {
      headers: { authorization: `Bearer ${sb.tokens.read}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('audio/wav');
    let head = Buffer.alloc(0);
    let total = 0;
    for await (const chunk of res.body) {
      if (head.length < 44) head = Buffer.concat([head, chunk as Buffer]).subarray(0, 44);
      total += (chunk as Buffer).length;
    }
    expect(total).toBe(Number(res.headers['content-length']));
    expect(head.toString('latin1', 0, 4)).toBe('RIFF');
    expect(head.toString('latin1', 8, 12)).toBe('WAVE');
    expect(head.readUInt32LE(24)).toBe(16_000);
    expect(head.readUInt32LE(40)).toBe(total - 44);
    // 16 kHz, 16-bit mono: 32 bytes per millisecond of the session.
    expect(total - 44).toBe(s.duration_ms * 32);
  });

  it('announces about 100 MB for the buyer session recording and streams it without buffering', async () => {
    const [recording] = (await call(sb, 'GET', `/sessions/${SESSION_BUYER}`)).json.data.recording_ids;
    const res = await request(`${sb.api}/sessions/${SESSION_BUYER}/recordings/${recording}/stream`, {
      headers: { authorization: `Bearer ${sb.tokens.read}` },
    });
    expect(Number(res.headers['content-length'])).toBeGreaterThan(95 * 1024 * 1024);
    const first = await new Promise<Buffer>((resolve) => res.body.once('data', resolve));
    expect(first.toString('latin1', 0, 4)).toBe('RIFF');
    res.body.destroy();
  });

  it('answers 404 for a recording of another session', async () => {
    const [recording] = (await call(sb, 'GET', `/sessions/${SESSION_BUYER}`)).json.data.recording_ids;
    expect((await call(sb, 'GET', `/sessions/${SESSION_AP_CLERK}/recordings/${recording}/stream`)).status).toBe(404);
  });
});

describe('preview, test and live sessions', () => {
  it('has no live session in the seed', async () => {
    expect((await call(sb, 'GET', `${E}/live-sessions`)).json.data).toEqual([]);
  });

  it('starts a test session that is live until ended through a job', async () => {
    const t = await call(sb, 'POST', `${E}/interviews/test`, { body: { mode: 'text_simulation', locale: 'fr' } });
    expect(t.status).toBe(201);
    expect(t.json.data).toMatchObject({ kind: 'test', mode: 'text_simulation', status: 'live', end_job: null });
    expect(t.json.data.join_url).toMatch(/^https:\/\//);
    const id = t.json.data.id;
    expect((await call(sb, 'GET', `${E}/live-sessions`)).json.data.map((s: any) => s.id)).toEqual([id]);

    const ending = await call(sb, 'POST', `/sessions/${id}/end`);
    expect(ending.status).toBe(202);
    expect(ending.json.data).toMatchObject({ status: 'ending', end_job: { status: 'queued', session_id: id } });
    clock.advance(120);
    const ended = (await call(sb, 'GET', `/sessions/${id}`)).json.data;
    expect(ended).toMatchObject({ status: 'ended', end_job: { status: 'succeeded' } });
    expect(ended.duration_ms).toBeGreaterThanOrEqual(0);
    expect((await call(sb, 'GET', `${E}/live-sessions`)).json.data).toEqual([]);

    const again = await call(sb, 'POST', `/sessions/${id}/end`);
    expect(again.status).toBe(409);
    expect(again.json.code).toBe('session.already_ended');
  });

  it('starts a preview session with a participant preview url, voice_screen by default', async () => {
    const p = await call(sb, 'POST', `${E}/interviews/preview-session`, { body: {} });
    expect(p.status).toBe(201);
    expect(p.json.data).toMatchObject({ kind: 'preview', mode: 'voice_screen', status: 'live' });
    expect(p.json.data.preview_url).toContain(p.json.data.id.toLowerCase());
  });

  it('puts a session back to live when its end job fails', async () => {
    const id = (await call(sb, 'POST', `${E}/interviews/test`, { body: {} })).json.data.id;
    sb.admin.failNextJobs('atelier', 1);
    expect((await call(sb, 'POST', `/sessions/${id}/end`)).status).toBe(202);
    clock.advance(120);
    const s = (await call(sb, 'GET', `/sessions/${id}`)).json.data;
    expect(s).toMatchObject({ status: 'live', end_job: { status: 'failed' } });
  });
});
