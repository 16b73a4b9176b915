/**
 * Fetching an import source (lib/imports/fetch.ts, lib/imports/addresses.ts; contract §20 "Fetching").
 *
 * Every socket this file opens goes to loopback: a guard around net.Socket#connect lets through 127.0.0.0/8 only,
 * records each address a socket was pointed at, and stands 127.0.0.1 in for PUBLIC, a public address, so that the
 * rules for public hosts can be exercised against loopback servers. Anything else is destroyed before it connects.
 * Refused addresses are reached through an injected resolver or literal URLs, and each refusal also checks that no
 * lookup or socket happened and that the servers saw nothing.
 */
import { once } from 'node:events';
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import net, { isIP, type LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { loadConfig, resetConfig } from '../../lib/config.js';
import { addressAllowed, privateAddress } from '../../lib/imports/addresses.js';
import {
  type FetchOptions,
  FetchError,
  fetchSource,
  MAX_BYTES,
  MAX_REDIRECTS,
  sameOrigin,
  sourceUrlProblem,
  TIMEOUT_MS,
} from '../../lib/imports/fetch.js';

/** A public address (APNIC's 1.0.0.0/8) that the guard maps to 127.0.0.1: never connected to. */
const PUBLIC = '1.2.3.4';

// ---- the network guard ----------------------------------------------------------------------------------------

/** Every address a socket was given, in order (PUBLIC as such, before the guard maps it). */
const connected: string[] = [];
const realConnect = net.Socket.prototype.connect;

/** Where the guard lets a socket go instead of `address`, or null: nowhere. */
const guardedTarget = (address: string): string | null =>
  address === PUBLIC ? '127.0.0.1' : isIP(address) === 4 && address.startsWith('127.') ? address : null;

function guardedLookup(lookup: LookupFunction): LookupFunction {
  return (hostname, options, callback) =>
    lookup(hostname, options, (err, address, family) => {
      if (err) return callback(err, address, family);
      const list = typeof address === 'string' ? [{ address, family: family ?? 4 }] : address;
      const refused = list.find((a) => !guardedTarget(a.address));
      if (refused) return callback(new Error(`test guard: no connection to ${refused.address}`), '');
      connected.push(...list.map((a) => a.address));
      const mapped = list.map((a) => ({ address: guardedTarget(a.address)!, family: 4 }));
      return typeof address === 'string' ? callback(null, mapped[0]!.address, 4) : callback(null, mapped);
    });
}

function guardedConnect(this: net.Socket, ...args: unknown[]): net.Socket {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0]; // net.connect passes its normalised [options, listener]
  const options: { host?: string; lookup?: LookupFunction } = typeof first === 'object' && first !== null ? first : {};
  const host = options.host ?? '';
  const target = isIP(host) ? guardedTarget(host) : null;
  if (target) {
    connected.push(host);
    options.host = target;
  } else if (!isIP(host) && host && options.lookup) {
    options.lookup = guardedLookup(options.lookup);
  } else {
    process.nextTick(() => this.destroy(new Error(`test guard: no connection to ${host || 'a default host'}`)));
    return this;
  }
  return Reflect.apply(realConnect, this, args);
}

beforeAll(() => {
  net.Socket.prototype.connect = guardedConnect;
  delete process.env.CALENDAR_IMPORT_ALLOW_PRIVATE;
  resetConfig();
});
afterAll(() => {
  net.Socket.prototype.connect = realConnect;
});

// ---- servers and resolvers ------------------------------------------------------------------------------------

interface Site {
  port: number;
  /** http://127.0.0.1:port */
  base: string;
  /** Every request the server saw. */
  hits: { url: string; headers: IncomingHttpHeaders }[];
}

const servers: http.Server[] = [];

async function site(handle: (req: IncomingMessage, res: ServerResponse, site: Site) => void): Promise<Site> {
  const server = http.createServer((req, res) => {
    self.hits.push({ url: req.url ?? '', headers: req.headers });
    handle(req, res, self);
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  const self: Site = { port, base: `http://127.0.0.1:${port}`, hits: [] };
  return self;
}

const text = (body: string, headers: http.OutgoingHttpHeaders = {}) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'Content-Type': 'text/calendar', ...headers });
  res.end(body);
};

const redirect = (status: number, location: string) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(status, { Location: location });
  res.end('moved');
};

/** A resolver over a fixed table that records every name it was asked for (unknown names have no address). */
function resolver(table: Record<string, string[]>) {
  const calls: string[] = [];
  const resolve = async (host: string) => {
    calls.push(host);
    return (table[host] ?? []).map((address) => ({ address, family: isIP(address) }));
  };
  return { resolve, calls };
}

/** The FetchError a fetch fails with (any other outcome fails the test). */
async function failure(promise: Promise<unknown>): Promise<FetchError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof FetchError) return err;
    throw err;
  }
  throw new Error('the fetch succeeded');
}

