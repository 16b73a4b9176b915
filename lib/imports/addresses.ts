/**
 * Which addresses an import may fetch from (contract §20 "Fetching"): public unicast only. Ranges come from
 * `ipaddr.js`; IPv6 forms that carry an IPv4 address (mapped, translated, IPv4-compatible, NAT64, 6to4, Teredo) are
 * judged by that address. `allowPrivate` (CALENDAR_IMPORT_ALLOW_PRIVATE) lifts loopback, private and unique-local
 * ranges only: link-local, shared, reserved and cloud metadata addresses stay refused.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** The ranges (ipaddr.js names) that allowPrivate lifts. */
const PRIVATE_RANGES = new Set(['loopback', 'private', 'uniqueLocal']);

/** Instance metadata and credential endpoints: refused whatever their range (a unique-local one, a public one). */
const METADATA = new Set(
  [
    '169.254.169.254', // AWS, Azure, Google Cloud, Oracle, DigitalOcean… instance metadata
    '169.254.170.2', // ECS task credentials
    '169.254.170.23', // EKS Pod Identity
    '169.254.0.23', // Tencent Cloud
    '100.100.100.200', // Alibaba Cloud
    '168.63.129.16', // Azure WireServer (a public address)
    'fd00:ec2::254', // AWS instance metadata over IPv6
    'fd00:ec2::23', // EKS Pod Identity over IPv6
  ].map((a) => ipaddr.parse(a).toNormalizedString()),
);

/** Global unicast IPv6 (RFC 4291): the rest of the space is unassigned, or special and refused anyway. */
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
/** The local-use NAT64 prefix (RFC 8215): only its /96 layout, `64:ff9b:1::a.b.c.d`, can be read unambiguously. */
const LOCAL_NAT64 = ipaddr.IPv6.parseCIDR('64:ff9b:1::/48');

/** Whether an import may connect to `ip`, a plain IPv4 or IPv6 address (anything else is refused). */
export function addressAllowed(ip: string, allowPrivate: boolean): boolean {
  return isIP(ip) !== 0 && allowed(ipaddr.parse(ip), allowPrivate);
}

/** Whether the address is in a range that only allowPrivate lets through (loopback, private, unique-local). */
export function privateAddress(ip: string): boolean {
  return addressAllowed(ip, true) && !addressAllowed(ip, false);
}

function allowed(address: Address, allowPrivate: boolean): boolean {
  if (METADATA.has(address.toNormalizedString())) return false;
  if (address instanceof ipaddr.IPv6) {
    const embedded = embeddedIPv4(address);
    if (embedded) return embedded.length > 0 && embedded.every((v4) => allowed(v4, allowPrivate));
    if (address.range() === 'unicast' && !address.match(GLOBAL_UNICAST)) return false;
  }
  const range = address.range();
  return range === 'unicast' || (allowPrivate && PRIVATE_RANGES.has(range));
}

/** The IPv4 addresses an IPv6 address stands for (an empty list: one that cannot be read), or null for none. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const bytes = address.toByteArray();
  const v4 = (from: number, flip = 0) => new ipaddr.IPv4(bytes.slice(from, from + 4).map((b) => b ^ flip));
  switch (address.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
      return [v4(12)];
    case 'rfc6052': // NAT64: 64:ff9b::/96, and 64:ff9b:1::/48 read in its /96 layout only
      return !address.match(LOCAL_NAT64) || bytes.slice(6, 12).every((b) => b === 0) ? [v4(12)] : [];
    case '6to4': // 2002:aabb:ccdd::/48
      return [v4(2)];
    case 'teredo': // 2001:0:<server>:<flags>:<port>:<client, inverted>
      return [v4(4), v4(12, 0xff)];
    // IPv4-compatible ::a.b.c.d, deprecated (:: and ::1 are ranges of their own). ipaddr.js reads the dotted spelling
    // `::a.b.c.d` as mapped `::ffff:a.b.c.d`: the same verdict.
    case 'unicast':
      return bytes.slice(0, 12).every((b) => b === 0) ? [v4(12)] : null;
    default:
      return null;
  }
}
