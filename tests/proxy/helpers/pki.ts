import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A throwaway certificate authority and one server certificate it signed. */
export interface TestPki {
  /** PEM of the test CA: what the fetcher is told to trust. */
  ca: string;
  /** PEM key and certificate of the test server. */
  key: string;
  cert: string;
  /** PEM of a second, untrusted CA's server certificate and key (for the "wrong CA" test). */
  rogueKey: string;
  rogueCert: string;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

function issue(dir: string, prefix: string, names: readonly string[], ips: readonly string[]): void {
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      `${prefix}ca.key`,
      '-out',
      `${prefix}ca.crt`,
      '-days',
      '2',
      '-subj',
      `/CN=Nexus ${prefix}test CA`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  openssl(
    [
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      `${prefix}srv.key`,
      '-out',
      `${prefix}srv.csr`,
      '-subj',
      '/CN=nexus-test-site',
    ],
    dir,
  );
  const san = [...names.map((n) => `DNS:${n}`), ...ips.map((ip) => `IP:${ip}`)].join(',');
  writeFileSync(
    join(dir, `${prefix}ext.cnf`),
    `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n`,
  );
  openssl(
    [
      'x509',
      '-req',
      '-in',
      `${prefix}srv.csr`,
      '-CA',
      `${prefix}ca.crt`,
      '-CAkey',
      `${prefix}ca.key`,
      '-CAcreateserial',
      '-out',
      `${prefix}srv.crt`,
      '-days',
      '2',
      '-extfile',
      `${prefix}ext.cnf`,
    ],
    dir,
  );
}

/**
 * Generates, with Debian's `openssl`, a test CA and a server certificate for `names` and `ips`,
 * plus a look-alike certificate from a second CA that is never trusted. Files live in a temp dir
 * that is removed before returning.
 */
export function makeTestPki(names: readonly string[], ips: readonly string[] = []): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'nexus-proxy-pki-'));
  try {
    issue(dir, '', names, ips);
    issue(dir, 'rogue-', names, ips);
    const read = (f: string): string => readFileSync(join(dir, f), 'utf8');
    return { ca: read('ca.crt'), key: read('srv.key'), cert: read('srv.crt'), rogueKey: read('rogue-srv.key'), rogueCert: read('rogue-srv.crt') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