async function body(url: string, options: FetchOptions): Promise<string> {
  const result = await fetchSource(url, options);
  if (result.notModified) throw new Error('unexpected 304');
  return result.body.toString('utf8');
}

beforeEach(() => {
  connected.length = 0;
});

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((done) => server.close(done));
    }),
  );
});

// ---- addresses --------------------------------------------------------------------------------------------------

/** Refused whatever CALENDAR_IMPORT_ALLOW_PRIVATE says. */
const ALWAYS_REFUSED = [
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', '"this network" 0/8'],
  ['169.254.0.1', 'link-local'],
  ['169.254.169.254', 'metadata (AWS, Azure, Google, Oracle…)'],
  ['169.254.170.2', 'ECS task credentials'],
  ['169.254.170.23', 'EKS Pod Identity'],
  ['100.64.0.1', 'shared 100.64/10'],
  ['100.127.255.254', 'shared 100.64/10'],
  ['100.100.100.200', 'Alibaba metadata'],
  ['168.63.129.16', 'Azure WireServer'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved 240/4'],
  ['255.255.255.255', 'broadcast'],
  ['192.0.0.8', 'IETF protocol assignments'],
  ['192.0.2.1', 'documentation TEST-NET-1'],
  ['198.51.100.1', 'documentation TEST-NET-2'],
  ['203.0.113.1', 'documentation TEST-NET-3'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.254', 'benchmarking'],
  ['192.88.99.1', '6to4 relay anycast'],
  ['::', 'unspecified'],
  ['fe80::1', 'link-local'],
  ['febf:ffff::1', 'link-local'],
  ['fe80::1%eth0', 'link-local with a zone'],
  ['fd00:ec2::254', 'AWS metadata over IPv6 (unique-local, still refused)'],
  ['fd00:ec2::23', 'EKS Pod Identity over IPv6'],
  ['ff02::1', 'multicast'],
  ['ff0e::1', 'multicast'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['2001:2::1', 'benchmarking'],
  ['100::1', 'discard'],
  ['fec0::1', 'deprecated site-local'],
  ['5f00::1', 'segment routing'],
  ['4000::1', 'outside global unicast 2000::/3'],
  // IPv6 forms judged by the IPv4 address they carry
  ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
  ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata, hex'],
  ['::ffff:100.64.0.1', 'IPv4-mapped shared'],
  ['::ffff:0.0.0.0', 'IPv4-mapped unspecified'],
  ['::ffff:168.63.129.16', 'IPv4-mapped Azure WireServer'],
  ['::ffff:0:169.254.169.254', 'IPv4-translated metadata'],
  ['::169.254.169.254', 'IPv4-compatible metadata'],
  ['::a9fe:a9fe', 'IPv4-compatible metadata, hex'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 of metadata'],
  ['64:ff9b::224.0.0.1', 'NAT64 of multicast'],
  ['64:ff9b:1::a9fe:a9fe', 'local-use NAT64 of metadata'],
  ['64:ff9b:1:a00:0:100:808:808', 'local-use NAT64 in another layout than /96 (10.0.0.1 in the /48 one)'],
  ['2002:a9fe:a9fe::1', '6to4 of metadata'],
  ['2002:6440:1::', '6to4 of shared'],
  ['2001:0:a9fe:a9fe::f7f7:f7f7', 'Teredo with a metadata server'],
  ['2001:0:808:808::5601:5601', 'Teredo with a metadata client (inverted 169.254.169.254)'],
] as const;

/** Refused, unless private addresses are allowed. */
const PRIVATE = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.254', 'private'],
  ['192.168.0.1', 'private'],
  ['::1', 'loopback'],
  ['fc00::1', 'unique-local'],
  ['fd12:3456:789a::1', 'unique-local'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private'],
  ['::ffff:0:10.0.0.1', 'IPv4-translated private'],
  ['::127.0.0.1', 'IPv4-compatible loopback'],
  ['::7f00:1', 'IPv4-compatible loopback, hex'],
  ['64:ff9b::10.0.0.1', 'NAT64 of private'],
  ['64:ff9b:1::c0a8:1', 'local-use NAT64 of private'],
  ['2002:7f00:1::', '6to4 of loopback'],
  ['2002:c0a8:101::1', '6to4 of private'],
  ['2001:0:a00:1::f7f7:f7f7', 'Teredo with a private server'],
  ['2001:0:808:808::80ff:fffe', 'Teredo with a loopback client (inverted 127.0.0.1)'],
] as const;

const PUBLIC_ADDRESSES = [
  PUBLIC,
  '8.8.8.8',
  '93.184.215.14',
  '172.32.0.1',
  '100.128.0.1',
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
  '64:ff9b:1::808:808',
  '2002:808:808::1',
  '2001:0:808:808::f7f7:f7f7',
];

describe('addressAllowed', () => {
  test.each(ALWAYS_REFUSED)('%s (%s) is refused, also when private addresses are allowed', (ip) => {
    expect(addressAllowed(ip, false)).toBe(false);
    expect(addressAllowed(ip, true)).toBe(false);
    expect(privateAddress(ip)).toBe(false);
  });

  test.each(PRIVATE)('%s (%s) is refused unless private addresses are allowed', (ip) => {
    expect(addressAllowed(ip, false)).toBe(false);
    expect(addressAllowed(ip, true)).toBe(true);
    expect(privateAddress(ip)).toBe(true);
  });

  test.each(PUBLIC_ADDRESSES)('%s is public', (ip) => {
    expect(addressAllowed(ip, false)).toBe(true);
    expect(privateAddress(ip)).toBe(false);
  });

  test.each(['', 'localhost', '127.1', '0177.0.0.1', '0x7f.0.0.1', '2130706433', '1.2.3.4.5', '[::1]', '::1/128', 'a.test'])(
    '%j is not an address: refused',
    (value) => {
      expect(addressAllowed(value, false)).toBe(false);
      expect(addressAllowed(value, true)).toBe(false);
    },
  );
});

// ---- URLs -------------------------------------------------------------------------------------------------------

describe('URLs', () => {
  test.each([
    ['ftp://calendar.test/feed.ics'],
    ['file:///etc/passwd'],
    ['data:text/calendar,BEGIN:VCALENDAR'],
    ['javascript:alert(1)'],
    ['gopher://calendar.test/'],
    ['webcal://calendar.test/feed.ics'],
    ['not a URL'],
    [''],
  ])('%j is refused before any lookup', async (url) => {
    const { resolve, calls } = resolver({ 'calendar.test': [PUBLIC] });
    expect((await failure(fetchSource(url, { resolve }))).message).toBe('only http and https URLs can be fetched');
    expect(sourceUrlProblem(url, true)).toBe('only http and https URLs can be fetched');
    expect([calls, connected]).toEqual([[], []]);
  });

  test.each(['http://user:secret@calendar.test/', 'https://user@calendar.test/', 'https://:secret@calendar.test/'])(
    'credentials in the URL (%s) are refused',
    async (url) => {
      const { resolve, calls } = resolver({ 'calendar.test': [PUBLIC] });
      expect((await failure(fetchSource(url, { resolve }))).message).toBe('credentials in the URL are not accepted');
      expect([calls, connected]).toEqual([[], []]);
    },
  );

  // What WHATWG `new URL()` makes of each literal host form: every IPv4 spelling becomes dotted decimal, IPv6 the
  // bracketed compressed form; the fetch judges that, without a lookup.
  const LITERALS = [
    ['http://127.0.0.1/', '127.0.0.1'],
    ['http://2130706433/', '127.0.0.1'],
    ['http://0x7f000001/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://0x7f.0x0.0x0.0x1/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://0177.1/', '127.0.0.1'],
    ['http://017700000001/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://127.0.0.1./', '127.0.0.1'],
    ['http://%31%32%37.0.0.1/', '127.0.0.1'],
    ['http://１２７.０.０.１/', '127.0.0.1'],
    ['http://0/', '0.0.0.0'],
    ['http://10.1.2.3:8080/', '10.1.2.3'],
    ['http://0xa9fea9fe/', '169.254.169.254'],
    ['http://2852039166/', '169.254.169.254'],
    ['http://0251.0376.0251.0376/', '169.254.169.254'],
    ['http://100.100.100.200/', '100.100.100.200'],
    ['http://[::1]/', '[::1]'],
    ['http://[0:0:0:0:0:0:0:1]/', '[::1]'],
    ['http://[::]/', '[::]'],
    ['http://[::ffff:127.0.0.1]/', '[::ffff:7f00:1]'],
    ['http://[::ffff:169.254.169.254]/', '[::ffff:a9fe:a9fe]'],
    ['http://[::127.0.0.1]/', '[::7f00:1]'],
    ['http://[64:ff9b::127.0.0.1]/', '[64:ff9b::7f00:1]'],
    ['http://[2002:7f00:1::]/', '[2002:7f00:1::]'],
    ['http://[2001:0:808:808::80ff:fffe]/', '[2001:0:808:808::80ff:fffe]'],
    ['http://[fe80::1]/', '[fe80::1]'],
    ['http://[FD00:EC2::254]/', '[fd00:ec2::254]'],
    ['http://[fc00::1]/', '[fc00::1]'],
  ] as const;

  test.each(LITERALS)('%s (host %s) is refused: address not allowed, no lookup, no connection', async (url, hostname) => {
    expect(new URL(url).hostname).toBe(hostname);
    const { resolve, calls } = resolver({});
    expect((await failure(fetchSource(url, { resolve, allowPrivate: false }))).message).toBe('address not allowed');
    expect(sourceUrlProblem(url, false)).toBe('address not allowed');
    expect([calls, connected]).toEqual([[], []]);
  });

  const METADATA_URLS = ['http://0xa9fea9fe/', 'http://2852039166/', 'http://[::ffff:169.254.169.254]/', 'http://[fd00:ec2::254]/'];
  test.each([...METADATA_URLS, 'http://[fe80::1]/', 'http://0/', 'http://[::]/', 'http://100.100.100.200/'])(
    '%s stays refused when private addresses are allowed',
    async (url) => {
      expect((await failure(fetchSource(url, { allowPrivate: true }))).message).toBe('address not allowed');
      expect(connected).toEqual([]);
    },
  );

  test('with private addresses allowed, each IPv4 spelling of loopback reaches the loopback server', async () => {
    const server = await site(text('BEGIN:VCALENDAR'));
    for (const host of ['127.0.0.1', '2130706433', '0x7f.1', '0177.0.0.1', '127.1', '%31%32%37.0.0.1']) {
      expect(await body(`http://${host}:${server.port}/feed.ics`, { allowPrivate: true })).toBe('BEGIN:VCALENDAR');
    }
    expect(server.hits).toHaveLength(6);
    expect(new Set(connected)).toEqual(new Set(['127.0.0.1']));
  });

  test('sameOrigin compares scheme, host and port of http(s) URLs', () => {
    expect(sameOrigin('https://a.test/wp-json/tribe/events/v1/events', 'https://a.test:443/other?page=2')).toBe(true);
    expect(sameOrigin('http://a.test/x', 'http://A.TEST:80/y')).toBe(true);
    expect(sameOrigin('http://a.test/', 'https://a.test/')).toBe(false);
    expect(sameOrigin('https://a.test/', 'https://a.test:8443/')).toBe(false);
    expect(sameOrigin('https://a.test/', 'https://b.a.test/')).toBe(false);
    expect(sameOrigin('https://a.test/', 'https://a.test./')).toBe(false);
    expect(sameOrigin('https://a.test/', 'https://a.test@b.test/')).toBe(false);
    expect(sameOrigin('data:text/plain,a', 'data:text/plain,a')).toBe(false);
    expect(sameOrigin('file:///a', 'file:///a')).toBe(false);
    expect(sameOrigin('not a URL', 'not a URL')).toBe(false);
  });
});

// ---- resolution -------------------------------------------------------------------------------------------------

describe('resolution', () => {
  test.each([
    [[PUBLIC, '10.0.0.1']],
    [['10.0.0.1', PUBLIC]],
    [[PUBLIC, '169.254.169.254']],
    [[PUBLIC, '127.0.0.1']],
    [['2606:4700:4700::1111', 'fd12::1']],
    [['2606:4700:4700::1111', '::ffff:192.168.1.1']],
    [[PUBLIC, 'fe80::1']],
  ])('a host resolving to %j (one address refused) is refused without connecting', async (addresses) => {
    const server = await site(text('never'));
    const { resolve, calls } = resolver({ 'mixed.test': addresses });
    const error = await failure(fetchSource(`http://mixed.test:${server.port}/`, { resolve, allowPrivate: false }));
    expect(error.message).toBe('address not allowed');
    expect(calls).toEqual(['mixed.test']);
    expect([connected, server.hits]).toEqual([[], []]);
  });

  test('a host without addresses fails', async () => {
    const { resolve } = resolver({});
    expect((await failure(fetchSource('http://nowhere.test/', { resolve }))).message).toBe('nowhere.test has no address');
    expect(connected).toEqual([]);
  });

  test('the connection goes to the checked address, with the name in Host; one lookup', async () => {
    const server = await site(text('BEGIN:VCALENDAR', { ETag: '"a"', 'Last-Modified': 'Tue, 01 Jul 2025 10:00:00 GMT' }));
    const { resolve, calls } = resolver({ 'calendar.test': [PUBLIC] });
    const result = await fetchSource(`http://calendar.test:${server.port}/feed.ics`, { resolve, allowPrivate: false });
    expect(result).toEqual({
      notModified: false,
      status: 200,
      body: Buffer.from('BEGIN:VCALENDAR'),
      contentType: 'text/calendar',
      etag: '"a"',
      lastModified: 'Tue, 01 Jul 2025 10:00:00 GMT',
      url: `http://calendar.test:${server.port}/feed.ics`,
    });
    expect(calls).toEqual(['calendar.test']);
    expect(connected).toEqual([PUBLIC]);
    expect(server.hits[0]!.headers).toMatchObject({
      host: `calendar.test:${server.port}`,
      'user-agent': expect.stringMatching(/^calendar-events-api-import\//),
      accept: '*/*',
      'accept-encoding': 'gzip, deflate, br',
    });
    expect(server.hits[0]!.headers).not.toHaveProperty('authorization');
    expect(server.hits[0]!.headers).not.toHaveProperty('if-none-match');
  });

  test('the caller sets Accept and other headers, but not Authorization, Cookie or Host', async () => {
    const server = await site(text('x'));
    const url = `${server.base}/`;
    await body(url, { allowPrivate: true, headers: { Accept: 'text/calendar', 'Accept-Language': 'de' } });
    expect(server.hits[0]!.headers).toMatchObject({ accept: 'text/calendar', 'accept-language': 'de' });
    for (const name of ['Authorization', 'cookie', 'HOST', 'Proxy-Authorization']) {
      expect((await failure(fetchSource(url, { allowPrivate: true, headers: { [name]: 'x' } }))).message).toBe(`the ${name} header cannot be set`);
    }
    expect(server.hits).toHaveLength(1);
  });

  test('a refused connection fails with a FetchError', async () => {
    const server = await site(text('x'));
    const closed = server.base;
    servers.pop()!.close();
    const error = await failure(fetchSource(`${closed}/`, { allowPrivate: true }));
    expect(error.message).toMatch(/^fetch failed: .*ECONNREFUSED/);
  });
});

// ---- redirects --------------------------------------------------------------------------------------------------

describe('redirects', () => {
  test.each([
    ['http://127.0.0.1:{port}/'],
    ['http://localhost:{port}/'],
    ['http://loopback.test:{port}/'],
    ['http://2130706433:{port}/'],
    ['http://0x7f.1:{port}/'],
    ['http://[::ffff:127.0.0.1]:{port}/'],
    ['http://[::1]:{port}/'],
    ['http://metadata.test/latest/meta-data/'],
    ['http://169.254.169.254/latest/meta-data/'],
  ])('a public source redirecting to %s is refused; the target sees nothing', async (location) => {
    const target = await site(text('secret'));
    const source = await site(redirect(302, location.replace('{port}', String(target.port))));
    const { resolve, calls } = resolver({
      'public.test': [PUBLIC],
      localhost: ['127.0.0.1', '::1'],
      'loopback.test': ['127.0.0.2'],
      'metadata.test': ['169.254.169.254'],
    });
    const error = await failure(fetchSource(`http://public.test:${source.port}/feed.ics`, { resolve, allowPrivate: false }));
    expect(error.message).toBe('address not allowed');
    expect(source.hits).toHaveLength(1);
    expect(target.hits).toEqual([]);
    expect(connected).toEqual([PUBLIC]);
    const name = new URL(location.replace('{port}', '1')).hostname.replace(/^\[(.*)\]$/, '$1');
    expect(calls).toEqual(isIP(name) ? ['public.test'] : ['public.test', name]);
  });

  test('with private addresses allowed, a redirect to link-local metadata is still refused', async () => {
    const source = await site(redirect(302, 'http://metadata.test/'));
    const { resolve } = resolver({ 'metadata.test': ['169.254.169.254'] });
    expect((await failure(fetchSource(`${source.base}/`, { resolve, allowPrivate: true }))).message).toBe('address not allowed');
    expect(connected).toEqual(['127.0.0.1']);
  });

  /** /hop/N redirects to /hop/N-1; /hop/0 answers. */
  const chain = (status = 302) => (req: IncomingMessage, res: ServerResponse) => {
    const n = Number(/^\/hop\/(\d+)$/.exec(req.url ?? '')?.[1]);
    if (n > 0) redirect(status, `/hop/${n - 1}`)(req, res);
    else text(`arrived at ${req.url}`)(req, res);
  };

  test('5 redirects are followed, each hop looked up again', async () => {
    const server = await site(chain());
    const { resolve, calls } = resolver({ 'public.test': [PUBLIC] });
    const result = await fetchSource(`http://public.test:${server.port}/hop/5`, { resolve, allowPrivate: false });
    expect(result).toMatchObject({ status: 200, url: `http://public.test:${server.port}/hop/0`, body: Buffer.from('arrived at /hop/0') });
    expect(server.hits.map((h) => h.url)).toEqual(['/hop/5', '/hop/4', '/hop/3', '/hop/2', '/hop/1', '/hop/0']);
    expect(calls).toHaveLength(6);
    expect(connected).toHaveLength(6);
  });

  test('a 6th redirect fails, and its target is never requested', async () => {
    const server = await site(chain());
    const error = await failure(fetchSource(`${server.base}/hop/6`, { allowPrivate: true }));
    expect(error.message).toBe('more than 5 redirects');
    expect(server.hits.map((h) => h.url)).toEqual(['/hop/6', '/hop/5', '/hop/4', '/hop/3', '/hop/2', '/hop/1']);
  });

  test.each([301, 303, 307, 308])('a %i redirect with a relative Location is followed', async (status) => {
    const server = await site(chain(status));
    expect(await body(`${server.base}/hop/1`, { allowPrivate: true })).toBe('arrived at /hop/0');
  });

  test.each(['ftp://calendar.test/feed.ics', 'file:///etc/passwd', 'data:text/calendar,BEGIN:VCALENDAR', 'javascript:alert(1)'])(
    'a redirect to %s is refused',
    async (location) => {
      const server = await site(redirect(302, location));
      expect((await failure(fetchSource(`${server.base}/`, { allowPrivate: true }))).message).toBe('only http and https URLs can be fetched');
      expect(connected).toEqual(['127.0.0.1']);
    },
  );

  test('a redirect to a URL with credentials is refused', async () => {
    const server = await site(redirect(302, 'http://user:pw@calendar.test/'));
    expect((await failure(fetchSource(`${server.base}/`, { allowPrivate: true }))).message).toBe('credentials in the URL are not accepted');
  });

  test('a redirect without Location fails with its status', async () => {
    const server = await site((_req, res) => res.writeHead(302).end());
    const error = await failure(fetchSource(`${server.base}/`, { allowPrivate: true }));
    expect([error.message, error.status]).toEqual(['HTTP 302 without a valid Location', 302]);
  });
});

// ---- answers ----------------------------------------------------------------------------------------------------

describe('answers', () => {
  test.each([404, 410, 500, 503])('HTTP %i fails with the status', async (status) => {
    const server = await site((_req, res) => res.writeHead(status).end('no'));
    const error = await failure(fetchSource(`${server.base}/`, { allowPrivate: true }));
    expect([error.message, error.status]).toEqual([`the source answered HTTP ${status}`, status]);
  });

  test('a conditional re-fetch sends the validators and returns a 304 as such', async () => {
    const modified = 'Wed, 02 Jul 2025 08:00:00 GMT';
    const server = await site((req, res) => {
      if (req.headers['if-none-match'] === '"v1"') res.writeHead(304, { ETag: '"v1"' }).end();
      else text('BEGIN:VCALENDAR', { ETag: '"v1"', 'Last-Modified': modified })(req, res);
    });
    const first = await fetchSource(`${server.base}/feed.ics`, { allowPrivate: true });
    expect(first).toMatchObject({ notModified: false, status: 200, etag: '"v1"', lastModified: modified });
    const again = await fetchSource(`${server.base}/feed.ics`, { allowPrivate: true, etag: first.etag, lastModified: first.lastModified });
    expect(again).toEqual({ notModified: true, status: 304, etag: '"v1"', lastModified: modified, url: `${server.base}/feed.ics` });
    expect(server.hits[1]!.headers).toMatchObject({ 'if-none-match': '"v1"', 'if-modified-since': modified });
    expect(server.hits[0]!.headers).not.toHaveProperty('if-modified-since');
  });

  test('a 304 without validators keeps the caller’s', async () => {
    const server = await site((_req, res) => res.writeHead(304).end());
    const validators = { etag: 'W/"7"', lastModified: 'Wed, 02 Jul 2025 08:00:00 GMT' };
    expect(await fetchSource(`${server.base}/`, { allowPrivate: true, ...validators })).toMatchObject({ notModified: true, ...validators });
    const result = await fetchSource(`${server.base}/`, { allowPrivate: true, lastModified: validators.lastModified });
    expect(result).toMatchObject({ notModified: true, etag: null, lastModified: validators.lastModified });
    expect(server.hits[1]!.headers).not.toHaveProperty('if-none-match');
  });

  const CALENDAR = `BEGIN:VCALENDAR\r\n${'X-FILLER:0123456789\r\n'.repeat(500)}END:VCALENDAR\r\n`;
  test.each([
    ['gzip', zlib.gzipSync],
    ['deflate', zlib.deflateSync],
    ['br', zlib.brotliCompressSync],
  ] as const)('a %s body is decompressed', async (encoding, compress) => {
    const server = await site((_req, res) => res.writeHead(200, { 'Content-Encoding': encoding }).end(compress(CALENDAR)));
    expect(await body(`${server.base}/`, { allowPrivate: true })).toBe(CALENDAR);
  });

  test('an unknown Content-Encoding fails', async () => {
    const server = await site((_req, res) => res.writeHead(200, { 'Content-Encoding': 'zstd' }).end('x'));
    expect((await failure(fetchSource(`${server.base}/`, { allowPrivate: true }))).message).toBe('unsupported Content-Encoding zstd');
  });

  test('a body that is not what its Content-Encoding says fails', async () => {
    const server = await site((_req, res) => res.writeHead(200, { 'Content-Encoding': 'gzip' }).end('not gzip'));
    expect((await failure(fetchSource(`${server.base}/`, { allowPrivate: true }))).message).toMatch(/^fetch failed: /);
  });
});

// ---- limits -----------------------------------------------------------------------------------------------------

describe('limits', () => {
  const MB = 1024 * 1024;
  const over = `the source is larger than its limit of ${MB} bytes`;

  test.each([
    ['gzip', zlib.gzipSync],
    ['deflate', zlib.deflateSync],
    ['br', zlib.brotliCompressSync],
  ] as const)('a %s bomb (a few KB that decompress to 8 MB) fails at the 1 MB limit', async (encoding, compress) => {
    const bomb = compress(Buffer.alloc(8 * MB));
    expect(bomb.length).toBeLessThan(16 * 1024);
    const server = await site((_req, res) => res.writeHead(200, { 'Content-Encoding': encoding }).end(bomb));
    expect((await failure(fetchSource(`${server.base}/`, { allowPrivate: true, maxBytes: MB }))).message).toBe(over);
  });

  test('an endless gzip stream fails at the limit, counted as it streams (not at the time limit)', async () => {
    const server = await site((_req, res) => {
      res.writeHead(200, { 'Content-Encoding': 'gzip' });
      const zeros = new Readable({
        read() {
          this.push(Buffer.alloc(64 * 1024));
        },
      });
      pipeline(zeros, zlib.createGzip(), res).catch(() => {}); // ends when the client hangs up
    });
    const started = Date.now();
    const error = await failure(fetchSource(`${server.base}/`, { allowPrivate: true, maxBytes: MB, timeoutMs: 20_000 }));
    expect(error.message).toBe(over);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  test('a plain body of exactly the limit is read; one byte more fails', async () => {
    const server = await site((req, res) => res.end(Buffer.alloc(req.url === '/more' ? MB + 1 : MB, 'a')));
    const result = await fetchSource(`${server.base}/`, { allowPrivate: true, maxBytes: MB });
    expect(!result.notModified && result.body.length).toBe(MB);
    expect((await failure(fetchSource(`${server.base}/more`, { allowPrivate: true, maxBytes: MB }))).message).toBe(over);
  });

  test('a body sent without Content-Length is counted too', async () => {
    const server = await site((_req, res) => {
      res.writeHead(200); // chunked
      for (let i = 0; i < 20; i++) res.write(Buffer.alloc(64 * 1024));
      res.end();
    });
    expect((await failure(fetchSource(`${server.base}/`, { allowPrivate: true, maxBytes: MB }))).message).toBe(over);
  });

  test('a declared Content-Length over the limit fails before the body arrives', async () => {
    const server = await site((_req, res) => res.writeHead(200, { 'Content-Length': 2 * MB }).write('x')); // and nothing more
    expect((await failure(fetchSource(`${server.base}/`, { allowPrivate: true, maxBytes: MB, timeoutMs: 5000 }))).message).toBe(over);
  });

  test('what arrives is limited too, even when it decodes to little (a run of empty gzip members)', async () => {
    const members = Buffer.concat(Array.from({ length: 3000 }, () => zlib.gzipSync(Buffer.alloc(0))));
    expect(members.length).toBeGreaterThan(40_000);
    const server = await site((_req, res) => res.writeHead(200, { 'Content-Encoding': 'gzip' }).end(members));
    expect(await body(`${server.base}/`, { allowPrivate: true, maxBytes: 64 * 1024 })).toBe('');
    const error = await failure(fetchSource(`${server.base}/`, { allowPrivate: true, maxBytes: 32 * 1024 }));
    expect(error.message).toBe('the source is larger than its limit of 32768 bytes');
  });

  test('the 20 MB and 60 s defaults', () => {
    expect([MAX_BYTES, TIMEOUT_MS, MAX_REDIRECTS]).toEqual([20 * MB, 60_000, 5]);
  });

  const late = 'the fetch took longer than its limit of 300 ms';

  test('a server that dribbles its body fails at the time limit', async () => {
    const server = await site((_req, res) => {
      res.writeHead(200);
      const timer = setInterval(() => res.write('x'), 20);
      res.on('close', () => clearInterval(timer));
    });
    const started = Date.now();
    expect((await failure(fetchSource(`${server.base}/`, { allowPrivate: true, timeoutMs: 300 }))).message).toBe(late);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  test('the time limit covers the whole fetch: redirects that are each quick enough add up', async () => {
    const server = await site((req, res) => {
      const n = Number(req.url?.slice(1));
      setTimeout(() => (n > 0 ? redirect(302, `/${n - 1}`)(req, res) : text('done')(req, res)), 120);
    });
    expect((await failure(fetchSource(`${server.base}/4`, { allowPrivate: true, timeoutMs: 300 }))).message).toBe(late);
    expect(server.hits.length).toBeLessThan(5);
  });

  test('the time limit covers the lookup', async () => {
    const resolve = () => new Promise<never>(() => {});
    expect((await failure(fetchSource('http://slow-dns.test/', { resolve, timeoutMs: 300 }))).message).toBe(late);
    expect(connected).toEqual([]);
  });

  test('the time limit covers a server that never answers', async () => {
    const server = await site(() => {});
    expect((await failure(fetchSource(`${server.base}/`, { allowPrivate: true, timeoutMs: 300 }))).message).toBe(late);
  });
});

// ---- credentials ------------------------------------------------------------------------------------------------

describe('credentials', () => {
  const credentials = { username: 'editor', password: 'abcd EFGH ijkl MNOP' };
  const basic = `Basic ${Buffer.from('editor:abcd EFGH ijkl MNOP').toString('base64')}`;

  test('they go with every hop of the source’s own origin (over http to an allowed private address)', async () => {
    const server = await site((req, res) => (req.url === '/start' ? redirect(302, '/events?page=2')(req, res) : text('ok')(req, res)));
    const result = await fetchSource(`${server.base}/start`, { allowPrivate: true, credentials });
    expect(result.url).toBe(`${server.base}/events?page=2`);
    expect(server.hits.map((h) => h.headers.authorization)).toEqual([basic, basic]);
  });

  test('a redirect to another origin drops them, also for a later hop back to the source', async () => {
    const { resolve } = resolver({ 'source.test': ['127.0.0.1'], 'other.test': ['127.0.0.1'] });
    const server = await site((req, res, self) => {
      if (req.url === '/start') redirect(302, `http://other.test:${self.port}/away`)(req, res);
      else if (req.url === '/away') redirect(302, `http://source.test:${self.port}/back`)(req, res);
      else text('ok')(req, res);
    });
    await body(`http://source.test:${server.port}/start`, { resolve, allowPrivate: true, credentials });
    expect(server.hits.map((h) => [h.url, h.headers.host, h.headers.authorization])).toEqual([
      ['/start', `source.test:${server.port}`, basic],
      ['/away', `other.test:${server.port}`, undefined],
      ['/back', `source.test:${server.port}`, undefined],
    ]);
  });

  test('another port is another origin', async () => {
    const other = await site(text('ok'));
    const source = await site(redirect(307, `${other.base}/`));
    await body(`${source.base}/`, { allowPrivate: true, credentials });
    expect(source.hits[0]!.headers.authorization).toBe(basic);
    expect(other.hits[0]!.headers).not.toHaveProperty('authorization');
  });

  test('they are never sent over plain http to a public host: the fetch fails before connecting', async () => {
    const server = await site(text('ok'));
    const { resolve } = resolver({ 'public.test': [PUBLIC] });
    const error = await failure(fetchSource(`http://public.test:${server.port}/`, { resolve, allowPrivate: false, credentials }));
    expect(error.message).toBe('credentials are only sent over https');
    expect([connected, server.hits]).toEqual([[], []]);
  });

  test('a private http source redirecting to a public http host (another origin) is followed without them', async () => {
    const { resolve } = resolver({ 'public.test': [PUBLIC] });
    const server = await site((req, res, self) =>
      req.url === '/' ? redirect(302, `http://public.test:${self.port}/feed`)(req, res) : text('ok')(req, res),
    );
    expect(await body(`${server.base}/`, { resolve, allowPrivate: true, credentials })).toBe('ok');
    expect(server.hits.map((h) => h.headers.authorization)).toEqual([basic, undefined]);
    expect(connected).toEqual(['127.0.0.1', PUBLIC]);
  });
});

// ---- CALENDAR_IMPORT_ALLOW_PRIVATE ------------------------------------------------------------------------------

describe('CALENDAR_IMPORT_ALLOW_PRIVATE', () => {
  afterEach(() => {
    delete process.env.CALENDAR_IMPORT_ALLOW_PRIVATE;
    resetConfig();
  });

  test('only 1 turns it on', () => {
    expect(loadConfig({ CALENDAR_IMPORT_ALLOW_PRIVATE: '1' }).importAllowPrivate).toBe(true);
    for (const value of [undefined, '', '0', 'true', 'yes']) {
      expect(loadConfig({ CALENDAR_IMPORT_ALLOW_PRIVATE: value }).importAllowPrivate).toBe(false);
    }
  });

  test('it is the default of allowPrivate: loopback passes, link-local metadata does not', async () => {
    const server = await site(text('ok'));
    expect((await failure(fetchSource(`${server.base}/`))).message).toBe('address not allowed');
    process.env.CALENDAR_IMPORT_ALLOW_PRIVATE = '1';
    resetConfig();
    expect(await body(`${server.base}/`, {})).toBe('ok');
    expect((await failure(fetchSource('http://169.254.169.254/latest/meta-data/'))).message).toBe('address not allowed');
    expect((await failure(fetchSource('http://[fe80::1]/'))).message).toBe('address not allowed');
    expect((await failure(fetchSource(`${server.base}/`, { allowPrivate: false }))).message).toBe('address not allowed');
    expect(server.hits).toHaveLength(1);
  });
});
