// The static site of ./build.sh site, served from a sub-path (as a static host serves a site
// copied into a subdirectory): the page works there, so every URL it uses is relative; the
// precompressed files are sent; and an old ?embed=curve link there reaches the light widget
// inside another site's iframe.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import http from 'node:http';
import {
  artifacts, assertHeaders, collectErrors, env, launch, recordRequests, securityHeaders, startServer,
} from './lib.mjs';

const prefix = '/course/privopt/';
let server;
let browser;

before(async () => {
  server = await startServer(env('PRIVOPT_DIST'), prefix);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

test('the page works from a sub-path, with relative URLs only', async () => {
  const context = await browser.newContext();
  const requests = recordRequests(context);
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(server.url);
  await page.waitForSelector('html[data-ready="true"]', { timeout: 30000 });
  assert.match(await page.textContent('#engine-status'), /^ready/);
  assert.ok((await page.getAttribute('#curve path.series-0', 'd')).length > 100, 'the privacy curve is drawn');
  assert.ok(requests.length >= 7, 'the page, its scripts, styles and module were requested');
  for (const r of requests) {
    assert.ok(r.url.startsWith(server.origin + prefix), `a request outside ${prefix}: ${r.url}`);
  }
  assert.deepEqual(errors, []);
  await context.close();
});

// get fetches a file of the site with an Accept-Encoding, undecoded.
function get(file, acceptEncoding) {
  return new Promise((resolve, reject) => {
    http.get(server.url + file, { headers: { 'accept-encoding': acceptEncoding } }, (res) => {
      const chunks = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

test('the precompressed files are sent as written by ./build.sh site', async () => {
  const dist = env('PRIVOPT_DIST');
  for (const file of ['app.wasm', 'widget.wasm']) {
    const raw = readFileSync(path.join(dist, file));
    for (const [accept, encoding, decode] of [
      ['gzip, deflate, br', 'br', brotliDecompressSync],
      ['gzip', 'gzip', gunzipSync],
    ]) {
      const res = await get(file, accept);
      assert.equal(res.status, 200);
      assertHeaders(res.headers, { ...securityHeaders(), 'content-type': 'application/wasm', 'content-encoding': encoding }, accept);
      const ext = encoding === 'br' ? '.br' : '.gz';
      assert.ok(res.body.equals(readFileSync(path.join(dist, file + ext))), `${file}${ext} is sent as it is`);
      assert.ok(decode(res.body).equals(raw), `${file}${ext} decodes to ${file}`);
    }
  }
});

test('an old ?embed=curve link from a sub-path reaches the light widget there', async () => {
  const context = await browser.newContext({ viewport: { width: 800, height: 800 } });
  const requests = recordRequests(context);
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.setContent(`<iframe src="${server.url}?embed=curve&amp;mu=2&amp;eps=0.5&amp;delta=1e-6"
    title="Privacy curves of Gaussian differential privacy" width="720" height="680"></iframe>`);
  const frame = await (await page.waitForSelector('iframe')).contentFrame();
  await frame.waitForSelector('html[data-ready="true"]', { timeout: 30000 });
  assert.equal(frame.url(), server.url + 'widget.html?embed=curve&mu=2&eps=0.5&delta=1e-6');
  assert.equal(await frame.inputValue('#mu'), '2');
  assert.equal(await frame.textContent('#delta-at-eps'), '0.5992'); // δ(0.5) of 2-GDP = 0.59919
  const wasm = requests.map((r) => r.url).filter((u) => u.endsWith('.wasm'));
  assert.deepEqual(wasm, [server.url + 'widget.wasm'], 'the widget fetches its own module only');
  for (const r of requests) {
    assert.ok(r.url.startsWith(server.origin + prefix), `a request outside ${prefix}: ${r.url}`);
  }
  await page.screenshot({ path: path.join(artifacts(), 'embed.png') });
  assert.deepEqual(errors, []);
  await context.close();
});
