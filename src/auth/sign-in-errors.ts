// Failures of signing in and of using a stored sign-in. Each message says what happened and what to
// run next; none ever holds a token, a code or a verifier.
import { commandLine, launchCommand } from '../launcher.js';

/**
 * The exact command a member runs to sign in to `workspaceUrl`, started as this program was: from a
 * clone `node /abs/dist/src/cli.js login ...`, the bare name only where it is on PATH (src/launcher.ts),
 * so it runs as printed.
 */
export function loginCommand(workspaceUrl: string, scope?: 'read' | 'write'): string {
  return commandLine(launchCommand(), 'login', '--workspace', workspaceUrl, ...(scope ? ['--scope', scope] : []));
}

/** Signing in could not complete (refused redirect, bad metadata, state or iss mismatch, PKCE...). */
export class SignInError extends Error {
  override name = 'SignInError';
}

/** No usable sign-in is stored for the workspace (never signed in, signed out, or refresh refused). */
export class NotSignedInError extends Error {
  override name = 'NotSignedInError';
  constructor(
    readonly workspaceUrl: string,
    why = 'not signed in',
  ) {
    super(`Not signed in to ${workspaceUrl} (${why}). Run: ${loginCommand(workspaceUrl)}`);
  }
}
