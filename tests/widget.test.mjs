// The light curve widget (widget.html, widget.wasm) in headless Chromium, embedded in a page of
// another origin as docs/app.md shows: it renders, downloads its own small module only (under
// the budget of build.sh), makes no request after it has loaded, is legible in the documented
// 720 × 560 frame and fits a 360 px one, shows bad parameters honestly, and opens on the app's
// target in neutral words.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { artifacts, collectErrors, launch, recordRequests, startCoursePage, startServer } from './lib.mjs';

// widgetBudget is build.sh's WIDGET_WASM_BUDGET: the most bytes widget.wasm may weigh, gzip.
const widgetBudget = Number(/^WIDGET_WASM_BUDGET=(\d+)$/m.exec(readFileSync(new URL('../build.sh', import.meta.url), 'utf8'))[1]);

let server;
let course;
let browser;

before(async () => {
  server = await startServer();
  // The snippet of docs/app.md, with privopt served from another origin (another port).
  course = await startCoursePage(`<!doctype html><html lang="en"><title>A course page</title><link rel="icon" href="data:,">
<h1>Week 3: Gaussian differential privacy</h1>
<iframe src="${server.url}widget.html?mu=2&amp;eps=0.5&amp;delta=1e-6"
        title="Privacy curves of Gaussian differential privacy"
        width="720" height="560" loading="lazy"></iframe>`);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  await course?.stop();
});

// smallestText returns the smallest font size, in CSS pixels as drawn, of the plots' texts
// (tick labels, legends, axis labels and titles).
function smallestText(frame) {
  return frame.evaluate(() => Math.min(...[...document.querySelectorAll('svg.plot text')].map(
    (t) => parseFloat(getComputedStyle(t).fontSize) * t.ownerSVGElement.getScreenCTM().a)));
}

