// Interviews and their sessions: what was said (transcripts, chapters, recaps), what was shown (frames,
// pins, artifacts, recordings, media), and the preview and test sessions a consultant runs on a guide.
import { z } from 'zod';
import { area, clientInfo, EVIDENCE_SOURCE_TYPES, nstr, nullableId, op, SESSION_MODES, slug } from './shared.js';

/**
 * The `{path}` of a stored media file: the one path parameter that may hold slashes (docs/architecture.md, Contracts other programs rely on). Each
 * segment is non-empty and neither `.` nor `..`, so the file named cannot climb out of its disk; no
 * backslash or control character either, which no stored file name needs.
 */
const mediaPath = () =>
  z
    .string()
    .min(1)
    .max(1024)
    .regex(
      /^(?!\.{1,2}(\/|$))(?!.*\/\.{1,2}(\/|$))[^/\\\x00-\x1f]+(\/[^/\\\x00-\x1f]+)*$/,
      'must be a relative file path: no empty, "." or ".." segment, no backslash',
    );

/** Body of the preview and test sessions: the spec requires none of it. */
const sessionRequest = () => ({
  population_id: nullableId().optional(),
  mode: z.enum(SESSION_MODES).optional(),
  locale: nstr(8).optional(),
  client_info: clientInfo().optional(),
});

