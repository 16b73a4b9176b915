/**
 * The local stand-in for API Gateway (HTTP API, payload format 2.0) + Lambda: every request becomes the exact event
 * API Gateway would send, goes to the Lambda handler of its route group (functions/<group>.ts), and the handler's
 * result is written back as API Gateway would.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { MAX_BODY_BYTES } from '../http/request.js';
import { splitApiPath } from '../http/paths.js';
import { splitPagePath } from '../pages/paths.js';
import { routeForPath } from '../routes/match.js';
import type { FunctionGroup } from '../routes/types.js';

export type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2 | string | undefined>;

export interface LocalServerOptions {
  /** Loads the handler of a route group; default: `import('../../functions/<group>.js')`. Tests inject stubs. */
  loadHandler?: (group: FunctionGroup) => Promise<LambdaHandler>;
  /** Receives one line per answered request, e.g. "GET /calendar/events/v1/events?per_page=5 200 14 ms"; default: stdout. */
  requestLog?: (line: string) => void;
}

/** Bodies up to this size reach the handler in full; a larger one is passed as its first MAX_BODY_BYTES + 1 bytes. */
const PASS_BYTES = MAX_BODY_BYTES + 1;
/** Beyond this the server answers 413 itself (after reading and discarding the rest of the body). */
export const READ_CAP_BYTES = 2 * 1024 * 1024;
/** Beyond this (API Gateway's own payload limit is 10 MB) the server answers 413 at once and closes the connection. */
const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;
/** API Gateway's integration timeout, reported by getRemainingTimeInMillis. */
const TIMEOUT_MS = 30_000;

/** The simulated function time limit: CALENDAR_FUNCTION_TIMEOUT_MS (tests shorten it), else TIMEOUT_MS. */
export function functionTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.CALENDAR_FUNCTION_TIMEOUT_MS;
  if (raw === undefined || raw.trim() === '') return TIMEOUT_MS;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 1000 || ms > 900_000) {
    throw new Error(`CALENDAR_FUNCTION_TIMEOUT_MS must be a whole number of milliseconds from 1000 to 900000, not "${raw}".`);
  }
  return ms;
}

/** What the event builder needs from a request; `IncomingMessage` provides all of it. */
export interface LocalRequest {
  method: string;
  /** The request target as sent: "/path?query". */
  url: string;
  /** Header names and values as received, alternating (IncomingMessage.rawHeaders). */
  rawHeaders: string[];
  body: Buffer;
  remoteAddress?: string;
  httpVersion?: string;
  /** Fixed values for tests; random / now by default. */
  requestId?: string;
  now?: Date;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number) => String(n).padStart(2, '0');
