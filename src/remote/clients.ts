// MCP clients: registered here (RFC 7591, kept for the deprecation period of dynamic registration), or
// named by the URL of their Client ID Metadata Document, fetched when they first ask to sign in.
// Only public clients: no secret is issued, PKCE protects the code.
// Registration is anonymous, so what it may cost is bounded: a registration nobody signs in with is
// forgotten within minutes (its first sign-in keeps it for the full term), its redirect URIs are
// capped in number and in total size, and each address may register only so many per window.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { sendJson } from '../net/http-io.js';
import type { SlidingWindowStore } from '../store/windows.js';
import { ClientMetadataBusyError, ClientMetadataError, isMetadataDocumentId, type MetadataFetcher } from './cimd.js';
import { OAuthHttpError, readJsonObject } from './io.js';
import type { SealedRecords } from './records.js';
import { refuseRedirect } from './redirects.js';

export interface ClientRecord {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  /** 'registered' here, or named by its metadata document. */
  kind: 'registered' | 'document';
  client_uri?: string;
}

/** A registration unused this long is forgotten; every sign-in and refresh renews it. */
const CLIENT_TTL_MS = 90 * 24 * 3600 * 1000;
const MAX_REDIRECTS = 10;
/** Characters of all of a registration's redirect URIs together: clients register one or two short ones. */
const MAX_REDIRECT_CHARS = 4096;
const MAX_CLIENT_URI = 1000;

export interface RegistrationLimits {
  /**
   * How long a registration lives before its first sign-in: time enough to register, sign in at the
   * workspace and redeem the code (the sign-in itself lasts 15 minutes at most).
   */
  unusedTtlMs: number;
  /** Registrations one address (src/remote/address.ts) may make per window. */
  perAddress: { limit: number; windowMs: number };
}

export const REGISTRATION_LIMITS: RegistrationLimits = {
  unusedTtlMs: 30 * 60_000,
  perAddress: { limit: 30, windowMs: 10 * 60_000 },
};
const GRANT_TYPES = new Set(['authorization_code', 'refresh_token']);

/** Names are shown on the approval page: printable, one line, bounded. */
function cleanName(value: unknown): string {
  const text =
    typeof value === 'string'
      ? value
          .replace(/[\p{Cc}\p{Cf}]+/gu, ' ')
          .trim()
          .slice(0, 200)
      : '';
  return text || 'An MCP client';
}

export class Clients {
  constructor(
    private readonly records: SealedRecords,
    private readonly documents: MetadataFetcher,
    private readonly logger: Logger,
    private readonly windows: SlidingWindowStore,
    private readonly limits: RegistrationLimits = REGISTRATION_LIMITS,
  ) {}

  /**
   * One more registration from `addressKey`, if its window has room: a slot taken and never settled,
   * so it counts for the whole window (its lease), in the store every replica shares.
   */
  async #admit(addressKey: string): Promise<void> {
    const { limit, windowMs } = this.limits.perAddress;
    const taken = await this.windows.takeSlot(`registrations:${addressKey}`, { limit, windowMs, holdMs: windowMs, leaseMs: windowMs });
    if (taken.taken) return;
    const retryAfterS = Math.max(1, Math.ceil(taken.waitMs / 1000));
    this.logger.warn({ event: 'remote.registrations_limited', address: addressKey }, 'too many client registrations from one address');
    throw new OAuthHttpError(
      429,
      'temporarily_unavailable',
      `Too many client registrations from this address: try again in ${retryAfterS} seconds (a client registers once, then reuses its client_id).`,
      { 'Retry-After': String(retryAfterS) },
    );
  }

  /** POST /oauth/register (RFC 7591), from the address counted under `addressKey`. */
  async register(req: IncomingMessage, res: ServerResponse, addressKey: string): Promise<void> {
    const body = await readJsonObject(req, 'invalid_client_metadata');
    const uris = body.redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECTS) {
      throw new OAuthHttpError(400, 'invalid_redirect_uri', `redirect_uris must list 1 to ${MAX_REDIRECTS} redirect URIs.`);
    }
    const chars = uris.reduce((n: number, u: unknown) => n + (typeof u === 'string' ? u.length : 0), 0);
    if (chars > MAX_REDIRECT_CHARS) {
      throw new OAuthHttpError(400, 'invalid_redirect_uri', `redirect_uris hold ${chars} characters in all: at most ${MAX_REDIRECT_CHARS}.`);
    }
    for (const u of uris) {
      const why = refuseRedirect(u);
      if (why) throw new OAuthHttpError(400, 'invalid_redirect_uri', why);
    }
    const grants = body.grant_types ?? ['authorization_code', 'refresh_token'];
    if (!Array.isArray(grants) || grants.some((g) => typeof g !== 'string' || !GRANT_TYPES.has(g))) {
      throw new OAuthHttpError(400, 'invalid_client_metadata', 'grant_types may hold authorization_code and refresh_token only.');
    }
    const responses = body.response_types ?? ['code'];
    if (!Array.isArray(responses) || responses.some((r) => r !== 'code')) {
      throw new OAuthHttpError(400, 'invalid_client_metadata', 'response_types may hold code only.');
    }
    // Counted once the request is well formed: a client fixing its metadata does not spend its turns.
    await this.#admit(addressKey);
    // A client asking for a secret is registered as public anyway: RFC 7591 3.2.1 lets the server
    // answer the metadata it actually registered, and the client then authenticates with PKCE alone.
    const record: ClientRecord = {
      client_id: `mcp_${randomBytes(24).toString('base64url')}`,
      client_name: cleanName(body.client_name),
      redirect_uris: uris as string[],
      kind: 'registered',
      ...(typeof body.client_uri === 'string' && body.client_uri.length <= MAX_CLIENT_URI ? { client_uri: body.client_uri } : {}),
    };
    // Kept for minutes until its first sign-in (renew), then for the full term.
    await this.records.write('client', record.client_id, record, this.limits.unusedTtlMs);
    this.logger.info({ event: 'remote.client_registered', client_id: record.client_id, client_name: record.client_name }, 'an MCP client registered');
    sendJson(res, 201, {
      client_id: record.client_id,
      client_id_issued_at: Math.floor(Date.now() / 1000),
      client_name: record.client_name,
      redirect_uris: record.redirect_uris,
      grant_types: grants,
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(record.client_uri ? { client_uri: record.client_uri } : {}),
    });
  }

  /**
   * The client a request names, or a reason it is unknown. Metadata documents are fetched (and cached
   * in memory); registrations are read from the store.
   */
  async find(clientId: string | undefined): Promise<ClientRecord | { unknown: string }> {
    if (!clientId) return { unknown: 'client_id is missing' };
    if (clientId.length > 2000) return { unknown: 'client_id is too long' };
    if (isMetadataDocumentId(clientId)) {
      try {
        const doc = await this.documents.fetch(clientId);
        return { ...doc, kind: 'document' };
      } catch (e) {
        if (e instanceof ClientMetadataError) return { unknown: e.message };
        if (e instanceof ClientMetadataBusyError) throw new OAuthHttpError(503, 'temporarily_unavailable', e.message, { 'Retry-After': '5' });
        throw e;
      }
    }
    const found = await this.records.read<ClientRecord>('client', clientId);
    return found?.value ?? { unknown: 'this client_id is not registered here (register it again)' };
  }

  /** Keep a registration as long as it is used. */
  async renew(client: ClientRecord): Promise<void> {
    if (client.kind === 'registered') await this.records.write('client', client.client_id, client, CLIENT_TTL_MS);
  }
}
