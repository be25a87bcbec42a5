// Interviews and sessions: the interview records, what each session holds (transcript, chapters and
// recaps, frames, pins, artifacts, recordings), the generated media, and the preview and test sessions.

import { INTERVIEW_AP_CLERK, SESSION_AP_CLERK } from '../data/ids.js';
import { seedInterviews } from '../data/interviews.js';
import { refreshJob, startJob, TERMINAL } from '../jobs.js';
import { FRAME_SIZE, png, THUMBNAIL_SIZE, wavSize, wavStream } from '../media.js';
import { conflict, type HandlerContext, type HandlerTable, notFound, type Rec, type SandboxArea, type WorkspaceState } from '../types.js';
import { engagementOf, findEvidenceSource, publicArtifact } from './sources.js';

/** Unscaled time a session takes to end: the recording is finalised and the transcript flushed. */
const SESSION_END_MS = 5_000;
const SESSION_ENDS = 'session_ends';
const LIVE = new Set(['live', 'ending']);

const byPosition = (a: Rec, b: Rec) => Number(a.position) - Number(b.position);

/**
 * Bring a session up to date with its end job. A finished job ends the session; a failed one puts
 * it back to live, since nothing was closed.
 */
function refreshSession(ws: WorkspaceState, session: Rec, now: Date): Rec {
  const jobId = session.end_job_id as string | undefined;
  const job = jobId ? ws.c(SESSION_ENDS).get(jobId) : undefined;
  if (!job) return session;
  refreshJob(ws, job, now);
  if (job.status === 'failed' && session.status === 'ending') Object.assign(session, { status: 'live', updated_at: job.finished_at });
  return session;
}

function sessionView(ws: WorkspaceState, session: Rec): Rec {
  const jobId = session.end_job_id as string | undefined;
  const { end_job_id: _hidden, ...rest } = session;
  return { ...rest, end_job: jobId ? (ws.c(SESSION_ENDS).get(jobId) ?? null) : null } as Rec;
}

function sessionOf(ctx: HandlerContext): Rec {
  return refreshSession(ctx.ws, ctx.ws.c('sessions').must(String(ctx.params.session), 'session'), ctx.now());
}

/** A preview or test session: created live, listed among the live sessions until ended. */
function startTrySession(ctx: HandlerContext, kind: 'preview' | 'test') {
  const e = engagementOf(ctx);
  const now = ctx.now().toISOString();
  const id = ctx.ws.newId();
  const host = ctx.ws.hosts[0] ?? 'localhost';
  const token = id.toLowerCase();
  const session = ctx.ws.c('sessions').insert({
    id,
    engagement_id: e.id,
    interview_id: null,
    kind,
    mode: ctx.input.mode ?? (kind === 'test' ? 'text_simulation' : 'voice_screen'),
    status: 'live',
    locale: ctx.input.locale ?? e.locale ?? 'fr',
    population_id: ctx.input.population_id ?? null,
    client_info: ctx.input.client_info ?? null,
    started_at: now,
    ended_at: null,
    duration_ms: null,
    recording_ids: [],
    started_by: ctx.member.id,
    join_url: `https://${host}/${kind === 'test' ? 'test' : 'preview'}/${token}`,
    preview_url: kind === 'preview' ? `https://${host}/preview/${token}?as=participant` : null,
  });
  return { status: 201, data: sessionView(ctx.ws, session) };
}

/** Frames and artifact previews by their stored media location. */
function findMedia(ws: WorkspaceState, disk: string, path: string): 'frame' | 'artifact' | undefined {
  const at = (r: Rec) => {
    const m = r.media as { disk?: string; path?: string } | undefined;
    return m?.disk === disk && m.path === path;
  };
  if (ws.c('frames').all(at).length > 0) return 'frame';
  if (ws.c('artifacts').all(at).length > 0) return 'artifact';
  return undefined;
}

const ARTIFACT_PAGE = { width: 420, height: 594 } as const;
const ARTIFACT_THUMB = { width: 105, height: 149 } as const;

