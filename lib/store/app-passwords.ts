/**
 * Application passwords (contract §12; lib/store/README.md "Application passwords"): one item per password under
 * its username, so listing a user's passwords and checking a Basic credential are one Query each; failed Basic
 * attempts counted per username and per client address in per-minute items that expire by TTL.
 */
import { createHash } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, table } from './client.js';
import type { Item } from './records.js';

export interface AppPasswordItem {
  uuid: string;
  /** The client's own UUID if it sent one, else "". */
  appId: string;
  name: string;
  /** UTC 'YYYY-MM-DD HH:MM:SS'. */
  created: string;
  /** Creation instant in milliseconds (orders passwords made within one second). */
  createdMs: number;
  lastUsed: string | null;
  /** Slow salted hash (lib/auth/app-passwords.ts). */
  hash: string;
  username: string;
  /** The subject and role of the token the password was made with: Basic authenticates as that user and role. */
  sub: string;
  role: string;
}

/** Usernames can be longer than a key may be: long ones are keyed by their SHA-256. */
const userPart = (username: string): string =>
  Buffer.byteLength(username) <= 512 ? username : `#${createHash('sha256').update(username).digest('hex')}`;

export const appPasswordPartition = (username: string): string => `APPPW#${userPart(username)}`;
const key = (username: string, uuid: string) => ({ PK: appPasswordPartition(username), SK: uuid });

const fromItem = (item: Item): AppPasswordItem => ({
  uuid: item.SK as string, appId: (item.appId as string) ?? '', name: item.name as string, created: item.created as string,
  createdMs: Number(item.createdMs ?? 0),
  lastUsed: (item.lastUsed as string | undefined) ?? null, hash: item.hash as string, username: item.username as string,
  sub: item.sub as string, role: item.role as string,
});

/** Every password of a username (at most 50: the create refuses more). */
export async function appPasswordsOf(username: string, consistent = false): Promise<AppPasswordItem[]> {
  const out = await db().send(new QueryCommand({
    TableName: table(),
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': appPasswordPartition(username) },
    ConsistentRead: consistent,
  }));
  return (out.Items ?? []).map(fromItem);
}

/**
 * A conditional write whose condition failed on an SDK retry: an earlier attempt of the same call may have been
 * applied and its answer lost (a dropped connection, a timeout), and the retry then meets that attempt's own result.
 */
const failedOnRetry = (e: unknown): boolean => (e as Error)?.name === 'ConditionalCheckFailedException'
  && ((e as { $metadata?: { attempts?: number } }).$metadata?.attempts ?? 1) > 1;

export async function putAppPassword(p: AppPasswordItem): Promise<void> {
  try {
    await db().send(new PutCommand({
      TableName: table(),
      Item: { ...key(p.username, p.uuid), appId: p.appId, name: p.name, created: p.created, createdMs: p.createdMs, hash: p.hash,
        username: p.username, sub: p.sub, role: p.role },
      ConditionExpression: 'attribute_not_exists(PK)',
    }));
  } catch (e) {
    // The uuid is new, so only this call's own earlier attempt can have stored it: the password is saved.
    if (failedOnRetry(e)) return;
    throw e;
  }
}

export async function getAppPassword(username: string, uuid: string): Promise<AppPasswordItem | null> {
  const out = await db().send(new GetCommand({ TableName: table(), Key: key(username, uuid), ConsistentRead: true }));
  return out.Item ? fromItem(out.Item) : null;
}

/** Deletes the password; false when it was already gone. */
export async function deleteAppPassword(username: string, uuid: string): Promise<boolean> {
  try {
    await db().send(new DeleteCommand({ TableName: table(), Key: key(username, uuid), ConditionExpression: 'attribute_exists(PK)' }));
    return true;
  } catch (e) {
    // Gone on a retry: this call's earlier attempt (or a concurrent revoke) deleted it, which is what was asked.
    if (failedOnRetry(e)) return true;
    if ((e as Error).name === 'ConditionalCheckFailedException') return false;
    throw e;
  }
}

/** Records a use at `now`, unless one was recorded less than a minute before (contract §12). */
export async function touchAppPassword(username: string, uuid: string, now: string, minuteAgo: string): Promise<void> {
  try {
    await db().send(new UpdateCommand({
      TableName: table(),
      Key: key(username, uuid),
      UpdateExpression: 'SET lastUsed = :now',
      ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(lastUsed) OR lastUsed < :minuteAgo)',
      ExpressionAttributeValues: { ':now': now, ':minuteAgo': minuteAgo },
    }));
  } catch (e) {
    if ((e as Error).name !== 'ConditionalCheckFailedException') throw e;
  }
}

// ------------------------------------------------------------------------------------------------ failed attempts

const attemptKey = (what: 'user' | 'ip' | 'eventpw', value: string, minute: number) =>
  ({ PK: `FAIL#${what}#${createHash('sha256').update(value).digest('hex').slice(0, 32)}`, SK: String(minute) });

/** Failed Basic attempts in `minute` (epoch minutes) for the username and for the client address. */
export async function failedAttempts(username: string, ip: string, minute: number): Promise<{ user: number; ip: number }> {
  const [user, address] = await Promise.all([
    db().send(new GetCommand({ TableName: table(), Key: attemptKey('user', username, minute), ProjectionExpression: 'n' })),
    db().send(new GetCommand({ TableName: table(), Key: attemptKey('ip', ip, minute), ProjectionExpression: 'n' })),
  ]);
  return { user: Number(user.Item?.n ?? 0), ip: Number(address.Item?.n ?? 0) };
}

/** Counts a failed attempt; the items expire (TTL attribute `expires`) a few minutes after their minute. */
export async function countFailedAttempt(username: string, ip: string, minute: number): Promise<void> {
  const expires = (minute + 5) * 60;
  await Promise.all([attemptKey('user', username, minute), attemptKey('ip', ip, minute)].map((Key) => db().send(new UpdateCommand({
    TableName: table(),
    Key,
    UpdateExpression: 'ADD n :one SET expires = :expires',
    ExpressionAttributeValues: { ':one': 1, ':expires': expires },
  }))));
}

/**
 * Wrong passwords posted to one event's page from one address in `minute` (contract §21): the same expiring counter
 * items as failed sign-ins, keyed by the event and the address together.
 */
export async function failedEventPasswords(eventId: number, ip: string, minute: number): Promise<number> {
  const out = await db().send(new GetCommand({ TableName: table(), Key: attemptKey('eventpw', `${eventId}#${ip}`, minute), ProjectionExpression: 'n' }));
  return Number(out.Item?.n ?? 0);
}

export async function countFailedEventPassword(eventId: number, ip: string, minute: number): Promise<void> {
  await db().send(new UpdateCommand({
    TableName: table(),
    Key: attemptKey('eventpw', `${eventId}#${ip}`, minute),
    UpdateExpression: 'ADD n :one SET expires = :expires',
    ExpressionAttributeValues: { ':one': 1, ':expires': (minute + 5) * 60 },
  }));
}