/** API Gateway's requestContext.time: "12/Mar/2020:19:03:58 +0000". */
const clfTime = (d: Date) =>
  `${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;

/** Content types API Gateway passes as text; every other body is base64-encoded. */
export function isTextContentType(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (!type) return false;
  return (
    type.startsWith('text/') ||
    /^application\/(?:json|xml|javascript|ecmascript|x-www-form-urlencoded|graphql|x-ndjson)$/.test(type) ||
    /\+(?:json|xml)$/.test(type)
  );
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const decodeUtf8 = (b: Buffer): string | null => {
  try {
    return utf8.decode(b);
  } catch {
    return null;
  }
};

const safeDecode = (s: string): string => {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
};

/** Builds the API Gateway HTTP API payload format 2.0 event for one request ($default stage and route). */
export function toHttpApiEvent(req: LocalRequest): APIGatewayProxyEventV2 {
  const now = req.now ?? new Date();
  const q = req.url.indexOf('?');
  let rawPath = q === -1 ? req.url : req.url.slice(0, q);
  const rawQueryString = q === -1 ? '' : req.url.slice(q + 1);
  if (/^https?:\/\//i.test(rawPath)) rawPath = rawPath.replace(/^https?:\/\/[^/]*/i, '') || '/'; // absolute-form target
  if (!rawPath.startsWith('/')) rawPath = `/${rawPath}`;

  // Maps, so that names such as "__proto__" become ordinary keys (as in the JSON event Lambda receives).
  const headerMap = new Map<string, string>();
  const cookies: string[] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!.toLowerCase();
    const value = req.rawHeaders[i + 1]!;
    if (name === 'cookie') {
      // API Gateway moves cookies out of the headers into `cookies`.
      cookies.push(...value.split(';').map((c) => c.trim()).filter(Boolean));
      continue;
    }
    const seen = headerMap.get(name);
    headerMap.set(name, seen === undefined ? value : `${seen},${value}`);
  }
  if (!headerMap.has('x-forwarded-proto')) headerMap.set('x-forwarded-proto', 'http');
  const headers: Record<string, string> = Object.fromEntries(headerMap);

  let queryStringParameters: Record<string, string> | undefined;
  if (rawQueryString) {
    const params = new Map<string, string>();
    for (const pair of rawQueryString.split('&')) {
      if (!pair) continue;
      const eq = pair.indexOf('=');
      const key = safeDecode(eq === -1 ? pair : pair.slice(0, eq));
      const value = eq === -1 ? '' : safeDecode(pair.slice(eq + 1));
      const seen = params.get(key);
      params.set(key, seen === undefined ? value : `${seen},${value}`);
    }
    queryStringParameters = Object.fromEntries(params);
  }

  const host = headers.host ?? 'localhost';
  const domainName = host;
  const method = req.method.toUpperCase();
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString,
    ...(cookies.length ? { cookies } : {}),
    headers,
    ...(queryStringParameters ? { queryStringParameters } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId: 'local',
      domainName,
      domainPrefix: domainName.split('.')[0]!.split(':')[0]!,
      http: {
        method,
        path: rawPath,
        protocol: `HTTP/${req.httpVersion ?? '1.1'}`,
        sourceIp: (req.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, ''),
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: req.requestId ?? randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: clfTime(now),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: false,
  };
  if (req.body.byteLength > 0) {
    const text = isTextContentType(headers['content-type']) ? decodeUtf8(req.body) : null;
    event.body = text ?? req.body.toString('base64');
    event.isBase64Encoded = text === null;
  }
  return event;
}

/** A Lambda context for one invocation of the group's function. */
export function lambdaContext(group: FunctionGroup, awsRequestId = randomUUID()): Context {
  const functionName = `calendar-${group}`;
  const region = process.env.AWS_REGION || 'local';
  const deadline = Date.now() + functionTimeoutMs();
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:123456789012:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/[$LATEST]${awsRequestId.replace(/-/g, '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

/** The route group whose function serves a path: the pages' paths go to the pages (contract §21); 'root' answers every other path outside the API (404). */
export function groupForPath(pathname: string): FunctionGroup {
  const s = splitApiPath(pathname);
  if (!s && splitPagePath(pathname)) return 'pages';
  return s ? (routeForPath(s.rel)?.group ?? 'root') : 'root';
}

const defaultLoad = async (group: FunctionGroup): Promise<LambdaHandler> => {
  const mod = (await import(`../../functions/${group}.js`)) as { handler?: LambdaHandler };
  if (typeof mod.handler !== 'function') throw new Error(`functions/${group} does not export a handler function`);
  return mod.handler;
};

function sendJson(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'access-control-allow-origin': '*',
    ...extra,
  });
  res.end(text);
}

/** Writes a Lambda result back the way API Gateway does (a bare string/object result is a 200 JSON body). */
function writeResult(res: ServerResponse, result: APIGatewayProxyStructuredResultV2 | string | undefined): void {
  if (result === undefined || result === null || typeof result !== 'object' || typeof result.statusCode !== 'number') {
    const text = typeof result === 'string' ? result : JSON.stringify(result ?? null);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
    return;
  }
  const body =
    result.body === undefined || result.body === null
      ? Buffer.alloc(0)
      : result.isBase64Encoded
        ? Buffer.from(result.body, 'base64')
        : Buffer.from(String(result.body), 'utf8');
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(result.headers ?? {})) if (v !== undefined) headers[k.toLowerCase()] = String(v);
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  delete headers['content-length'];
  delete headers['transfer-encoding'];
  if (!('content-type' in headers) && body.byteLength) headers['content-type'] = 'application/json';
  if (result.statusCode >= 200 && result.statusCode !== 204 && result.statusCode !== 304) headers['content-length'] = String(body.byteLength);
  res.writeHead(result.statusCode, headers);
  res.end(body);
}

/**
 * Reads the body, keeping at most PASS_BYTES of it. Past READ_CAP_BYTES nothing reaches a handler: the rest is read
 * and discarded, then the server answers 413 itself (resolves null). A client that keeps sending past DRAIN_LIMIT
 * gets its 413 at once and the connection is closed.
 */
function readBody(req: IncomingMessage, res: ServerResponse): Promise<Buffer | null> {
  const tooLarge = (close: boolean) => {
    sendJson(
      res,
      413,
      { code: 'rest_payload_too_large', message: 'The request body is larger than 1 MiB; send less data.', data: { status: 413 } },
      close ? { connection: 'close' } : {},
    );
    if (close) res.once('finish', () => req.socket.destroy());
  };
  if (Number(req.headers['content-length'] ?? 0) > DRAIN_LIMIT_BYTES) {
    tooLarge(true);
    return Promise.resolve(null);
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let seen = 0;
    const onData = (chunk: Buffer) => {
      seen += chunk.byteLength;
      if (seen > DRAIN_LIMIT_BYTES) {
        req.off('data', onData).off('end', onEnd);
        tooLarge(true);
        resolve(null);
      } else if (kept < PASS_BYTES) {
        const part = chunk.subarray(0, PASS_BYTES - kept);
        chunks.push(part);
        kept += part.byteLength;
      }
    };
    const onEnd = () => {
      if (seen > READ_CAP_BYTES) {
        tooLarge(false);
        resolve(null);
      } else resolve(Buffer.concat(chunks, kept));
    };
    // A client that goes away mid-body gets no answer.
    const onAbort = () => resolve(null);
    req.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', () => req.complete || onAbort());
  });
}

const toStdout = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

export function createLocalServer(options: LocalServerOptions = {}): Server {
  const load = options.loadHandler ?? defaultLoad;
  const requestLog = options.requestLog ?? toStdout;
  const handlers = new Map<FunctionGroup, Promise<LambdaHandler>>();
  const handlerFor = (group: FunctionGroup): Promise<LambdaHandler> => {
    let p = handlers.get(group);
    if (!p) {
      p = load(group);
      handlers.set(group, p);
      p.catch(() => handlers.delete(group)); // retry the import on the next request
    }
    return p;
  };

  return createServer(async (req, res) => {
    const requestId = randomUUID();
    const t0 = performance.now();
    // Written once the whole answer has been handed to the connection; a client that went away gets no line.
    // A reservation's token is a secret (contract §19): the log shows that one was sent, never its value.
    res.once('finish', () => requestLog(`${req.method} ${(req.url ?? '').replace(/([?&]token=)[^&]*/gi, '$1[redacted]')} ${res.statusCode} ${Math.round(performance.now() - t0)} ms`));
    try {
      const body = await readBody(req, res);
      if (body === null) return;
      const event = toHttpApiEvent({
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        rawHeaders: req.rawHeaders,
        body,
        remoteAddress: req.socket.remoteAddress,
        httpVersion: req.httpVersion,
        requestId,
      });
      const group = groupForPath(event.rawPath);
      const handler = await handlerFor(group);
      const result = await handler(event, lambdaContext(group));
      writeResult(res, result);
    } catch (e) {
      console.error(`[local] ${req.method} ${req.url} failed (request ${requestId}):`, e);
      if (res.headersSent) {
        res.destroy();
        return;
      }
      sendJson(res, 500, {
        code: 'rest_internal_error',
        message: 'An unexpected error occurred; retry later or report the request id.',
        data: { status: 500, request_id: requestId },
      });
    }
  });
}
