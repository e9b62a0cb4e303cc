// The Cloudflare Worker (wasm/cfworker) in wrangler dev: its data-free API answers exactly as
// `privopt account` (the Worker is Go compiled to WebAssembly in workerd, the command native
// Go: equal bytes also check that the accounting is bit-identical on both), it refuses
// bodies, other methods, unknown paths and invalid parameters with JSON errors, and it serves
// the app and the light curve widget with the security headers. ./build.sh test runs it after
// ./build.sh site.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import {
  artifacts, assertHeaders, collectErrors, env, launch, recordRequests, securityHeaders, startWorker,
} from './lib.mjs';

let worker;
let browser;
let headers; // the security headers every response must carry

before(async () => {
  headers = securityHeaders();
  worker = await startWorker();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await worker?.stop();
});

// account runs `privopt account` with flags and returns what it prints.
const account = (...flags) => execFileSync(env('PRIVOPT_BIN'), ['account', ...flags], { encoding: 'utf8' });

// request sends a raw HTTP request (fetch cannot send a GET with a body). A body is sent with
// its Content-Length, or chunked when chunked is true.
function request(method, target, body, chunked = false) {
  const framing = body === undefined ? {} : chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': Buffer.byteLength(body) };
  return new Promise((resolve, reject) => {
    const req = http.request(worker.url + target, { method, headers: framing }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const apiHeaders = { ...headers, 'content-type': 'application/json', 'access-control-allow-origin': '*' };

test('the API answers exactly as privopt account', async () => {
  for (const [target, flags] of [
    ['api/account?mu=1&eps=1', ['--mu', '1', '--eps', '1']],
    ['api/account?mu=0.7&eps=-1.5', ['--mu', '0.7', '--eps', '-1.5']],
    ['api/account?mu=2&delta=1e-6', ['--mu', '2', '--delta', '1e-6']],
    ['api/account?mu=30&delta=1e-300', ['--mu', '30', '--delta', '1e-300']],
    ['api/account?eps=1&delta=1e-5&sensitivity=1', ['--eps', '1', '--delta', '1e-5', '--sensitivity', '1']],
    ['api/account?compose-mu=0.3,0.4&delta=1e-6', ['--compose-mu', '0.3,0.4', '--delta', '1e-6']],
    ['api/account?tradeoff&mu=1&alpha=0.05', ['--tradeoff', '--mu', '1', '--alpha', '0.05']],
    ['api/account?pure-eps=1&eps=0.5', ['--pure-eps', '1', '--eps', '0.5']],
    ['api/calibrate?eps=1&delta=1e-5', ['--eps', '1', '--delta', '1e-5']],
    ['api/calibrate?eps=0.5&delta=1e-6&sensitivity=0.02', ['--eps', '0.5', '--delta', '1e-6', '--sensitivity', '0.02']],
  ]) {
    const res = await fetch(worker.url + target);
    const text = await res.text();
    assert.equal(res.status, 200, `${target}: ${text}`);
    assertHeaders(res.headers, { ...apiHeaders, 'cache-control': 'public, max-age=3600' }, target);
    assert.equal(text, account(...flags), `${target} differs from privopt account ${flags.join(' ')}`);
  }

  const res = await fetch(worker.url + 'api/curve?mu=1.5&eps=2&delta=1e-6');
  assert.equal(res.status, 200);
  const curve = await res.json();
  assert.equal(curve.mu, 1.5);
  assert.deepEqual(curve.at_epsilon, JSON.parse(account('--mu', '1.5', '--eps', '2')));
  assert.deepEqual(curve.at_delta, JSON.parse(account('--mu', '1.5', '--delta', '1e-6')));
  assert.equal(curve.meets_target, false); // δ(2) of 1.5-GDP is 0.129
  assert.equal(curve.privacy_curve.length, 101);
  assert.equal(curve.tradeoff_curve.length, 101);
  for (const i of [0, 3, 17, 50, 100]) {
    const p = curve.privacy_curve[i];
    assert.equal(p.epsilon, i / 10);
    assert.equal(p.delta, JSON.parse(account('--mu', '1.5', '--eps', String(p.epsilon))).delta, `δ(${p.epsilon})`);
  }
  for (const i of [0, 1, 5, 50, 99, 100]) {
    const p = curve.tradeoff_curve[i];
    assert.equal(p.alpha, i / 100);
    assert.equal(p.tradeoff, JSON.parse(account('--tradeoff', '--mu', '1.5', '--alpha', String(p.alpha))).tradeoff, `T(${p.alpha})`);
  }
});

test('the API refuses bodies, other methods, unknown paths and invalid parameters', async () => {
  const csv = 'age,income\n34,51000\n';
  for (const [method, target, body, status, message, chunked] of [
    ['GET', 'api/curve?mu=1', csv, 413, /accepts no request body/],
    ['GET', 'api/account?mu=1&eps=1', csv, 413, /accepts no request body/, true],
    ['POST', 'api/curve?mu=1', csv, 405, /only answers GET and HEAD/],
    ['POST', 'api/account?mu=1&eps=1', csv, 405, /only answers GET and HEAD/, true],
    ['PUT', 'api/account?mu=1&eps=1', undefined, 405, /method PUT/],
    ['GET', 'api/curves?mu=1', undefined, 404, /no such path/],
    ['GET', 'no/such/file.js', undefined, 404, /no such path/],
    ['GET', 'api/curve?mu=-1', undefined, 400, /mu must be positive/],
    ['GET', 'api/curve?mu=1&mu=2', undefined, 400, /given 2 times/],
    ['GET', 'api/calibrate?eps=1', undefined, 400, /calibrate needs eps and delta/],
    ['GET', 'api/calibrate?eps=1&delta=1e-5&sensitivity=NaN', undefined, 400, /sensitivity must be a finite number/],
    ['GET', 'api/account?mu=1&eps=1&delta=0.1', undefined, 400, /"delta" does not go with/],
    ['GET', 'api/account', undefined, 400, /nothing to compute/],
  ]) {
    const what = `${method} /${target}`;
    const res = await request(method, target, body, chunked);
    assert.equal(res.status, status, `${what}: ${res.text}`);
    assertHeaders(res.headers, { ...apiHeaders, 'cache-control': 'no-store' }, what);
    if (status === 405) assert.equal(res.headers.allow, 'GET, HEAD', what);
    assert.match(JSON.parse(res.text).error, message, what);
  }
  const head = await request('HEAD', 'api/curve?mu=1');
  assert.equal(head.status, 200);
  assert.equal(head.text, '');
  assertHeaders(head.headers, apiHeaders, 'HEAD /api/curve');
});

test('the app and the curve widget load through the Worker, with the security headers', async () => {
  const context = await browser.newContext();
  const requests = recordRequests(context);
  const page = await context.newPage();
  const errors = collectErrors(page);
  const wasmResponse = page.waitForResponse((r) => r.url() === worker.url + 'app.wasm');

  const response = await page.goto(worker.url);
  await page.waitForSelector('html[data-ready="true"]', { timeout: 30000 });
  assert.match(await page.textContent('#engine-status'), /^ready/);
  assert.ok((await page.getAttribute('#curve path.series-0', 'd')).length > 100, 'the privacy curve is drawn');
  assert.equal(await page.textContent('#delta-at-eps'), '0.1269');
  assertHeaders(await response.allHeaders(), headers, 'the page');
  const wasm = await wasmResponse;
  assertHeaders(await wasm.allHeaders(), { ...headers, 'content-type': 'application/wasm' }, 'app.wasm');

  // An old ?embed=curve link goes to the light widget, whose module the Worker serves too.
  const widgetWasm = page.waitForResponse((r) => r.url() === worker.url + 'widget.wasm');
  await page.goto(worker.url + '?embed=curve&mu=2&eps=0.5');
  await page.waitForSelector('html[data-ready="true"]', { timeout: 30000 });
  // Cloudflare's asset layer may drop the .html of widget.html (its html_handling).
  assert.match(page.url(), /\/widget(\.html)?\?embed=curve&mu=2&eps=0\.5$/);
  assert.equal(await page.inputValue('#mu'), '2');
  assert.equal(await page.textContent('#delta-at-eps'), '0.5992'); // δ(0.5) of 2-GDP = 0.59919
  assert.equal(await page.$('#data'), null, 'the app is loaded instead of the widget');
  assertHeaders(await (await widgetWasm).allHeaders(), { ...headers, 'content-type': 'application/wasm' }, 'widget.wasm');
  await page.screenshot({ path: path.join(artifacts(), 'worker-embed.png'), fullPage: true });

  for (const r of requests) {
    assert.ok(r.url.startsWith(worker.origin + '/'), `request to another origin: ${r.url}`);
  }
  assert.deepEqual(errors, []);
  await context.close();
});
