import { parseHTML } from 'linkedom';
for (const depth of [1000, 10000, 100000, 400000]) {
  const html = '<html><body>' + '<div>'.repeat(depth) + 'x' + '</div>'.repeat(depth) + '</body></html>';
  let t = performance.now();
  const { document } = parseHTML(html);
  const t1 = performance.now() - t;
  t = performance.now();
  const n = document.querySelectorAll('*').length;
  const t2 = performance.now() - t;
  t = performance.now();
  const txt = document.body?.textContent?.length;
  const t3 = performance.now() - t;
  console.log(depth, html.length, 'parse', t1.toFixed(0), 'qsa', n, t2.toFixed(0), 'text', txt, t3.toFixed(0));
}
// many elements flat
const flat = '<html><body>' + '<p>a</p>'.repeat(250000) + '</body></html>';
let t = performance.now(); const { document } = parseHTML(flat); console.log('flat parse', flat.length, (performance.now()-t).toFixed(0));
t = performance.now(); console.log(document.querySelectorAll('*').length, (performance.now()-t).toFixed(0));
