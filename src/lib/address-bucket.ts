/**
 * The client-address bucket rate limits count against. IPv4 addresses count alone; an IPv6
 * client usually holds a whole /64 (2^64 addresses), so IPv6 addresses count per /64, or a
 * single client could rotate addresses and never hit a per-address limit.
 */
import { isIPv6 } from 'node:net';

/** `1.2.3.4` → `1.2.3.4`; `::ffff:1.2.3.4` → `1.2.3.4`; `2001:db8:1:2:3::4` → `2001:db8:1:2::/64`. */
export function addressBucket(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const [head = '', tail = ''] = address.toLowerCase().split('%')[0]!.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = address.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => String(parseInt(g, 16).toString(16)))
    .join(':')}::/64`;
}
