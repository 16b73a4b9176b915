/**
 * A DynamoDB fault injector for tests: an HTTP proxy (node:http) between the service and a DynamoDB endpoint that
 * forwards every call unchanged unless a rule says otherwise. Rules name a DynamoDB operation (the `X-Amz-Target`
 * header, e.g. `DynamoDB_20120810.TransactWriteItems`, or just `TransactWriteItems`; `*` for any) and a fault, and
 * apply to the next `times` matching calls:
 *
 *   throttle      400 ThrottlingException (nothing forwarded)
 *   provisioned   400 ProvisionedThroughputExceededException (nothing forwarded)
 *   txn-throttle  400 TransactionCanceledException, CancellationReasons [ThrottlingError, None…] (nothing forwarded)
 *   txn-in-progress  400 TransactionInProgressException: what DynamoDB answers a retried transaction (same
 *                 ClientRequestToken) while the first attempt is still being applied (nothing forwarded)
 *   internal      500 InternalServerError (nothing forwarded)
 *   reset-before  the connection is destroyed before anything is forwarded
 *   reset-after   the call is forwarded (and so applied), then the connection is destroyed: the answer is lost
 *   hang          nothing is forwarded and nothing is answered (the client gives up)
 *   hang-after    the call is forwarded (and applied), and its answer is never delivered
 *
 * `match` narrows a rule to calls whose request body contains a string (a title, a key such as `"POST#12"`), so
 * concurrent requests can get different faults. `after` delays a rule: a number lets that many matching calls
 * through first; an operation name arms the rule only once a call of that operation has been forwarded and
 * answered 200 (e.g. "reads after the transaction committed"). `outage(true)` refuses every connection (the port stops listening, open connections are dropped)
 * until `outage(false)`. Calls are counted per operation, whether faulted or forwarded.
 *
 *   const proxy = await startFaultProxy('http://127.0.0.1:8000');
 *   proxy.addRule({ target: 'GetItem', fault: 'throttle', times: 2 });
 *   ... proxy.calls('GetItem'), proxy.faults('GetItem') ...
 *   await stopFaultProxy(proxy);
 */
