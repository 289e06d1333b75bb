/**
 * A hostile site in its own process, for the proxy bench: the cited page and five same-site links,
 * each 2 MB of "<". Run with tsx through `fork`; sends `{ port, ca }` to its parent, and stops when
 * the parent disconnects. Loopback only. Its own process, so that serving the pages over TLS is not
 * counted as the proxy's stall.
 */
import { page, startTestWeb } from './helpers/test-web.ts';

const web = await startTestWeb();
const hostile = `<!doctype html><html><head><title>Hostile</title></head><body><p>${'<'.repeat(2_000_000)}</p>${Array.from({ length: 5 }, (_, i) => `<a href="/hostile/${i}">${i}</a>`).join('')}</body></html>`;
web.route('site.example', '/hostile', page(hostile));
for (let i = 0; i < 5; i++) web.route('site.example', `/hostile/${i}`, page(hostile));
process.send?.({ port: web.port, ca: web.pki.ca });
process.on('disconnect', () => void web.close().then(() => process.exit(0)));
