// The address ranges inside a cluster and its hosts, which what tenants write may never aim
// Slipway at: outbound calls refuse them (operator/outbound/address-guard.ts) and build pods'
// NetworkPolicy leaves them out of "the internet" (rules/build-network-policy.ts).
/**
 * Never connected to unless allowed: this host, link-local (cloud metadata at 169.254.169.254),
 * private and shared ranges (where clusters put pods and Services), unique-local, and addresses
 * that are not one host (unspecified, multicast, broadcast, reserved).
 */
export const INSIDE_RANGES: readonly string[] = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '224.0.0.0/4',
  '240.0.0.0/4',
  // IPv6 with an IPv4 address inside that this list does not unwrap: IPv4-compatible (and with it
  // :: and ::1), SIIT, 6to4; all deprecated or translation-only, none a public web host.
  '::/96',
  '::ffff:0:0:0/96',
  '2002::/16',
  '64:ff9b:1::/48',
  '100::/64',
  'fc00::/7',
  'fe80::/10',
  'ff00::/8',
];
