// The page in headless Chromium: the privacy-curve widget (drive the μ, ε and δ inputs, check
// the curves and the numbers), one fit of the demo from a link to its released model in use and
// downloaded, and that the page talks to nobody but its own origin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { artifacts, collectErrors, recordRequests, serveAndLaunch } from './lib.mjs';

const env = serveAndLaunch(); // env.server, env.browser

test('the page draws the curves, updates them as you type, and stays on its origin', async () => {
  const context = await env.browser.newContext();
  const requests = recordRequests(context);
  const page = await context.newPage();
  const errors = collectErrors(page);

  await page.goto(env.server.url);
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
  assert.equal(await page.inputValue('#mu'), '0.236704'); // the largest μ for (1, 10⁻⁶): 0.2367044

  // Invalid input: an error next to the field, and no number or curve until it is corrected.
  await page.fill('#mu', '-3');
  await page.waitForSelector('#mu-error');
  assert.match(await text('#mu-error'), /positive/);
  assert.equal(await page.getAttribute('#mu', 'aria-invalid'), 'true');
  await page.waitForSelector('#curve', { state: 'detached' });
  assert.equal(await page.$('#delta-at-eps'), null, 'a number is shown for an invalid μ');
  assert.equal(await text('#curve-problem'), 'No curve is drawn while μ is invalid: correct it above.');
  await page.fill('#delta', '2');
  await page.waitForSelector('#delta-error');
  await page.fill('#delta', '1e-6');
  await page.fill('#mu', '1');
  await page.waitForSelector('#mu-error', { state: 'detached' });
  await page.waitForSelector('#delta-error', { state: 'detached' });
  await page.waitForSelector('#curve');
  assert.equal(await text('#delta-at-eps'), '0.1269');

  await page.screenshot({ path: path.join(artifacts(), 'page.png'), fullPage: true });
  await page.setViewportSize({ width: 360, height: 800 });
  await page.screenshot({ path: path.join(artifacts(), 'page-360.png'), fullPage: true });
  await page.waitForTimeout(500);

  const urls = requests.map((r) => r.url);
  for (const url of urls) {
    assert.ok(url.startsWith(env.server.origin + '/'), `request to another origin: ${url}`);
  }
  assert.ok(urls.includes(env.server.origin + '/app.wasm'), 'the module was fetched: ' + urls.join(' '));
  assert.equal(urls.filter((u) => u.endsWith('.wasm')).length, 1, 'app.wasm is fetched once (the worker reuses it)');
  assert.deepEqual(requests.slice(loadedCount).map((r) => r.url), [], 'requests after the page finished loading');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the demo fitted with noisy-gd: the model predicts a typed row, and downloads as a release file with its schema', async () => {
  const context = await env.browser.newContext({ acceptDownloads: true });
  const requests = recordRequests(context);
  const page = await context.newPage();
  const errors = collectErrors(page);
  // The link loads the demo and chooses noisy-gd with a small number of steps.
  await page.goto(env.server.url + '?data=demo&mech=noisy-gd&opt.MaxSteps=50');
  await page.waitForSelector('html[data-ready="true"]', { timeout: 30000 });
  const loadedCount = requests.length;
  await page.waitForSelector('#plans[aria-busy="false"] #plan-noisy-gd.chosen td.time', { timeout: 30000 });
  // The default settings spend a fifth of the budget on private ranges of the numeric columns.
  assert.equal(await page.inputValue('#scale-share'), '20');
  assert.match(await page.textContent('#scale-share-help'), /privopt estimates\s+where each column's values lie, privately/);
  await page.click('#run-button');
  await page.waitForSelector('#use-model', { timeout: 60000 });

  // The results state each scaled column's ranges in its units, and what they cost.
  const ranges = await page.textContent('#ranges-text');
  assert.match(ranges, /clipped and rescaled the column to that range: age from \[17, 90\] to \[[^\]]+\]; education-num from \[1, 16\] to \[[^\]]+\]; capital-gain from \[0, 99999\] to \[[^\]]+\]; capital-loss from \[0, 99999\] to \[[^\]]+\]; hours-per-week from \[1, 99\] to \[[^\]]+\]\./);
  assert.match(ranges, /Every run's model uses the same ranges\. They cost 20 % of the budget: on their own they are \(ε = 0\.2, δ = 2 × 10⁻⁷\)-differentially private, and the release's guarantee counts them once\./);
  assert.match(await page.textContent('#released'), /with the private ranges of the 5 scaled columns/);

  // The panel predicts as the person types: a refused value names its column, a valid one
  // gives the label and the probability of each class.
  const result = () => page.textContent('#use-result');
  assert.equal(await page.textContent('label[for="use-0"]'), 'age, from 17 to 90');
  await page.fill('#use-0', 'old');
  await page.waitForFunction(() => /^No prediction: column "age"/.test(document.querySelector('#use-result').textContent));
  assert.equal(await page.getAttribute('#use-0', 'aria-invalid'), 'true');
  await page.fill('#use-0', '52');
  await page.selectOption('#use-7', 'Female');
  await page.fill('#use-8', '0');
  await page.waitForFunction(() => document.querySelector('#use-result').textContent.startsWith('Prediction of "Y": '));
  assert.match(await result(), /^Prediction of "Y": (<=50K|>50K) \(p\(<=50K\) = \d+\.\d %, p\(>50K\) = \d+\.\d %\)$/);
  assert.match(await page.textContent('#use-model'), /nothing is sent anywhere.*private release.*your own data/s);

  // Download: a privopt-release/2 file with the schema, the encoding and the model.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  const saved = JSON.parse(readFileSync(await download.path(), 'utf8'));
  assert.equal(saved.format, 'privopt-release/2');
  assert.deepEqual(saved.schema.columns.map((c) => c.name).slice(0, 3), ['age', 'workclass', 'education-num']);
  assert.equal(saved.schema.columns[0].min, 17);
  assert.equal(saved.settings.mechanism, 'noisy-gd');
  assert.equal(saved.models.length, 1);
  assert.equal(saved.models[0].model.weights.length, saved.encoding.features.length);
  // The private ranges, once, with the schema as used and the settings' share.
  assert.equal(saved.settings.scale_share, 0.2);
  assert.equal(saved.private_ranges.intervals.length, 5);
  assert.equal(saved.private_ranges.report.target.epsilon, 0.2);
  const age = saved.schema.columns[0].private_range;
  assert.ok(age && age.lo >= 0 && age.lo < age.hi && age.hi <= 1, 'age has its private range: ' + JSON.stringify(age));
  assert.match(saved.encoding.description, /private range/);
  assert.doesNotMatch(JSON.stringify(saved), /"diagnostics"|"train_accuracy"/);
  await page.locator('#use-model').screenshot({ path: path.join(artifacts(), 'page-use-model.png') });

  for (const r of requests) assert.ok(r.url.startsWith(env.server.origin + '/'), `request to another origin: ${r.url}`);
  assert.deepEqual(requests.slice(loadedCount).map((r) => r.url), [], 'requests after the page finished loading');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the server sends the security headers, wasm as application/wasm, and gzip', async () => {
  const res = await fetch(env.server.url + 'app.wasm', { headers: { 'Accept-Encoding': 'gzip' } });
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
