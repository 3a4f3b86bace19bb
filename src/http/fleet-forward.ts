import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors as undiciErrors, request } from 'undici';
import WebSocket from 'ws';
import {
  AppError,
  ServiceUnavailableError,
  SessionHeldElsewhereError,
  UnauthorizedError,
  toAppError,
} from '../errors.js';
import { clientGone } from '../lib/client-gone.js';
import type { Logger } from '../lib/logger.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Forwards a browser session's calls to the process holding it (null without FLEET_SECRET). */
    sessionForwarding: SessionForwarding | null;
  }
}

/** The header of a call one process of the fleet forwards to another: `t=<ms>,sig=<HMAC-SHA256 hex>`. */
export const FLEET_HEADER = 'x-pagewright-fleet';
/** How far a forwarded call's time may be from this process's clock. */
const MAX_SKEW_MS = 30_000;
/** A holder that does not take a connection this long is as good as gone. */
const CONNECT_TIMEOUT_MS = 5_000;
/** Messages a client sends while its socket is being forwarded, at most; past it the client is closed. */
const MAX_QUEUED = 256;

/** What belongs to one connection (or is ours), never passed on. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'te',
  'trailer',
  'proxy-authorization',
  'proxy-connection',
  'sec-websocket-key',
  'sec-websocket-version',
  'sec-websocket-extensions',
  'sec-websocket-protocol',
  FLEET_HEADER,
]);

/** How the API processes of a fleet reach each other (config.redis.fleet). */
export interface FleetLink {
  advertiseUrl: string;
  secret: string;
}

/** Where a call goes: the session's holder, reachable at `holderUrl`. */
interface Target {
  sessionId: string;
  holderUrl: string;
}

/** Calls another process forwarded here, signature checked: they are answered here, never forwarded again. */
const forwarded = new WeakSet<FastifyRequest>();

export function signHop(secret: string, method: string, url: string, now = Date.now()): string {
  const mac = createHmac('sha256', secret).update(`${now}\n${method}\n${url}`).digest('hex');
  return `t=${now},sig=${mac}`;
}

export function verifyHop(
  secret: string,
  value: string,
  method: string,
  url: string,
  now = Date.now(),
): boolean {
  const match = /^t=(\d{1,15}),sig=([0-9a-f]{64})$/.exec(value);
  if (!match || Math.abs(now - Number(match[1])) > MAX_SKEW_MS) return false;
  const expected = Buffer.from(signHop(secret, method, url, Number(match[1])));
  const given = Buffer.from(value);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * Checks the signature of calls forwarded by another process; a call that carries the header with a wrong one
 * (or with no FLEET_SECRET here) is refused before anything else runs.
 */
export function registerFleetHops(
  app: FastifyInstance,
  fleet: FleetLink | null,
  forwarding: SessionForwarding | null,
): void {
  app.decorate('sessionForwarding', forwarding);
  app.addHook('onRequest', async (req) => {
    const value = req.headers[FLEET_HEADER];
    if (value === undefined) return;
    if (!fleet || typeof value !== 'string' || !verifyHop(fleet.secret, value, req.method, req.url)) {
      throw new UnauthorizedError('The fleet signature of this call is not valid');
    }
    forwarded.add(req);
  });
}

function passedHeaders(req: FastifyRequest, fleet: FleetLink): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  headers[FLEET_HEADER] = signHop(fleet.secret, req.method, req.url);
  return headers;
}