export const interviews = area(
  'interviews',
  [
    op({
      name: 'list_interviews',
      title: 'List interviews',
      description: 'Interviews of an engagement. get_interview and its chapters tell what each one covered.',
      method: 'GET',
      path: '/engagements/{engagement}/interviews',
      example: { engagement: '$demo.engagement' },
      completes: { argument: 'interview', label: 'title' },
      askedAs: {
        en: ['who we interviewed', 'interviews done so far', 'interviewees of the engagement', 'people we have talked to'],
        fr: ['qui avons-nous interviewé', 'entretiens réalisés', 'personnes interrogées', 'personnes rencontrées', 'qui a-t-on déjà vu'],
      },
      paginated: true,
      surface: 'brief',
    }),
    op({
      name: 'start_preview_session',
      title: 'Start preview session',
      description: "Open a preview session of the engagement's interview, to try the guide as a participant would.",
      method: 'POST',
      path: '/engagements/{engagement}/interviews/preview-session',
      askedAs: {
        en: [
          'try the interview as a participant',
          'rehearse the interview',
          'preview the interviewer',
          'go through the interview myself',
          'voice only or with screen sharing',
          'as seen on a given device or browser',
        ],
        fr: [
          'essayer l’entretien comme un participant',
          'répéter l’entretien',
          'aperçu de l’entretien',
          'passer l’entretien moi-même',
          'voix seule ou avec partage d’écran',
          'tel que vu sur un appareil donné',
        ],
      },
      // Creates a throwaway session; nothing existing changes.
      destructive: false,
      fields: sessionRequest,
    }),
    op({
      name: 'start_test_interview',
      title: 'Start test interview',
      description: 'Run a test interview of the engagement, e.g. in text_simulation mode, to check the guide end to end.',
      method: 'POST',
      path: '/engagements/{engagement}/interviews/test',
      askedAs: {
        en: [
          'run a test interview',
          'dry run with a simulated participant',
          'simulate a participant in text',
          'check the guide end to end',
          'simulate the participant in text',
        ],
        fr: [
          'lancer un entretien test',
          'simulation d’entretien',
          'simuler un participant par écrit',
          'vérifier le guide de bout en bout',
          'simuler le participant par écrit',
        ],
      },
      destructive: false,
      fields: sessionRequest,
    }),
    op({
      name: 'list_live_sessions',
      title: 'List live sessions',
      description: 'Interview sessions of the engagement in progress right now.',
      method: 'GET',
      path: '/engagements/{engagement}/live-sessions',
      example: { engagement: '$demo.engagement' },
      askedAs: {
        en: ['interviews happening now', 'who is in an interview right now', 'ongoing sessions', 'sessions currently open'],
        fr: ['entretiens en direct', 'qui est en entretien maintenant', 'sessions en cours', 'entretiens en ce moment'],
      },
      paginated: true,
    }),
    op({
      name: 'get_interview',
      title: 'Get interview',
      description: 'One interview. Its chapters and their recaps summarise what was said.',
      method: 'GET',
      path: '/interviews/{interview}',
      example: { interview: '$demo.interview' },
      askedAs: {
        en: ['details of an interview', 'who was interviewed and when', 'facts about one interview'],
        fr: ['détails d’un entretien', 'qui a été interviewé et quand', 'fiche d’un entretien'],
      },
    }),
    op({
      name: 'list_interview_chapters',
      title: 'List interview chapters',
      description: 'Chapters of an interview, in order; get_chapter_recap summarises each.',
      method: 'GET',
      path: '/interviews/{interview}/chapters',
      completes: { argument: 'chapter', label: 'title' },
      example: { interview: '$demo.interview' },
      askedAs: {
        en: ['sections of an interview', 'parts of the conversation', 'how an interview is divided'],
        fr: ['chapitres de l’entretien', 'parties de la conversation', 'découpage de l’entretien'],
      },
      paginated: true,
    }),
    op({
      name: 'get_chapter_recap',
      title: 'Get chapter recap',
      description: 'Recap of one interview chapter: the points the participant made. Cheaper than reading the transcript.',
      method: 'GET',
      path: '/interviews/{interview}/chapters/{chapter}/recap',
      example: { interview: '$demo.interview', chapter: '$demo.chapter' },
      askedAs: {
        en: ['summary of a chapter', 'key points of a section of the interview', 'what a participant said, in short', 'gist of part of an interview'],
        fr: ['résumé d’un chapitre', 'points clés d’une partie de l’entretien', 'ce qu’a dit un participant, en bref', 'l’essentiel d’un passage'],
      },
      resource: {
        name: 'chapter_recap',
        title: 'Chapter recap',
        uriTemplate: 'workspace://interviews/{interview}/chapters/{chapter}/recap',
        description: 'The recap of one chapter of an interview.',
        mimeType: 'application/json',
      },
    }),
    op({
      name: 'get_interview_source',
      title: 'Get interview source',
      description: 'One source item of an interview (transcript segment, frame, pin...), e.g. the one an evidence cites.',
      method: 'GET',
      path: '/interviews/{interview}/sources/{type}/{source}',
      example: { interview: '$demo.interview', type: 'transcript_segment', source: '$demo.segment' },
      askedAs: {
        en: ['one transcript segment', 'a pin or frame of an interview', 'open the cited transcript passage'],
        fr: ['un segment de transcription', 'une capture ou un repère de l’entretien', 'le segment cité par une preuve'],
      },
      pathSchemas: () => ({ type: z.enum(EVIDENCE_SOURCE_TYPES) }),
    }),
    op({
      name: 'get_media',
      title: 'Get media',
      description: 'Content of a stored media file, by the disk and path a record gives.',
      method: 'GET',
      path: '/media/{disk}/{path}',
      example: { disk: '$demo.media_disk', path: '$demo.media_path' },
      askedAs: {
        en: ['open a stored media file', 'image or video file', 'the full-size picture, not the thumbnail', 'the image at full resolution'],
        fr: ['ouvrir un fichier média', 'image ou vidéo stockée', 'l’image en taille réelle, pas la vignette', 'l’image en pleine résolution'],
      },
      pathSchemas: () => ({ disk: slug(), path: mediaPath() }),
      response: 'file',
      segmentedParam: 'path',
    }),
    op({
      name: 'get_media_thumbnail',
      title: 'Get media thumbnail',
      description: 'Thumbnail of a stored media file, by disk and path: lighter than get_media to glance at an image.',
      method: 'GET',
      path: '/media-thumbnails/{disk}/{path}',
      example: { disk: '$demo.media_disk', path: '$demo.media_path' },
      askedAs: {
        en: ['small preview of an image', 'a lighter version of an image', 'glance at a picture'],
        fr: ['vignette d’une image', 'version légère d’une image', 'coup d’œil à une image'],
      },
      pathSchemas: () => ({ disk: slug(), path: mediaPath() }),
      response: 'file',
      segmentedParam: 'path',
    }),
    op({
      name: 'get_session',
      title: 'Get session',
      description: 'One interview session. Its transcript, frames, pins, artifacts and recordings have their own tools.',
      method: 'GET',
      path: '/sessions/{session}',
      example: { session: '$demo.session' },
      askedAs: {
        en: ['details of an interview session', 'when a session started and how it ran'],
        fr: ['détails d’une session d’entretien', 'début et déroulement d’une séance'],
      },
    }),
    op({
      name: 'list_session_artifacts',
      title: 'List session artifacts',
      description: 'Files shared or produced during an interview session.',
      method: 'GET',
      path: '/sessions/{session}/artifacts',
      example: { session: '$demo.session' },
      askedAs: {
        en: ['files shown during the interview', 'documents shared in the session', 'documents the participant showed'],
        fr: ['fichiers montrés pendant l’entretien', 'documents partagés en séance', 'documents montrés par le participant'],
      },
      paginated: true,
    }),
    op({
      name: 'end_session',
      title: 'End session',
      description: 'End an interview session now, e.g. a test left running. It cannot be resumed.',
      method: 'POST',
      path: '/sessions/{session}/end',
      askedAs: {
        en: ['stop the interview', 'hang up the session', 'finish an interview now', 'hang up a forgotten test'],
        fr: ['arrêter l’entretien', 'terminer la session', 'mettre fin à l’entretien', 'couper une séance de test'],
      },
      destructive: true,
      job: {
        label: 'session end',
        in: 'end_job',
        reads: [{ operation: 'get_session', args: { session: '$args.session' }, pick: { field: 'end_job' } }],
      },
    }),
    op({
      name: 'list_session_frames',
      title: 'List session frames',
      description: 'Screen frames captured during an interview session where the participant shared a screen.',
      method: 'GET',
      path: '/sessions/{session}/frames',
      example: { session: '$demo.session' },
      askedAs: {
        en: ['screenshots from the interview', 'screens the participant shared', 'what the participant showed on screen'],
        fr: ['captures d’écran de l’entretien', 'écrans partagés par le participant', 'ce que le participant a montré à l’écran'],
      },
      paginated: true,
    }),
    op({
      name: 'get_latest_frame',
      title: 'Get latest frame',
      description: 'The most recent screen frame of a session: what the participant is showing now.',
      method: 'GET',
      path: '/sessions/{session}/frames/latest',
      example: { session: '$demo.session' },
      askedAs: {
        en: ['what is on their screen now', 'current shared screen', 'the last image shared by the participant'],
        fr: ['ce qui est à l’écran maintenant', 'écran partagé actuel', 'écran du participant à l’instant'],
      },
    }),
    op({
      name: 'list_session_pins',
      title: 'List session pins',
      description: 'Pins of an interview session: moments marked as worth keeping.',
      method: 'GET',
      path: '/sessions/{session}/pins',
      example: { session: '$demo.session' },
      askedAs: {
        en: ['moments marked as worth keeping', 'highlights of the interview', 'bookmarks set during a session'],
        fr: ['moments marqués', 'repères posés pendant l’entretien', 'signets de la séance'],
      },
      paginated: true,
    }),
    op({
      name: 'get_session_recording',
      title: 'Get session recording',
      description: 'One recording of an interview session, as a media file.',
      method: 'GET',
      path: '/sessions/{session}/recordings/{recording}/stream',
      example: { session: '$demo.session', recording: '$demo.recording' },
      askedAs: {
        en: ['audio of the interview', 'play the recording', 'video of the session', 'listen to the interview again'],
        fr: ['audio de l’entretien', 'écouter l’enregistrement', 'vidéo de la session', 'réécouter l’entretien'],
      },
      response: 'file',
    }),
    op({
      name: 'get_session_transcript',
      title: 'Get session transcript',
      description: 'Transcript of an interview session: who said what, when. The source to quote an interview.',
      method: 'GET',
      path: '/sessions/{session}/transcript',
      example: { session: '$demo.session' },
      askedAs: {
        en: ['what was said word for word', 'verbatim of the interview', 'interview notes', 'the full text of the interview', 'exact words of the participant'],
        fr: [
          'ce qui a été dit mot à mot',
          'transcription complète de l’entretien',
          'verbatim de l’entretien',
          'compte rendu de l’entretien',
          'texte intégral de l’entretien',
          'mots exacts du participant',
        ],
      },
      surface: 'brief',
      resource: {
        name: 'transcript',
        title: 'Session transcript',
        uriTemplate: 'workspace://sessions/{session}/transcript',
        description: 'The full transcript of an interview session.',
        mimeType: 'application/json',
      },
    }),
  ],
  // Transcripts, documents, findings and chat quote what interviewees, clients and members wrote.
  { quotesContent: true },
);
