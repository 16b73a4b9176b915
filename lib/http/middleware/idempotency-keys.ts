/**
 * What holds, stores and replays an Idempotency-Key (./idempotency.ts decides whether a request takes one): loaded only
 * by the requests that send one, so a read's cold start carries none of it.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  IdempotencyItemAlreadyExistsError, IdempotencyRecordStatus, IdempotencyValidationError,
} from '@aws-lambda-powertools/idempotency';
import type { IdempotencyRecord } from '@aws-lambda-powertools/idempotency/persistence';
import { idempotencyStore, idempotentRequest, type IdempotentRequest } from '../../store/idempotency.js';
import { ApiError } from '../errors.js';
import type { HttpResult } from '../response.js';
import type { PipelineRequest } from './state.js';
import { logger } from '../../observability/logger.js';

/** The key a request holds while it runs (set in `before`, settled in `after` or `onError`), and its answer's sealing key. */
const held = new WeakMap<object, { data: IdempotentRequest; seal: Buffer }>();

/**
 * A first answer as stored: its body compressed, so that a large record's answer fits in one item, and sealed
 * (AES-256-GCM, `iv` and `tag`) with a key derived from the Idempotency-Key itself and the request's hash: the table
 * holds only a hash of the key, so the stored answer (a reservation's secret token among them, contract §19) opens only
 * for a repeat of the identical request with the same key, never for whoever reads the table.
 */
type StoredAnswer = {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  iv?: string;
  tag?: string;
};

const sealKey = (key: string, hash: string): Buffer => Buffer.from(hkdfSync('sha256', key, hash, 'calendar idempotent answer', 32));

function seal(body: Buffer, secret: Buffer): Pick<StoredAnswer, 'body' | 'iv' | 'tag'> {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', secret, iv);
  const sealed = Buffer.concat([cipher.update(body), cipher.final()]);
  return { body: sealed.toString('base64'), iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64') };
}

/** The stored body, compressed; an answer stored before answers were sealed has no `iv`. */
function opened(stored: StoredAnswer, secret: Buffer): Buffer {
  const raw = Buffer.from(stored.body, 'base64');
  if (!stored.iv || !stored.tag) return raw;
  const decipher = createDecipheriv('aes-256-gcm', secret, Buffer.from(stored.iv, 'base64'));
  decipher.setAuthTag(Buffer.from(stored.tag, 'base64'));
  return Buffer.concat([decipher.update(raw), decipher.final()]);
}

const keyReused = (): ApiError => new ApiError(422, 'rest_idempotency_key_reused',
  'This Idempotency-Key was used for a different request; send a new key for a new request.');

const inProgress = (): ApiError => new ApiError(409, 'rest_idempotency_in_progress',
  'A request with this Idempotency-Key is still running; retry after a moment to get its answer.', {}, { 'Retry-After': '1' });

/** What a repeat must equal: method, path with query, Content-Type and the body's bytes. */
function requestHash(request: PipelineRequest): string {
  const event = request.event;
  const body = event.body === undefined || event.body === null ? ''
    : event.isBase64Encoded ? event.body : Buffer.from(event.body, 'utf8').toString('base64');
  return createHash('sha256').update(JSON.stringify([event.requestContext.http.method, event.rawPath, event.rawQueryString ?? '',
    event.headers?.['content-type'] ?? '', body])).digest('base64url');
}

function replay(stored: StoredAnswer, secret: Buffer): HttpResult {
  return {
    statusCode: stored.statusCode,
    headers: { ...stored.headers, 'Idempotent-Replayed': 'true' },
    body: gunzipSync(opened(stored, secret)).toString('utf8'),
  };
}

/** Takes `key` for `owner` (a caller's sub, or an anonymous reservation's scope): undefined when taken, else the answer. */
export async function take(request: PipelineRequest, owner: string, key: string): Promise<HttpResult | undefined> {
  const hash = requestHash(request);
  const data = idempotentRequest(owner, key, hash);
  const secret = sealKey(key, hash);
  const store = idempotencyStore();
  const remaining = typeof request.context?.getRemainingTimeInMillis === 'function' ? request.context.getRemainingTimeInMillis() : 30_000;
  try {
    await store.saveInProgress(data, remaining);
    held.set(request.event, { data, seal: secret });
    return undefined;
  } catch (error) {
    if (!(error instanceof IdempotencyItemAlreadyExistsError)) throw error;
    return answerOf(error.existingRecord ?? await readRecord(data), data, secret);
  }
}

/** The record a key is held by, also when it was taken by another request (a payload check failure carries it). */
async function readRecord(data: IdempotentRequest): Promise<IdempotencyRecord> {
  try {
    return await idempotencyStore().getRecord(data);
  } catch (e) {
    if (e instanceof IdempotencyValidationError && e.existingRecord) return e.existingRecord;
    throw e;
  }
}

/** A held key: 409 while its first request runs, else its answer (if the request matches) or 422. */
function answerOf(record: IdempotencyRecord, data: IdempotentRequest, secret: Buffer): HttpResult {
  // Expired between the put and the read: the key is as good as running again; the retry takes it.
  if (record.getStatus() !== IdempotencyRecordStatus.COMPLETED) throw inProgress();
  try {
    idempotencyStore().processExistingRecord(record, data);
  } catch (e) {
    if (e instanceof IdempotencyValidationError) throw keyReused();
    throw e;
  }
  return replay(record.getResponse() as StoredAnswer, secret);
}

/** Stores the answer of the request's held key. */
export async function store(request: PipelineRequest): Promise<void> {
  const holding = held.get(request.event);
  const response = request.response;
  if (!holding || !response) return;
  held.delete(request.event);
  const { data } = holding;
  const stored: StoredAnswer = {
    statusCode: response.statusCode,
    headers: response.headers,
    ...seal(gzipSync(response.body ?? ''), holding.seal),
  };
  try {
    await idempotencyStore().saveSuccess(data, stored);
  } catch (error) {
    // The create has been made; it is answered. Without its stored answer, the key is given up rather than left held.
    logger.error('could not store the answer of an idempotent create', { error: error as Error });
    await release(data);
  }
}

async function release(data: IdempotentRequest): Promise<void> {
  try {
    await idempotencyStore().deleteRecord(data);
  } catch (error) {
    // The in-progress mark lapses at the function's time limit anyway.
    logger.error('could not free an idempotency key', { error: error as Error });
  }
}

/** Frees the request's held key: it failed. */
export async function free(request: PipelineRequest): Promise<void> {
  const holding = held.get(request.event);
  if (!holding) return;
  held.delete(request.event);
  await release(holding.data);
}