function mediaFile(ctx: HandlerContext, thumbnail: boolean) {
  const disk = String(ctx.params.disk);
  const path = String(ctx.params.path);
  const kind = findMedia(ctx.ws, disk, path);
  if (!kind) throw notFound('media file');
  const size = kind === 'frame' ? (thumbnail ? THUMBNAIL_SIZE : FRAME_SIZE) : thumbnail ? ARTIFACT_THUMB : ARTIFACT_PAGE;
  const body = png(size.width, size.height, `${disk}/${path}`);
  const name = path.split('/').pop() ?? 'media.png';
  return { file: { contentType: 'image/png', filename: thumbnail ? `thumb-${name}` : name, body, size: body.length } };
}

const handlers: HandlerTable = {
  list_interviews: (ctx) => {
    const e = engagementOf(ctx);
    return ctx.page(ctx.ws.c('interviews').all((i) => i.engagement_id === e.id));
  },

  start_preview_session: (ctx) => startTrySession(ctx, 'preview'),

  start_test_interview: (ctx) => startTrySession(ctx, 'test'),

  list_live_sessions: (ctx) => {
    const e = engagementOf(ctx);
    const now = ctx.now();
    const live = ctx.ws
      .c('sessions')
      .all((s) => s.engagement_id === e.id)
      .map((s) => refreshSession(ctx.ws, s, now))
      .filter((s) => LIVE.has(String(s.status)));
    return ctx.page(live.map((s) => sessionView(ctx.ws, s)));
  },

  get_interview: (ctx) => {
    const i = ctx.ws.c('interviews').must(String(ctx.params.interview), 'interview');
    const chapters = ctx.ws.c('chapters').all((c) => c.interview_id === i.id).length;
    const segments = ctx.ws.c('transcript_segments').all((s) => s.interview_id === i.id).length;
    return { data: { ...i, chapter_count: chapters, segment_count: segments } };
  },

  list_interview_chapters: (ctx) => {
    const i = ctx.ws.c('interviews').must(String(ctx.params.interview), 'interview');
    return ctx.page(
      ctx.ws
        .c('chapters')
        .all((c) => c.interview_id === i.id)
        .sort(byPosition),
    );
  },

  get_chapter_recap: (ctx) => {
    const i = ctx.ws.c('interviews').must(String(ctx.params.interview), 'interview');
    const chapter = ctx.ws.c('chapters').get(String(ctx.params.chapter));
    if (!chapter || chapter.interview_id !== i.id) throw notFound('chapter');
    const recap = ctx.ws.c('recaps').all((r) => r.chapter_id === chapter.id)[0];
    if (!recap) throw notFound('recap');
    return { data: { ...recap, chapter_title: chapter.title, start_ms: chapter.start_ms, end_ms: chapter.end_ms } };
  },

  get_interview_source: (ctx) => {
    const i = ctx.ws.c('interviews').must(String(ctx.params.interview), 'interview');
    const type = String(ctx.params.type);
    const found = findEvidenceSource(ctx.ws, String(i.engagement_id), type, String(ctx.params.source));
    // Engagement-wide sources (an artifact chunk, an external item) belong to every interview of the
    // engagement; a source tied to another interview does not.
    if (!found || (found.interview_id !== null && found.interview_id !== i.id)) throw notFound('source');
    return {
      data: { type, id: found.record.id, interview_id: i.id, session_id: found.session_id, text: found.text, record: found.record },
    };
  },

  get_media: (ctx) => mediaFile(ctx, false),

  get_media_thumbnail: (ctx) => mediaFile(ctx, true),

  get_session: (ctx) => ({ data: sessionView(ctx.ws, sessionOf(ctx)) }),

  list_session_artifacts: (ctx) => {
    const s = sessionOf(ctx);
    return ctx.page(
      ctx.ws
        .c('artifacts')
        .all((a) => a.session_id === s.id)
        .map(publicArtifact),
    );
  },

  end_session: (ctx) => {
    const s = sessionOf(ctx);
    if (s.status === 'ended') {
      throw conflict('session.already_ended', {
        en: 'The session has already ended.',
        fr: 'La session est déjà terminée.',
      });
    }
    // Ending twice while the first end runs answers the running end: the caller's intent is met.
    const running = s.end_job_id ? ctx.ws.c(SESSION_ENDS).get(String(s.end_job_id)) : undefined;
    if (s.status === 'ending' && running && !TERMINAL.has(String(running.status))) {
      return { status: 202, data: sessionView(ctx.ws, s) };
    }
    const endMs = Math.max(1, ctx.scaled(SESSION_END_MS));
    const job = startJob(
      ctx,
      SESSION_ENDS,
      { engagement_id: s.engagement_id, session_id: s.id, requested_by: ctx.member.id },
      {
        durationMs: SESSION_END_MS,
        onSucceeded: (_ws, rec) => {
          // The session ends when its end job does (finished_at is set on the job after this hook).
          const endedAt = new Date(Date.parse(String(rec.started_at)) + endMs).toISOString();
          const durationMs = Date.parse(endedAt) - Date.parse(String(s.started_at));
          Object.assign(s, { status: 'ended', ended_at: endedAt, duration_ms: Math.max(0, durationMs), updated_at: endedAt });
        },
      },
    );
    Object.assign(s, { status: 'ending', end_job_id: job.id, updated_at: ctx.now().toISOString() });
    return { status: 202, data: sessionView(ctx.ws, s) };
  },

  list_session_frames: (ctx) => {
    const s = sessionOf(ctx);
    return ctx.page(
      ctx.ws
        .c('frames')
        .all((f) => f.session_id === s.id)
        .sort(byPosition),
    );
  },

  get_latest_frame: (ctx) => {
    const s = sessionOf(ctx);
    const frames = ctx.ws
      .c('frames')
      .all((f) => f.session_id === s.id)
      .sort(byPosition);
    const latest = frames[frames.length - 1];
    if (!latest) throw notFound('frame');
    return { data: latest };
  },

  list_session_pins: (ctx) => {
    const s = sessionOf(ctx);
    return ctx.page(
      ctx.ws
        .c('pins')
        .all((p) => p.session_id === s.id)
        .sort((a, b) => Number(a.at_ms) - Number(b.at_ms)),
    );
  },

  get_session_recording: (ctx) => {
    const s = sessionOf(ctx);
    const r = ctx.ws.c('recordings').get(String(ctx.params.recording));
    if (!r || r.session_id !== s.id) throw notFound('recording');
    const durationMs = Number(r.duration_ms);
    return {
      file: {
        contentType: String(r.content_type),
        filename: `recording-${r.id}.wav`,
        body: () => wavStream(durationMs),
        size: wavSize(durationMs),
      },
    };
  },

  get_session_transcript: (ctx) => {
    const s = sessionOf(ctx);
    const segments = ctx.ws
      .c('transcript_segments')
      .all((t) => t.session_id === s.id)
      .sort(byPosition);
    return {
      data: {
        session_id: s.id,
        interview_id: s.interview_id ?? null,
        locale: s.locale,
        status: s.status === 'ended' ? 'final' : 'partial',
        segment_count: segments.length,
        segments,
      },
    };
  },
};

/** The stored image of the demo clerk session's first frame. */
function firstFrameMedia(ws: WorkspaceState): { disk: string; path: string } | undefined {
  return ws
    .c('frames')
    .all((f) => f.session_id === SESSION_AP_CLERK)
    .sort(byPosition)[0]?.media as { disk: string; path: string } | undefined;
}

export const area: SandboxArea = {
  toolset: 'interviews',
  handlers,
  seeds: [seedInterviews],
  demo: {
    interview: () => INTERVIEW_AP_CLERK,
    session: () => SESSION_AP_CLERK,
    chapter: (ws) =>
      ws
        .c('chapters')
        .all((c) => c.interview_id === INTERVIEW_AP_CLERK)
        .sort(byPosition)[0]?.id,
    recording: (ws) => (ws.c('sessions').get(SESSION_AP_CLERK)?.recording_ids as string[] | undefined)?.[0],
    media_disk: (ws) => firstFrameMedia(ws)?.disk,
    media_path: (ws) => firstFrameMedia(ws)?.path,
  },
};