import { Agent, createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Fault = 'throttle' | 'provisioned' | 'txn-throttle' | 'txn-in-progress' | 'internal' | 'reset-before' | 'reset-after' | 'hang' | 'hang-after';

export interface FaultRule {
  /** DynamoDB operation: `DynamoDB_20120810.GetItem`, `GetItem`, or `*` for every operation. */
  target: string;
  fault: Fault;
  /** How many matching calls the fault applies to. */
  times: number;
  /** Only calls whose request body (DynamoDB JSON) contains this string. */
  match?: string;
  /** A number of matching calls to let through first, or an operation whose first 200 answer arms the rule. */
  after?: number | string;
}

interface ActiveRule extends Required<Pick<FaultRule, 'target' | 'fault' | 'times'>> {
  left: number;
  letThrough: number;
  armedBy: string | null;
  match: string | null;
}

const PREFIX = 'DynamoDB_20120810.';
const NAMESPACE = 'com.amazonaws.dynamodb.v20120810#';
/** `DynamoDB_20120810.GetItem` and `GetItem` both name GetItem. */
export const operationOf = (target: string): string => (target.startsWith(PREFIX) ? target.slice(PREFIX.length) : target);

export class FaultProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private readonly held = new Set<ServerResponse>();
  private readonly agent = new Agent({ keepAlive: true });
  private rules: ActiveRule[] = [];
  private readonly received = new Map<string, number>();
  private readonly injected = new Map<string, number>();
  private down = false;
  port = 0;

  constructor(readonly upstream: string) {}

  /** http://127.0.0.1:PORT — give it to the service as its DynamoDB endpoint. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(port = 0): Promise<this> {
    const server = createServer((req, res) => void this.handle(req, res));
    server.keepAliveTimeout = 30_000;
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  /** Closes the port and drops every connection, hanging calls included. */
  async stop(): Promise<void> {
    await this.close();
    this.agent.destroy();
  }

  /** Adds a rule; earlier rules win when several match a call. */
  addRule(rule: FaultRule): void {
    if (!(rule.times > 0)) throw new Error(`a fault rule needs times > 0, not ${rule.times}`);
    this.rules.push({
      target: operationOf(rule.target), fault: rule.fault, times: rule.times, left: rule.times,
      letThrough: typeof rule.after === 'number' ? rule.after : 0,
      armedBy: typeof rule.after === 'string' ? operationOf(rule.after) : null,
      match: rule.match ?? null,
    });
  }

  /** Removes every rule (hanging calls stay hung; stop() or the client ends them). */
  clearRules(): void {
    this.rules = [];
  }

  /** Matching calls some rule has yet to fault. */
  pendingFaults(): number {
    return this.rules.reduce((sum, r) => sum + r.left, 0);
  }

  /** While on, every connection is refused and open ones are dropped. */
  async outage(on: boolean): Promise<void> {
    if (on === this.down) return;
    this.down = on;
    if (on) await this.close();
    else await this.start(this.port);
  }

  /** Calls received for an operation (or all), faulted or not, since the last resetCounts(). */
  calls(target = '*'): number {
    return count(this.received, target);
  }

  /** Calls of an operation (or all) that got a fault. */
  faults(target = '*'): number {
    return count(this.injected, target);
  }

  resetCounts(): void {
    this.received.clear();
    this.injected.clear();
  }

  private async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const res of this.held) res.destroy();
    this.held.clear();
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The rule that applies to this call, counting it down; null to forward the call unchanged. */
  private take(op: string, body: string): ActiveRule | null {
    for (const rule of this.rules) {
      if (rule.left <= 0 || (rule.target !== '*' && rule.target !== op) || rule.armedBy) continue;
      if (rule.match !== null && !body.includes(rule.match)) continue;
      if (rule.letThrough > 0) {
        rule.letThrough--;
        continue;
      }
      rule.left--;
      return rule;
    }
    return null;
  }

  private committed(op: string): void {
    for (const rule of this.rules) if (rule.armedBy === op) rule.armedBy = null;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readAll(req).catch(() => null);
    if (body === null) return; // the client went away
    const op = operationOf(String(req.headers['x-amz-target'] ?? 'unknown'));
    bump(this.received, op);
    const rule = this.take(op, body.toString('utf8'));
    if (rule) bump(this.injected, op);
    switch (rule?.fault) {
      case undefined:
        return this.forward(req, res, body, op, 'answer');
      case 'throttle':
        return awsError(res, 400, 'ThrottlingException', 'Rate of requests exceeds the allowed throughput.');
      case 'provisioned':
        return awsError(res, 400, 'ProvisionedThroughputExceededException',
          'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.');
      case 'internal':
        return awsError(res, 500, 'InternalServerError', 'Internal server error');
      case 'txn-throttle': {
        const n = transactItemCount(body);
        const reasons = Array.from({ length: n }, (_, i) => (i === 0
          ? { Code: 'ThrottlingError', Message: 'Throughput exceeds the current capacity for one or more global secondary indexes. DynamoDB is automatically scaling your index so please try again shortly.' }
          : { Code: 'None' }));
        return awsError(res, 400, 'TransactionCanceledException',
          `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
          { CancellationReasons: reasons });
      }
      case 'txn-in-progress':
        return awsError(res, 400, 'TransactionInProgressException', 'Transaction is ongoing for the idempotency token');
      case 'reset-before':
        req.socket.destroy();
        return;
      case 'reset-after':
        return this.forward(req, res, body, op, 'reset');
      case 'hang':
        this.hold(res);
        return;
      case 'hang-after':
        return this.forward(req, res, body, op, 'hang');
    }
  }

  private hold(res: ServerResponse): void {
    this.held.add(res);
    res.on('close', () => this.held.delete(res));
  }

  private async forward(req: IncomingMessage, res: ServerResponse, body: Buffer, op: string, then: 'answer' | 'reset' | 'hang'): Promise<void> {
    const target = new URL(req.url ?? '/', this.upstream);
    const headers = { ...req.headers, host: target.host, 'content-length': String(body.byteLength) };
    delete headers.connection;
    let answer: { status: number; headers: IncomingMessage['headers']; body: Buffer };
    try {
      answer = await new Promise((resolve, reject) => {
        const out = httpRequest(target, { method: req.method, headers, agent: this.agent }, (up) => {
          readAll(up).then((b) => resolve({ status: up.statusCode ?? 502, headers: up.headers, body: b }), reject);
        });
        out.on('error', reject);
        out.end(body);
      });
    } catch {
      req.socket.destroy(); // the upstream failed: the client sees a dropped connection
      return;
    }
    if (answer.status === 200) this.committed(op);
    if (then === 'reset') {
      req.socket.destroy();
      return;
    }
    if (then === 'hang') {
      this.hold(res);
      return;
    }
    if (res.destroyed) return;
    const out = { ...answer.headers };
    delete out.connection;
    delete out['keep-alive'];
    delete out['transfer-encoding'];
    out['content-length'] = String(answer.body.byteLength);
    res.writeHead(answer.status, out);
    res.end(answer.body);
  }
}

/** Starts a proxy in front of `upstream` (e.g. http://127.0.0.1:8000) on a free port of 127.0.0.1. */
export const startFaultProxy = (upstream: string): Promise<FaultProxy> => new FaultProxy(upstream).start();

export const stopFaultProxy = (proxy: FaultProxy): Promise<void> => proxy.stop();

function awsError(res: ServerResponse, status: number, type: string, message: string, extra: Record<string, unknown> = {}): void {
  if (res.destroyed) return;
  const text = JSON.stringify({ __type: `${NAMESPACE}${type}`, message, ...extra });
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.0',
    'content-length': String(Buffer.byteLength(text)),
    'x-amzn-requestid': `fault-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`,
  });
  res.end(text);
}

function transactItemCount(body: Buffer): number {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { TransactItems?: unknown[] };
    return Math.max(1, parsed.TransactItems?.length ?? 1);
  } catch {
    return 1;
  }
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
    stream.on('aborted', () => reject(new Error('aborted')));
  });
}

const bump = (map: Map<string, number>, op: string): void => {
  map.set(op, (map.get(op) ?? 0) + 1);
};

function count(map: Map<string, number>, target: string): number {
  if (target === '*') return [...map.values()].reduce((a, b) => a + b, 0);
  return map.get(operationOf(target)) ?? 0;
}
