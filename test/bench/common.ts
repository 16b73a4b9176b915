/**
 * Small shared pieces of the benchmark (test/bench/README.md): a seeded PRNG and samplers, percentiles, the
 * X-Calendar-Meter header, a keep-alive HTTP client, a bounded measuring loop and a promise pool.
 * Nothing here imports product code.
 */
import { Agent, request as httpRequest } from 'node:http';

// ------------------------------------------------------------------------------------------------ randomness

/** A deterministic PRNG (mulberry32) with the samplers the seeder needs. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  /** Integer in [min, max]. */
  range(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)]!;
  }
  /** A key of `weights` drawn with probability proportional to its weight. */
  weighted<K extends string | number>(weights: readonly (readonly [K, number])[]): K {
    const total = weights.reduce((s, [, w]) => s + w, 0);
    let r = this.next() * total;
    for (const [k, w] of weights) {
      r -= w;
      if (r < 0) return k;
    }
    return weights[weights.length - 1]![0];
  }
}

/** Zipf over ranks 0..n-1 (rank 0 the most frequent): P(k) ∝ 1 / (k + 1)^s. */
export class Zipf {
  readonly cdf: Float64Array;
  constructor(readonly n: number, readonly s: number) {
    this.cdf = new Float64Array(n);
    let sum = 0;
    for (let k = 0; k < n; k++) this.cdf[k] = sum += 1 / (k + 1) ** s;
    for (let k = 0; k < n; k++) this.cdf[k]! /= sum;
  }
  /** Probability of rank k. */
  p(k: number): number {
    return this.cdf[k]! - (k ? this.cdf[k - 1]! : 0);
  }
  sample(rng: Rng): number {
    const r = rng.next();
    let lo = 0;
    let hi = this.n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cdf[mid]! > r) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
  /** `count` distinct ranks (count is capped at n). */
  distinct(rng: Rng, count: number): number[] {
    const out = new Set<number>();
    const want = Math.min(count, this.n);
    for (let guard = 0; out.size < want && guard < want * 50; guard++) out.add(this.sample(rng));
    for (let k = 0; out.size < want; k++) out.add(k);
    return [...out];
  }
}

// ------------------------------------------------------------------------------------------------ statistics

/**
 * The p-th percentile (0..100) by linear interpolation between closest ranks (the "R-7" / Excel PERCENTILE.INC
 * definition): p50 of [1, 2, 3, 4] is 2.5, p99 of 100 values lies between the 99th and 100th smallest.
 * NaN for no values.
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  if (p < 0 || p > 100) throw new RangeError(`percentile ${p} is outside 0..100`);
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
}

export const median = (values: readonly number[]): number => percentile(values, 50);

export const round = (x: number, digits = 2): number => (Number.isFinite(x) ? Number(x.toFixed(digits)) : x);

// ------------------------------------------------------------------------------------------------ the meter

/** One API call's DynamoDB cost, from `X-Calendar-Meter: requests=N; rcu=X; wcu=Y; items=Z` (CALENDAR_METER=1). */
export interface MeterReading {
  requests: number;
  rcu: number;
  wcu: number;
  /** Items DynamoDB read (Query ScannedCount, Get/BatchGet items). */
  items: number;
}

/** Parses the meter header; null when it is absent. Unknown keys are ignored, missing ones are 0. */
export function parseMeter(header: string | null | undefined): MeterReading | null {
  if (!header) return null;
  const out: MeterReading = { requests: 0, rcu: 0, wcu: 0, items: 0 };
  for (const part of header.split(';')) {
    const [k, v] = part.split('=').map((s) => s.trim());
    if (!k || v === undefined) continue;
    const n = Number(v);
    if (!Number.isFinite(n)) continue;
    if (k === 'requests') out.requests = n;
    else if (k === 'rcu') out.rcu = n;
    else if (k === 'wcu') out.wcu = n;
    else if (k === 'items') out.items = n;
  }
  return out;
}

// ------------------------------------------------------------------------------------------------ HTTP

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Request sent to last byte of the body received, in milliseconds. */
  ms: number;
}

/** A keep-alive HTTP/1.1 client (one socket reused for sequential calls). */
export class KeepAliveClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 16 });
  constructor(private readonly origin: string) {}

  request(method: string, path: string, options: { headers?: Record<string, string>; body?: unknown; timeoutMs?: number } = {}): Promise<HttpAnswer> {
    const url = new URL(path, this.origin);
    const body = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
    const headers: Record<string, string> = { ...options.headers };
    if (body) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(body.byteLength);
    }
    return new Promise((resolve, reject) => {
      const t0 = performance.now();
      const req = httpRequest(url, { method, headers, agent: this.agent, timeout: options.timeoutMs ?? 16 * 60_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - t0 }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

export const headerValue = (a: HttpAnswer, name: string): string | undefined => {
  const v = a.headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(', ') : v;
};

// ------------------------------------------------------------------------------------------------ loops

export interface LoopBounds {
  /** Stop after this many samples… */
  maxCount: number;
  /** …or once this much time has passed (checked between samples)… */
  maxMs: number;
  /** …but take at least this many. */
  minCount: number;
}

/** Runs `fn` sequentially within the bounds; returns what each run returned. */
export async function boundedLoop<T>(bounds: LoopBounds, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  const t0 = performance.now();
  for (let i = 0; i < bounds.maxCount; i++) {
    if (i >= bounds.minCount && performance.now() - t0 >= bounds.maxMs) break;
    out.push(await fn(i));
  }
  return out;
}

/** Maps `items` through `fn` with at most `concurrency` calls in flight; results keep the input order. */
export async function pool<T, R>(items: readonly T[], concurrency: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= items.length) return;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return out;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