/** Whether an error says the holder is not there at all (as opposed to answering slowly or with an error). */
function unreachable(err: unknown): boolean {
  const code = err instanceof Error && 'code' in err ? String(err.code) : '';
  return (
    err instanceof undiciErrors.ConnectTimeoutError ||
    ['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'ECONNRESET'].includes(code)
  );
}

/**
 * A browser session lives in the process that created it; any other API process of the fleet forwards the
 * session's calls and sockets (CDP, live view) to it, signed with FLEET_SECRET, so a caller behind a load
 * balancer never sees which process holds it. A holder that does not answer at its address is gone: its
 * session is ended (`lost`) and the caller told so (410).
 */
export class SessionForwarding {
  constructor(
    private readonly fleet: FleetLink | null,
    private readonly lost: (sessionId: string, holderUrl: string, why: string) => Promise<AppError>,
    private readonly log: Logger,
  ) {}

  /** Where the call that failed with `err` should go instead, or null when it is answered here. */
  target(req: FastifyRequest, err: unknown): Target | null {
    if (!(err instanceof SessionHeldElsewhereError) || !this.fleet || forwarded.has(req)) return null;
    if (!err.sessionId || !err.holderUrl || err.holderUrl === this.fleet.advertiseUrl) return null;
    return { sessionId: err.sessionId, holderUrl: err.holderUrl };
  }

  /** Sends the call to the holder and its answer back; an error to answer instead when it cannot. */
  async http(req: FastifyRequest, reply: FastifyReply, target: Target): Promise<AppError | null> {
    const fleet = this.fleet!;
    const body =
      req.body === undefined || req.body === null
        ? undefined
        : typeof req.body === 'string' || Buffer.isBuffer(req.body)
          ? req.body
          : JSON.stringify(req.body);
    try {
      const answer = await request(`${target.holderUrl}${req.url}`, {
        method: req.method as 'GET',
        headers: passedHeaders(req, fleet),
        body,
        signal: clientGone(reply.raw),
        // A command runs as long as its own timeout says; the caller leaving ends the wait.
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      void reply.code(answer.statusCode);
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name)) void reply.header(name, value);
      }
      await reply.send(answer.body);
      return null;
    } catch (err) {
      return this.failed(err, target);
    }
  }

  /**
   * Joins the client's socket to the same socket at the holder: messages both ways as they are (text or
   * binary), closes both ways with their code. `early` holds what the client sent before this was decided.
   */
  socket(client: WebSocket, req: FastifyRequest, target: Target, early: QueuedMessage[]): void {
    const fleet = this.fleet!;
    const protocols = String(req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean);
    const upstream = new WebSocket(`${target.holderUrl.replace(/^http/, 'ws')}${req.url}`, protocols, {
      headers: passedHeaders(req, fleet),
      handshakeTimeout: CONNECT_TIMEOUT_MS,
      perMessageDeflate: false,
    });
    const queued = [...early];
    const send = (data: WebSocket.RawData, isBinary: boolean): void => {
      if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary: isBinary });
      else if (queued.length < MAX_QUEUED) queued.push({ data, isBinary });
      else client.close(1013, 'too many messages before the session answered');
    };
    client.on('message', send);
    upstream.on('open', () => {
      for (const m of queued.splice(0)) upstream.send(m.data, { binary: m.isBinary });
    });
    upstream.on('message', (data, isBinary) => {
      if (client.readyState === WebSocket.OPEN) client.send(data, { binary: isBinary });
    });
    upstream.on('close', (code, reason) => closeWith(client, code, reason.toString()));
    client.on('close', () => upstream.close());
    upstream.on('unexpected-response', (_request, response) => {
      const status = response.statusCode ?? 502;
      response.resume();
      closeWith(client, 4000 + (status % 1000), `the session's process answered ${status}`);
      upstream.terminate();
    });
    upstream.on('error', (err) => {
      void this.failed(err, target).then((e) => closeWith(client, 4000 + (e.status % 1000), e.message));
    });
  }

  private async failed(err: unknown, target: Target): Promise<AppError> {
    if (unreachable(err) || (err instanceof Error && /handshake has timed out/.test(err.message))) {
      const why = `its process at ${target.holderUrl} no longer answers`;
      return this.lost(target.sessionId, target.holderUrl, why);
    }
    this.log.warn({ err, session: target.sessionId }, 'forwarding to the session holder failed');
    return err instanceof AppError
      ? err
      : new ServiceUnavailableError(`The process holding browser session ${target.sessionId} did not answer`);
  }
}

export interface QueuedMessage {
  data: WebSocket.RawData;
  isBinary: boolean;
}

/** Holds what a client sends until its socket is handled (forwarded or joined here); then replays it. */
export function holdMessages(client: WebSocket): { release(): QueuedMessage[]; replay(): void } {
  const held: QueuedMessage[] = [];
  const hold = (data: WebSocket.RawData, isBinary: boolean): void => {
    if (held.length < MAX_QUEUED) held.push({ data, isBinary });
  };
  client.on('message', hold);
  const release = (): QueuedMessage[] => {
    client.off('message', hold);
    return held.splice(0);
  };
  return {
    release,
    replay: () => {
      for (const m of release()) client.emit('message', m.data, m.isBinary);
    },
  };
}

function closeWith(socket: WebSocket, code: number, reason: string): void {
  // Codes a peer may send (1000, 3000–4999); the others say what happened but cannot be sent on.
  const sendable = code === 1000 || (code >= 3000 && code <= 4999);
  socket.close(sendable ? code : 1011, Buffer.from(reason).subarray(0, 120).toString());
}

/**
 * A session socket's failure: forwarded to the holder when another process holds the session, else the socket
 * is closed with 4000 + the error's status (4404, 4410…) and its message.
 */
export function forwardOrClose(
  server: Pick<FastifyInstance, 'sessionForwarding'>,
  socket: WebSocket,
  req: FastifyRequest,
  err: unknown,
  held: { release(): QueuedMessage[] },
): void {
  const e = toAppError(err);
  const forwarding = server.sessionForwarding;
  const target = forwarding?.target(req, e);
  if (forwarding && target) return forwarding.socket(socket, req, target, held.release());
  held.release();
  socket.close(4000 + (e.status % 1000), e.message.slice(0, 120));
}
