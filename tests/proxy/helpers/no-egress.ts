/**
 * Test safety net: once imported, any TCP connection to an address outside 127.0.0.0/8 and ::1, and
 * any system DNS lookup of a name other than localhost, throws instead of leaving the machine — even
 * when the code under test is wrong. Import it first in every proxy test file that does I/O.
 */
import dns from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

const GUARD = Symbol.for('nexus.tests.no-egress');

function loopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.startsWith('127.') || h === '::1' || h.startsWith('::ffff:127.');
}

/** Extracts the target of a `Socket#connect` call, in any of its argument shapes. */
function target(args: unknown[]): { host?: string; path?: string } {
  let first = args[0];
  if (Array.isArray(first)) first = first[0];
  if (typeof first === 'object' && first !== null) {
    const o = first as { host?: unknown; path?: unknown };
    return { host: typeof o.host === 'string' ? o.host : 'localhost', ...(typeof o.path === 'string' ? { path: o.path } : {}) };
  }
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    return { host: typeof args[1] === 'string' ? args[1] : 'localhost' };
  }
  if (typeof first === 'string') return { path: first };
  return { host: 'localhost' };
}

const proto = net.Socket.prototype as unknown as Record<symbol | string, unknown>;
if (!proto[GUARD]) {
  proto[GUARD] = true;
  const original = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
    const { host, path } = target(args);
    if (path === undefined && host !== undefined && !loopback(host)) {
      throw new Error(`test egress guard: a connection to ${host} was attempted and blocked`);
    }
    return (original as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof net.Socket.prototype.connect;

  const blockLookup = (name: string): Error => new Error(`test egress guard: a DNS lookup of ${name} was attempted and blocked`);
  const originalLookup = dns.lookup;
  dns.lookup = function guardedLookup(hostname: string, ...rest: unknown[]) {
    if (!loopback(hostname)) throw blockLookup(hostname);
    return (originalLookup as (...a: unknown[]) => unknown)(hostname, ...rest);
  } as typeof dns.lookup;
  const originalPromiseLookup = dns.promises.lookup;
  dns.promises.lookup = async function guardedPromiseLookup(hostname: string, ...rest: unknown[]) {
    if (!loopback(hostname)) throw blockLookup(hostname);
    return (originalPromiseLookup as (...a: unknown[]) => Promise<unknown>)(hostname, ...rest);
  } as typeof dns.promises.lookup;
  for (const method of ['resolve', 'resolve4', 'resolve6', 'resolveAny'] as const) {
    (dns as unknown as Record<string, unknown>)[method] = () => {
      throw new Error(`test egress guard: dns.${method} blocked`);
    };
    (dns.promises as unknown as Record<string, unknown>)[method] = async () => {
      throw new Error(`test egress guard: dns.promises.${method} blocked`);
    };
  }
  syncBuiltinESMExports();
}
