// The privacy-curve page: load it in headless Chromium, drive the μ, ε and δ inputs, check
// the curves and the numbers, and check that the page talks to nobody but its own origin.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { artifacts, collectErrors, launch, recordRequests, startServer } from './lib.mjs';

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

test('the page draws the curves, updates them as you type, and stays on its origin', async () => {
  const context = await browser.newContext();
  const requests = recordRequests(context);
  const page = await context.newPage();
  const errors = collectErrors(page);

  await page.goto(server.url);
  await page.waitForSelector('html[data-ready="true"]', { timeout: 30000 });
  assert.match(await page.textContent('#engine-status'), /^ready/);
  const loadedCount = requests.length;

  const curve = () => page.getAttribute('#curve path.series-0', 'd');
  const text = (sel) => page.textContent(sel);
  await page.fill('#mu', '2');
  await page.waitForFunction(() => document.querySelector('#delta-at-eps').textContent !== '0.1269');
  const atTwo = await curve();
  await page.fill('#mu', '1');
  await page.waitForFunction(() => document.querySelector('#delta-at-eps').textContent === '0.1269');
  assert.equal(await text('#delta-at-eps'), '0.1269'); // δ(1) of 1-GDP = 0.126936737...
  const atOne = await curve();
  assert.ok(atOne.length > 100, 'the curve path has points');
  assert.notEqual(atOne, atTwo, 'the plot changed when μ changed');
  assert.match(await text('#curve'), /10⁻⁶/, 'the privacy curve has a log axis');
  assert.match(await text('#tradeoff'), /perfect privacy 1 − α/);
  assert.match(await text('#verdict'), /does not meet/);

  // The target point moves with ε; "Use it" sets the largest μ that meets the target.
  const marker = () => page.getAttribute('#curve circle.marker', 'cx');
  const before1 = await marker();
  await page.fill('#eps', '3');
  await page.waitForFunction((cx) => document.querySelector('#curve circle.marker').getAttribute('cx') !== cx, before1);
  await page.fill('#eps', '1');
  await page.click('#use-largest-mu');
  await page.waitForFunction(() => document.querySelector('#verdict').textContent.includes('meets the target'));
  assert.equal(await page.inputValue('#mu'), '0.268051');

  // Invalid input: an error next to the field, the last valid curve kept.
  const valid = await curve();
  await page.fill('#mu', '-3');
  await page.waitForSelector('#mu-error');
  assert.match(await text('#mu-error'), /positive/);
  assert.equal(await page.getAttribute('#mu', 'aria-invalid'), 'true');
  assert.equal(await curve(), valid, 'an invalid μ keeps the last valid curve');
  await page.fill('#delta', '2');
  await page.waitForSelector('#delta-error');
  await page.fill('#delta', '1e-5');
  await page.fill('#mu', '1');
  await page.waitForSelector('#mu-error', { state: 'detached' });
  await page.waitForSelector('#delta-error', { state: 'detached' });

  await page.screenshot({ path: path.join(artifacts(), 'page.png'), fullPage: true });
  await page.setViewportSize({ width: 360, height: 800 });
  await page.screenshot({ path: path.join(artifacts(), 'page-360.png'), fullPage: true });
  await page.waitForTimeout(500);

  const urls = requests.map((r) => r.url);
  for (const url of urls) {
    assert.ok(url.startsWith(server.origin + '/'), `request to another origin: ${url}`);
  }
  assert.ok(urls.includes(server.origin + '/app.wasm'), 'the module was fetched: ' + urls.join(' '));
  assert.equal(urls.filter((u) => u.endsWith('.wasm')).length, 1, 'app.wasm is fetched once (the worker reuses it)');
  assert.deepEqual(requests.slice(loadedCount).map((r) => r.url), [], 'requests after the page finished loading');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the server sends the security headers, wasm as application/wasm, and gzip', async () => {
  const res = await fetch(server.url + 'app.wasm', { headers: { 'Accept-Encoding': 'gzip' } });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/wasm');
  assert.equal(res.headers.get('content-encoding'), 'gzip');
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
  const csp = res.headers.get('content-security-policy');
  assert.match(csp, /default-src 'self'/);
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'/);
  assert.doesNotMatch(csp, /https?:|unsafe-inline|'unsafe-eval'/);
  const bytes = new Uint8Array(await res.arrayBuffer()); // fetch decodes gzip
  assert.deepEqual([...bytes.slice(0, 4)], [0x00, 0x61, 0x73, 0x6d], 'a WebAssembly module');
});
