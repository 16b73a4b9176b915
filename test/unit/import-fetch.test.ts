/**
 * Fetching an import source (lib/imports/fetch.ts, lib/imports/addresses.ts; contract §20 "Fetching").
 *
 * Which addresses an import may connect to; no socket is opened here.
 */
import { addressAllowed, privateAddress } from '../../lib/imports/addresses.js';

/** A public address (APNIC's 1.0.0.0/8). */
const PUBLIC = '1.2.3.4';

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