test('in another origin\'s iframe: it renders, fetches widget.wasm only, under its budget, and nothing after it has loaded', async () => {
  const context = await browser.newContext({ viewport: { width: 800, height: 800 } });
  const requests = recordRequests(context);
  const page = await context.newPage();
  const errors = collectErrors(page);
  const wasmResponse = page.waitForResponse((r) => r.url().endsWith('.wasm'));
  await page.goto(course.url);
  const frame = await (await page.waitForSelector('iframe')).contentFrame();
  await frame.waitForSelector('html[data-ready="true"]', { timeout: 30000 });
  const loaded = requests.length;

  assert.equal(await frame.evaluate(() => location.origin), server.origin);
  assert.notEqual(server.origin, course.origin);
  assert.equal(await page.evaluate(() => document.querySelector('iframe').contentDocument), null, 'the course page cannot read the widget: another origin');
  assert.equal(await frame.inputValue('#mu'), '2');
  assert.equal(await frame.inputValue('#eps'), '0.5');
  assert.equal(await frame.inputValue('#delta'), '1e-6');
  assert.equal(await frame.textContent('#delta-at-eps'), '0.5992'); // δ(0.5) of 2-GDP = Φ(0.75) − e^0.5·Φ(−1.25) = 0.59919
  assert.equal(await frame.textContent('#eps-at-delta'), '11'); // ε(10⁻⁶) of 2-GDP = 10.997
  assert.ok((await frame.getAttribute('#curve path.series-0', 'd')).length > 100, 'the privacy curve is drawn');
  assert.ok((await frame.getAttribute('#tradeoff path.series-0', 'd')).length > 100, 'the tradeoff curve is drawn');

  // Its only module is widget.wasm, sent compressed, within the budget.
  const wasm = await wasmResponse;
  assert.deepEqual(requests.map((r) => r.url).filter((u) => u.endsWith('.wasm')), [server.url + 'widget.wasm']);
  const encoding = (await wasm.allHeaders())['content-encoding'];
  assert.ok(encoding === 'br' || encoding === 'gzip', `widget.wasm is sent with Content-Encoding ${encoding}`);
  const { responseBodySize } = await wasm.request().sizes();
  assert.ok(responseBodySize > 100000 && responseBodySize <= widgetBudget,
    `widget.wasm downloaded ${responseBodySize} bytes (${encoding}); budget ${widgetBudget}`);

  // Legible when projected: 720 px wide, every label of the plots is drawn at 12 px or more;
  // and the widget fits the documented 720 × 560 frame.
  const smallest = await smallestText(frame);
  assert.ok(smallest >= 12, `the plots' smallest text is ${smallest.toFixed(1)} px in a 720 px frame`);
  const height = await frame.evaluate(() => document.documentElement.scrollHeight);
  assert.ok(height <= 560, `the widget is ${height} px high in the 720 × 560 frame`);
  await page.screenshot({ path: path.join(artifacts(), 'widget-720.png') });

  // Typing and "Use it" compute in the page: no request.
  await frame.fill('#mu', '1');
  await frame.waitForFunction(() => document.querySelector('#delta-at-eps').textContent === '0.2384'); // δ(0.5) of 1-GDP = 0.5 − e^0.5·Φ(−1)
  await frame.click('#use-largest-mu');
  await frame.waitForFunction(() => document.querySelector('#verdict').textContent.includes('meets the target'));
  await frame.fill('#delta', 'x');
  await frame.waitForSelector('#delta-error');
  await page.waitForTimeout(500);
  assert.deepEqual(requests.slice(loaded).map((r) => r.url), [], 'requests after the widget had loaded');
  for (const r of requests) {
    assert.ok(r.url.startsWith(server.origin + '/') || r.url === course.url, `a request to a third origin: ${r.url}`);
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test('a ?embed=curve link to the app goes to the widget before app.wasm is fetched', async () => {
  const context = await browser.newContext();
  const requests = recordRequests(context);
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(server.url + '?embed=curve&mu=2&eps=0.5');
  await page.waitForSelector('html[data-ready="true"]', { timeout: 30000 });
  assert.equal(page.url(), server.url + 'widget.html?embed=curve&mu=2&eps=0.5');
  assert.equal(await page.inputValue('#mu'), '2');
  assert.equal(await page.inputValue('#delta'), '1e-6', 'the default δ');
  assert.equal(await page.textContent('#delta-at-eps'), '0.5992');
  const urls = requests.map((r) => r.url);
  assert.deepEqual(urls.filter((u) => u.endsWith('.wasm')), [server.url + 'widget.wasm'], urls.join(' '));
  assert.ok(!urls.some((u) => u.includes('/demo/')), 'the demo data was fetched');
  assert.deepEqual(errors, []);
  await context.close();
});

test('bad parameters show their errors, and no curve or number is drawn until they are corrected', async () => {
  const context = await browser.newContext({ viewport: { width: 720, height: 680 } });
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(server.url + 'widget.html?mu=abc&eps=-1&delta=2');
  await page.waitForSelector('html[data-ready="true"]', { timeout: 30000 });
  assert.equal(await page.inputValue('#mu'), 'abc', 'the text is kept as given');
  assert.equal(await page.textContent('#mu-error'), 'Enter a number.');
  assert.equal(await page.textContent('#eps-error'), 'ε must be positive.');
  assert.equal(await page.textContent('#delta-error'), 'δ must be between 0 and 1 (exclusive).');
  for (const id of ['mu', 'eps', 'delta']) {
    assert.equal(await page.getAttribute('#' + id, 'aria-invalid'), 'true', id);
  }
  assert.equal(await page.textContent('#curve-problem'), 'No curve is drawn while μ, ε and δ are invalid: correct them above.');
  assert.equal(await page.isVisible('#plots'), false, 'plots are shown for invalid parameters');
  assert.equal(await page.isVisible('#results'), false, 'numbers are shown for invalid parameters');
  assert.equal(await page.$('#curve path'), null, 'a curve was drawn for invalid parameters');
  await page.screenshot({ path: path.join(artifacts(), 'widget-bad.png') });

  // One field corrected: still nothing drawn for the others'.
  await page.fill('#mu', '1');
  await page.waitForFunction(() => /ε and δ are invalid/.test(document.querySelector('#curve-problem').textContent));
  assert.equal(await page.isVisible('#mu-error'), false);
  assert.equal(await page.isVisible('#plots'), false);
  await page.fill('#eps', '1');
  await page.fill('#delta', '1e-6');
  await page.waitForSelector('#plots', { state: 'visible' });
  assert.equal(await page.isVisible('#curve-problem'), false);
  assert.equal(await page.textContent('#delta-at-eps'), '0.1269'); // δ(1) of 1-GDP
  assert.ok((await page.getAttribute('#curve path.series-0', 'd')).length > 100, 'the curve is drawn once the fields are valid');

  // Broken again: the curves go, rather than stay as they were.
  await page.fill('#delta', '0');
  await page.waitForSelector('#plots', { state: 'hidden' });
  assert.equal(await page.textContent('#curve-problem'), 'No curve is drawn while δ is invalid: correct it above.');
  assert.deepEqual(errors, []);
  await context.close();
});

test('it opens on the app\'s target in neutral words, and fits a 360 px frame legibly', async () => {
  const context = await browser.newContext({ viewport: { width: 720, height: 680 } });
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(server.url + 'widget.html');
  await page.waitForSelector('html[data-ready="true"]', { timeout: 30000 });
  assert.equal(await page.inputValue('#mu'), '1');
  assert.equal(await page.inputValue('#eps'), '1');
  assert.equal(await page.inputValue('#delta'), '1e-6', "the app's δ");
  assert.equal(await page.textContent('#verdict'), '1-GDP does not meet the target (ε, δ).');
  const colours = await page.evaluate(() => [getComputedStyle(document.querySelector('#verdict')).color, getComputedStyle(document.body).color]);
  assert.equal(colours[0], colours[1], 'the verdict is coloured');
  assert.equal(await page.isVisible('#curve-problem'), false);

  await page.setViewportSize({ width: 360, height: 700 });
  const box = await page.evaluate(() => {
    const [curve, tradeoff] = ['#curve', '#tradeoff'].map((s) => document.querySelector(s).getBoundingClientRect());
    return { height: document.documentElement.scrollHeight, width: document.documentElement.scrollWidth, curveBottom: curve.bottom, tradeoffTop: tradeoff.top };
  });
  assert.ok(box.height <= 700, `the widget is ${box.height} px high at 360 px wide`);
  assert.ok(box.width <= 360, `the widget is ${box.width} px wide at 360 px`);
  assert.ok(box.tradeoffTop >= box.curveBottom, 'the plots are stacked');
  const smallest = await smallestText(page.mainFrame());
  assert.ok(smallest >= 12, `the plots' smallest text is ${smallest.toFixed(1)} px at 360 px wide`);
  await page.screenshot({ path: path.join(artifacts(), 'widget-360.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await context.close();
});
