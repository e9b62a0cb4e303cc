// The app in headless Chromium: the demo fitted with every mechanism (report, diagnostics,
// plots), a long run that keeps the page responsive and is cancelled (leaving the page asks
// first while a run or results would be lost), malformed files whose
// errors appear next to their controls, a dropped file, several runs over several workers,
// the download of the release file and the shareable link, a private evaluation, files scored
// in the page and the downloaded ONNX model scoring the same rows in onnxruntime-node, a
// received release file used in a fresh page, and add/remove with its public number of rows N.
// Every test records the requests of its page: none may leave after the page has loaded, and
// nothing may be stored in the env.browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ort from 'onnxruntime-node';
import { artifacts, collectErrors, recordRequests, serveAndLaunch } from './lib.mjs';
import { feeds, maxDifference, readCSV, tolerance } from './onnx.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const env = serveAndLaunch(); // env.server, env.browser

// Fast settings per mechanism for the tests (each fit takes well under a second on the demo);
// a mechanism not listed runs with its defaults, which must be fast too.
const fast = {
  rem: { Sampler: 'mala', FastSteps: '100' },
};

// open loads the page (with a query) and resolves once the engine answers.
async function open(query = '', viewport = { width: 1280, height: 900 }) {
  const context = await env.browser.newContext({ viewport, acceptDownloads: true });
  const requests = recordRequests(context);
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(env.server.url + query);
  await page.waitForSelector('html[data-ready="true"]', { timeout: 30000 });
  return { context, page, requests, errors, loaded: requests.length };
}

// done checks that the page made no request after it loaded, stored nothing, logged no error,
// and that its address holds configuration only; then closes it.
async function done({ context, page, requests, errors, loaded }) {
  assert.deepEqual(requests.slice(loaded).map((r) => r.url), [], 'requests after the page finished loading');
  for (const r of requests) assert.ok(r.url.startsWith(env.server.origin + '/'), `a request to another origin: ${r.url}`);
  const stored = await page.evaluate(async () => ({
    local: localStorage.length,
    session: sessionStorage.length,
    idb: (await indexedDB.databases()).length,
    caches: (await caches.keys()).length,
    search: location.search,
  }));
  assert.deepEqual({ ...stored, search: undefined }, { local: 0, session: 0, idb: 0, caches: 0, search: undefined }, 'browser storage is empty');
  const keys = [...new URLSearchParams(stored.search).keys()];
  const config = new Set(['data', 'loss', 'lossp', 'mod', 'tilt', 'rho', 'rnorm', 'domain', 'radius', 'mech', 'eps', 'delta', 'nb', 'pn', 'runs', 'seed', 'holdout', 'eval', 'scale', 'schema']);
  for (const k of keys) assert.ok(config.has(k) || k.startsWith('opt.'), `the address holds ${k}`);
  assert.deepEqual(errors, []);
  await context.close();
}

// planned waits for the plans of the current choices.
async function planned(page) {
  await page.waitForSelector('#plans[aria-busy="false"] tbody td:is(.time, .unavailable)', { timeout: 30000 });
}

// useDemo loads the demo and waits for its plans.
async function useDemo(page) {
  await page.click('#use-demo');
  await page.waitForSelector('#dataset-summary', { timeout: 30000 });
  await planned(page);
}

// replanned runs change, which changes the choices, and waits for the plan of the new choices.
async function replanned(page, change) {
  const before = await page.getAttribute('#plans', 'data-plan');
  await change();
  await page.waitForFunction((b) => document.querySelector('#plans').getAttribute('data-plan') !== b, before);
  await planned(page);
}

// choose picks a mechanism and its fast settings (unfolding its settings, as a person would),
// and waits for its plan.
async function choose(page, name) {
  if (!(await page.isChecked(`#choose-${name}`))) await replanned(page, () => page.check(`#choose-${name}`));
  if (Object.keys(fast[name] || {}).length > 0 && !(await page.$eval('#advanced', (d) => d.open))) await page.click('#advanced > summary');
  for (const [option, value] of Object.entries(fast[name] || {})) {
    await replanned(page, async () => {
      if ((await page.getAttribute(`#option-${option}`, 'type')) === 'text') await page.fill(`#option-${option}`, value);
      else await page.selectOption(`#option-${option}`, value);
    });
  }
  await page.waitForSelector(`#plan-${name}.chosen`);
}

test('the demo fits with every mechanism, with its report, diagnostics and plots', async () => {
  const app = await open();
  const { page } = app;
  await useDemo(page);
  assert.match(await page.textContent('#dataset-summary'), /4000 training rows and 1000 held-out rows, 92 features/);
  assert.match(await page.textContent('#attribution'), /UCI Adult.*CC BY 4\.0/);
  assert.equal(await page.textContent('#preview tbody tr:first-child td:nth-child(2)'), 'State-gov');
  const names = await page.$$eval('#plans input[name="mechanism"]', (els) => els.map((e) => e.value));
  assert.ok(names.includes('rem'), 'REM is listed: ' + names);
  for (const name of names) {
    await choose(page, name);
    if (await page.$(`#plan-${name} .unavailable`)) {
      // A mechanism that cannot meet this budget (say, pure ε-DP ones at δ > 0) says why.
      assert.match(await page.textContent(`#plan-${name} .unavailable`), /Not available: \S/);
      continue;
    }
    const time = await page.textContent(`#plan-${name} .time`);
    assert.match(time, /^≈ /, `${name}: a predicted time`);
    assert.ok((await page.getAttribute('#privacy-curve path.series-0', 'd')).length > 100, `${name}: the privacy curve is drawn`);
    assert.ok(await page.$('#privacy-curve circle.marker'), `${name}: the target is marked`);
    assert.ok(await page.$('#privacy-tradeoff path.reference'), `${name}: perfect privacy is drawn`);
    await page.click('#run-button');
    await page.waitForSelector('#results', { timeout: 60000 });
    await page.waitForFunction(() => document.querySelector('#run-progress')?.value === 100);
    const statement = await page.textContent('#report-statement');
    assert.match(statement, /differentially private under the replace-one relation/, `${name}: ${statement}`);
    const report = await page.textContent('#report');
    assert.match(report, /Neighbouring relation\s*replace-one/);
    assert.match(report, /Sensitivity/);
    if (name === 'rem') assert.match(report, /mixing not certified/, 'REM in a fast mode says mixing is not certified');
    assert.match(await page.textContent('#results h3 .badge'), /not private/);
    assert.match(await page.textContent('#diagnostics'), /Held-out accuracy \(1000 rows\)\s*\d+\.\d %/);
    assert.equal(await page.$$eval('#weights tbody tr', (rows) => rows.length), 92);
  }
  await page.screenshot({ path: path.join(artifacts(), 'app-1280.png'), fullPage: true });
  await page.setViewportSize({ width: 360, height: 800 });
  await page.screenshot({ path: path.join(artifacts(), 'app-360.png'), fullPage: true });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(overflow <= 360, `the page fits 360 px: ${overflow}px wide`);
  await done(app);
});

// leaveAsks reports whether leaving the page would ask first: whether its beforeunload handlers
// cancel the event.
async function leaveAsks(page) {
  return page.evaluate(() => {
    const event = new Event('beforeunload', { cancelable: true });
    window.dispatchEvent(event);
    return event.defaultPrevented;
  });
}

test('a long run shows its progress, keeps the page responsive, and cancels', async (t) => {
  const app = await open();
  const { page } = app;
  await useDemo(page);
  assert.equal(await leaveAsks(page), false, 'leaving a page with no run and no results asks');
  await choose(page, 'rem');
  await replanned(page, () => page.selectOption('#option-Sampler', ''));
  // Its certified sampler's cost grows like (μ_GDP·n)²: on the demo it takes about 3 s at
  // ε = 1 in the page, too close to the cancellation below; about a minute at ε = 8.
  await replanned(page, () => page.fill('#budget-eps', '8'));
  assert.match(await page.textContent('#plan-rem td[data-label="guarantee"]'), /with a sampler within total variation/, 'the certified sampler');
  await page.evaluate(() => {
    window.longTasks = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.longTasks.push(e.duration); }).observe({ type: 'longtask' });
  });
  await page.click('#run-button');
  await page.waitForSelector('#cancel-button');
  assert.equal(await leaveAsks(page), true, 'leaving the page during a run does not ask');
  // A timer on the page keeps ticking and typing updates the page while the fit runs.
  await page.evaluate(() => { window.ticks = 0; window.ticker = setInterval(() => { window.ticks++; }, 50); });
  const before = await page.textContent('#plan-rem td[data-label="guarantee"]');
  await page.fill('#budget-eps', '2');
  await page.waitForFunction((b) => document.querySelector('#plan-rem td[data-label="guarantee"]').textContent !== b, before);
  // While the fit runs, the page renders its progress twice a second, and a render writes only
  // what changed: the progress and times, a few nodes. (Vugu's own renderer rewrote every
  // attribute and text of the page, over a thousand mutations a render.)
  await page.evaluate(() => {
    window.mutations = 0;
    window.mutationWatch = new MutationObserver((records) => { window.mutations += records.length; });
    window.mutationWatch.observe(document.body, { subtree: true, attributes: true, characterData: true, childList: true });
  });
  await page.waitForTimeout(1500);
  const ticks = await page.evaluate(() => window.ticks);
  assert.ok(ticks >= 10, `the page's timer ticked ${ticks} times in 1.5 s during the fit (30 when idle; a frozen page ticks at most once)`);
  const mutations = await page.evaluate(() => { window.mutationWatch.disconnect(); return window.mutations; });
  assert.ok(mutations > 0 && mutations < 200, `${mutations} DOM mutations in 1.5 s of progress`);
  const longTasks = await page.evaluate(() => window.longTasks);
  // Reported, not asserted (a timed assertion would fail on a loaded machine): the issue's
  // budget is no task over 100 ms while a fit runs.
  t.diagnostic(`main-thread tasks over 50 ms from Run to 1.5 s into the fit: ${longTasks.length}, the longest ${Math.round(Math.max(0, ...longTasks))} ms; ${mutations} DOM mutations in 1.5 s`);
  assert.match(await page.textContent('#elapsed'), /s$/);
  assert.match(await page.textContent('#remaining'), /about|estimating/);
  assert.equal(await page.getAttribute('#run-progress', 'max'), '100');
  await page.locator('#run').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(artifacts(), 'app-running.png') });
  await page.click('#cancel-button');
  await page.waitForFunction(() => /1 cancelled/.test(document.querySelector('label[for="run-progress"]').textContent), null, { timeout: 15000 });
  assert.equal(await page.$('#results'), null, 'a cancelled run releases nothing');
  assert.equal(await page.isEnabled('#run-button'), true);
  assert.equal(await leaveAsks(page), false, 'leaving after a cancelled run, with nothing to lose, asks');
  // The next run works (on a fresh worker if the cancelled one had to be stopped).
  await choose(page, 'rem');
  await page.click('#run-button');
  await page.waitForSelector('#results', { timeout: 60000 });
  assert.equal(await leaveAsks(page), true, 'leaving the page with its results does not ask');
  await page.evaluate(() => clearInterval(window.ticker));
  await done(app);
});

// upload sets the file input to a file made of text.
async function upload(page, name, text) {
  await page.setInputFiles('#file-input', { name, mimeType: 'text/csv', buffer: Buffer.from(text) });
}

// confirmEach confirms the values read from the data one by one, but for the last keep of
// them, checking after each that the data cannot be used yet.
async function confirmEach(page, keep = 0) {
  const confirms = '#schema-editor button.confirm';
  for (let n = await page.$$eval(confirms, (bs) => bs.length); n > keep; n--) {
    assert.equal(await page.isDisabled('#check-data'), true, `${n} values to confirm`);
    await page.click(confirms);
    await page.waitForFunction(([sel, left]) => document.querySelectorAll(sel).length === left, [confirms, n - 1]);
  }
}

test('malformed files show their errors next to the controls', async () => {
  const app = await open();
  const { page } = app;
  for (const [name, text, want] of [
    ['fields.csv', 'a,b,y\n1,2,yes\n3,no\n', /line 3: 2 fields, but the header has 3/],
    ['quote.csv', 'a,b,y\n1,2,yes\n1,"2,yes\n', /line 3, column "b": quoted field never closes/],
    ['empty.csv', 'a,b,y\n', /line 2: no data rows/],
    ['dup.csv', 'a,a,y\n1,2,yes\n', /duplicate column name "a"/],
    ['label.csv', 'a,y\n' + Array.from({ length: 60 }, (_, i) => `1,v${i}\n`).join(''), /the last column cannot be the label/],
  ]) {
    await upload(page, name, text);
    await page.waitForFunction((n) => document.querySelector('#load-error')?.textContent.length > 0 || false, name, { timeout: 15000 });
    assert.match(await page.textContent('#load-error'), want, name);
    assert.equal(await page.getAttribute('#file-input', 'aria-describedby'), 'load-error');
  }
  // An error beyond the rows the suggestion reads appears when the data is encoded: next to
  // the file and next to its column in the schema, with its line.
  const rows = Array.from({ length: 1200 }, (_, i) => `${i % 50},${i % 2 ? 'yes' : 'no'}\n`).join('');
  await upload(page, 'late.csv', 'x,y\n' + rows + 'abc,yes\n');
  await page.waitForSelector('#unconfirmed');
  assert.match(await page.textContent('#unconfirmed'), /4\s*values were suggested from your data/);
  assert.equal(await page.isDisabled('#check-data'), true, 'unconfirmed values block the check');
  assert.match(await page.textContent('.blockers'), /Confirm the 4 values/);
  assert.ok(await page.$('#confirm-min-0'), 'a confirm button beside the derived minimum');
  await page.fill('#min-0', '0,5'); // a decimal comma is refused in words, not only in red
  assert.match(await page.textContent('#min-error-0'), /a point for its decimals/);
  await page.fill('#min-0', '0'); // typing a public bound confirms it
  await page.waitForSelector('#confirm-min-0', { state: 'detached' });
  await confirmEach(page);
  await page.click('#check-data');
  await page.waitForSelector('#data-error');
  assert.match(await page.textContent('#data-error'), /line 1202, column "x": "abc" is not a number/);
  assert.match(await page.textContent('#column-data-error-0'), /"abc" is not a number/);
  await page.screenshot({ path: path.join(artifacts(), 'app-errors.png'), fullPage: true });
  // A schema error appears next to its column.
  await page.fill('#max-0', '-5');
  await page.waitForSelector('#column-error-0');
  assert.match(await page.textContent('#column-error-0'), /column "x": the range \[0, -5\] must be finite with min < max/);
  await done(app);
});

test('a dropped file is read in the worker, its decimal commas too, and each value suggested from it must be confirmed', async () => {
  const app = await open('', { width: 360, height: 800 });
  const { page } = app;
  await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.items.add(new File(['height;colour;y\n1,5;red;a\n2;blue;b\n2,5;red;a\n'], 'dropped.csv', { type: 'text/csv' }));
    document.querySelector('.dropzone').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await page.waitForSelector('#file-name');
  assert.equal(await page.textContent('#file-name'), 'dropped.csv');
  assert.equal(await page.textContent('#preview tbody tr:nth-child(2) td:nth-child(2)'), 'blue');
  assert.ok(await page.$('#schema-editor'), 'the schema editor is open while values are unconfirmed');
  assert.match(await page.textContent('#column-0'), /from your data: the smallest number read from your file/);
  // The file's decimal commas are read as such, and the page says so.
  assert.match(await page.textContent('#decimal-comma'), /read with a\s+decimal comma/);
  assert.match(await page.textContent('#label-column'), /The model will predict\s+y\s+\(the schema's label/);
  assert.equal(await page.$eval('#min-0', (i) => i.value), '1.5');
  assert.equal(await page.$('#confirm-all'), null, 'no confirming every value at once');
  assert.match(await page.textContent('#still-to-confirm'), /^Still to confirm: height \(minimum, maximum\); colour \(categories\); y \(positive values, negative values\)\.$/);
  await page.fill('#holdout', '0');
  // Each value has its own confirmation; with one left, neither the data nor the run can be used.
  await confirmEach(page, 1);
  assert.match(await page.textContent('#still-to-confirm'), /^Still to confirm: y \(negative values\)\.$/);
  assert.equal(await page.isDisabled('#check-data'), true);
  assert.match(await page.textContent('.blockers'), /Confirm the 1 values/);
  assert.match(await page.textContent('#run-blockers'), /Check the data/);
  await page.click('#run-button');
  assert.match(await page.textContent('#run-error'), /Check the data/);
  await page.click('#confirm-negative-2');
  await page.waitForSelector('#unconfirmed', { state: 'detached' });
  await page.click('#check-data');
  await page.waitForSelector('#dataset-summary');
  assert.match(await page.textContent('#dataset-summary'), /3 training rows and no held-out rows, 4 features/);
  await page.waitForSelector('#run-blockers', { state: 'detached', timeout: 30000 });
  assert.equal(await page.isEnabled('#run-button'), true);
  await page.screenshot({ path: path.join(artifacts(), 'app-schema-360.png'), fullPage: true });
  await done(app);
});

test('the columns a suggestion would ignore are listed with the reason, and none is left out without asking', async () => {
  const app = await open();
  const { page } = app;
  const rows = Array.from({ length: 60 }, (_, i) => `P${1000 + i},felt ${i} times better,${20 + (i % 40)},${i % 2 ? 'yes' : 'no'}\n`);
  await upload(page, 'patients.csv', 'patient,comment,age,y\n' + rows.join(''));
  await page.waitForSelector('#ignored');
  const items = await page.$$eval('#ignored li', (lis) => lis.map((li) => li.textContent));
  assert.equal(items.length, 2);
  assert.match(items[0], /^patient: it has more than 50 distinct texts in the rows read, like an identifier or free text\./);
  assert.match(items[1], /^comment: .*free text\..*Use it as categories/s);
  assert.match(await page.textContent('.blockers'), /Choose what to do with the 2 columns the suggestion would leave out/);
  await page.click('#leave-out-0'); // patient
  await page.waitForFunction(() => document.querySelectorAll('#ignored li').length === 1);
  // Using the free text as categories needs them typed: the schema says so next to the column.
  await page.click('#use-column-0'); // comment
  await page.waitForSelector('#ignored', { state: 'detached' });
  assert.equal(await page.$eval('#kind-1', (s) => s.value), 'categorical');
  await page.waitForSelector('#column-error-1');
  assert.equal(await page.isDisabled('#check-data'), true);
  await page.selectOption('#kind-1', 'ignore'); // the person changes their mind
  await page.waitForSelector('#column-error-1', { state: 'detached' });
  assert.doesNotMatch(await page.textContent('.blockers'), /Choose what to do/);
  await confirmEach(page);
  await page.fill('#holdout', '0');
  await page.click('#check-data');
  await page.waitForSelector('#dataset-summary');
  assert.match(await page.textContent('#dataset-summary'), /60 training rows and no held-out rows, 2 features/);
  await done(app);
});

test('several seeded runs spread over workers, compose, download, and the link reproduces the settings', async () => {
  const app = await open();
  const { page } = app;
  await useDemo(page);
  await choose(page, 'rem');
  await replanned(page, () => page.fill('#runs', '3'));
  await page.fill('#seed', '7');
  await page.waitForSelector('#seed-warning');
  await page.waitForSelector('#composed');
  assert.match(await page.textContent('#composed'), /Releasing all 3 models, with the private ranges they share, together is \(ε = [\d.]+, δ = 1 × 10⁻⁶\)-differentially private/);
  await page.waitForFunction(() => document.querySelectorAll('#privacy-curve path.series-2').length === 1);
  await page.click('#run-button');
  await page.waitForSelector('#results', { timeout: 60000 });
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  const label = await page.textContent('label[for="run-progress"]');
  assert.match(label, /3 of 3 runs: 3 done/);
  assert.match(label, cores >= 2 ? new RegExp(`on ${Math.min(cores, 3)} Web Workers at once`) : /in one Web Worker/);
  assert.match(await page.textContent('#spread'), /held-out accuracy over 3 runs: mean \d/);
  assert.match(await page.textContent('#report'), /seeded: not private/);
  assert.match(await page.textContent('#report-verdict'), /Not private/);
  // The weights chart: the 20 largest of the 92 weights, a dot per run and a line over the
  // runs, with what their spread means; it reads at a phone's width.
  assert.match(await page.textContent('#weights-chart-text'), /The 20 largest of the model's 92 weights \(the table below has them all\), with a dot per run .*3 runs.*noise the privacy adds.*disagree in sign/);
  assert.equal(await page.$$eval('#weights-chart text.dot-label', (ts) => ts.length), 20);
  assert.equal(await page.$$eval('#weights-chart circle.dot', (cs) => cs.length), 60);
  assert.equal(await page.$$eval('#weights-chart circle.mark', (cs) => cs.length), 20);
  await page.setViewportSize({ width: 375, height: 800 });
  const chart = await page.$eval('#weights-chart', (svg) => {
    const box = svg.getBoundingClientRect();
    const label = svg.querySelector('text.dot-label').getBoundingClientRect();
    return { right: box.right, label: label.height, page: document.documentElement.scrollWidth };
  });
  assert.ok(chart.right <= 375 && chart.page <= 375, `the chart overflows a 375 px screen: ${JSON.stringify(chart)}`);
  assert.ok(chart.label >= 9, `the chart's labels are ${chart.label} px high at 375 px`);
  await page.locator('#weights-chart').screenshot({ path: path.join(artifacts(), 'app-weights-375.png') });
  await page.setViewportSize({ width: 1280, height: 900 });
  // Sorting the weights by magnitude.
  await page.click('#sort-weights');
  const weights = await page.$$eval('#weights tbody td.num', (tds) => tds.map((td) => Math.abs(Number(td.textContent))));
  assert.ok(weights[0] >= weights[weights.length - 1] && weights[0] >= weights[1]);
  // The download: the release file of the three models and reports, no diagnostics.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  assert.equal(download.suggestedFilename(), 'privopt-release.json');
  const saved = JSON.parse(readFileSync(await download.path(), 'utf8'));
  assert.equal(saved.format, 'privopt-release/2');
  assert.equal(saved.schema.columns[0].name, 'age');
  assert.equal(saved.models.length, 3);
  assert.equal(saved.models[0].model.weights.length, 92);
  assert.equal(saved.models[0].report.randomness, 'seeded: not private');
  assert.doesNotMatch(JSON.stringify(saved), /"diagnostics"|"train_accuracy"|"train_loss"|"test"/);
  // The link holds the configuration only, and reproduces it.
  const link = await page.inputValue('#share-link');
  const params = new URL(link).searchParams;
  assert.equal(params.get('data'), 'demo');
  assert.equal(params.get('runs'), '3');
  assert.equal(params.get('opt.Sampler'), 'mala');
  assert.doesNotMatch(link, /State-gov|Bachelors|adult-train/);
  await page.screenshot({ path: path.join(artifacts(), 'app-runs.png'), fullPage: true });
  await done(app);

  const again = await open(link.slice(link.indexOf('?')));
  await planned(again.page);
  assert.equal(await again.page.inputValue('#runs'), '3');
  assert.equal(await again.page.inputValue('#seed'), '7');
  assert.equal(await again.page.inputValue('#option-FastSteps'), '100');
  assert.equal(await again.page.$eval('#option-Sampler', (s) => s.value), 'mala');
  assert.match(await again.page.textContent('#dataset-summary'), /4000 training rows/);
  await done(again);
});

// typeRow types a row in the "Use the model" panel (52 years old, never married, a
// professional specialty) and resolves with the prediction shown. The age is typed last, after
// a value the schema refuses, so that the prediction shown is the whole row's.
async function typeRow(page) {
  await page.selectOption('#use-3', 'Never-married');
  await page.selectOption('#use-4', 'Prof-specialty');
  await page.fill('#use-0', 'old');
  await page.waitForSelector('#use-result.error');
  await page.fill('#use-0', '52');
  await page.waitForSelector('#use-result:not(.error)');
  return page.textContent('#use-result');
}

// download clicks a button and resolves with the download's suggested name and its path.
async function download(page, button) {
  const [d] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  return { name: d.suggestedFilename(), path: await d.path() };
}

test('a private evaluation, files scored in the page and in onnxruntime with the ONNX model, and a release file used in a fresh page', async (t) => {
  const app = await open('?data=demo&mech=noisy-gd&opt.MaxSteps=50&eps=0.5&runs=2&eval=10');
  const { page } = app;
  await planned(page);
  assert.equal(await page.inputValue('#eval-share'), '10');
  assert.match(await page.textContent('#eval-share-help'), /exact composition with the evaluation/);
  await page.click('#run-button');
  await page.waitForSelector('#use-model', { timeout: 60000 });
  // Each run's local held-out accuracy beside its private one, each labelled, and the guarantee
  // of the models and their evaluations together.
  assert.equal(await page.$$eval('#private-evaluation tbody tr', (rows) => rows.length), 2);
  assert.match(await page.textContent('#private-evaluation thead'), /Local held-out accuracy: exact, for you only\s*not private\s*Private held-out accuracy: part of the release/);
  assert.match(await page.textContent('#private-evaluation tbody tr:first-child'), /run 1\s*\d+\.\d %\s*-?\d+\.\d % \(95 % interval for the noise: -?\d+\.\d % to \d+\.\d %\)/);
  const evaluation = await page.textContent('#evaluation-text');
  assert.match(evaluation, /The local figure is exact.*The private figure was released with noise, spending 10 % of each run's budget/s);
  assert.match(evaluation, /Releasing all 2 models and their private evaluations together composes their privacy/);
  await page.locator('#evaluation').screenshot({ path: path.join(artifacts(), 'app-evaluation.png') });
  // Two rows without the label column, scored with run 1's model; then a row the schema refuses.
  const header = 'age, workclass, education-num, marital-status, occupation, relationship, race, sex, capital-gain, capital-loss, hours-per-week, native-country';
  const rows = '39, State-gov, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States\n'
    + '50, Self-emp-not-inc, 13, Married-civ-spouse, Exec-managerial, Husband, White, Male, 0, 0, 13, United-States\n';
  await page.setInputFiles('#score-file', { name: 'rows.csv', mimeType: 'text/csv', buffer: Buffer.from(header + '\n' + rows) });
  await page.waitForSelector('#download-scores', { timeout: 30000 });
  assert.equal(await page.textContent('#score-status'), '2 rows of rows.csv scored.');
  const scores = await download(page, '#download-scores');
  assert.equal(scores.name, 'rows-predictions.csv');
  const lines = readFileSync(scores.path, 'utf8').trim().split('\n');
  assert.equal(lines[0], 'prediction,p(<=50K),p(>50K)');
  assert.equal(lines.length, 3);
  await page.setInputFiles('#score-file', { name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from(header + '\nold' + rows.slice(2)) });
  await page.waitForSelector('#score-status.error');
  assert.match(await page.textContent('#score-status'), /line 2, column "age": "old" is not a number/);
  // The demo's held-out rows, scored in the page and by the downloaded ONNX model in
  // onnxruntime-node: the same labels, and the same probabilities within the tolerance.
  const heldOut = path.join(root, 'internal/demo/adult-test.csv');
  await page.setInputFiles('#score-file', heldOut);
  await page.waitForFunction(() => document.querySelector('#score-status')?.textContent === '1000 rows of adult-test.csv scored.', null, { timeout: 30000 });
  const predictions = readCSV((await download(page, '#download-scores')).path);
  assert.equal(predictions.rows.length, 1000);
  const onnx = await download(page, '#download-onnx');
  assert.equal(onnx.name, 'privopt-run-1.onnx');
  const released = readFileSync((await download(page, '#download')).path); // gone once the page is closed
  const file = JSON.parse(released.toString('utf8'));
  assert.equal(file.models[0].evaluation.rows, 1000, 'the release holds the private evaluation');
  assert.equal(file.models[0].held_out.rows, 1000);
  const session = await ort.InferenceSession.create(onnx.path);
  const got = await session.run(feeds(file.schema, readCSV(heldOut)));
  assert.ok(new Set(got.label.data).size > 1, 'the model predicts more than one label');
  const diff = maxDifference(got, predictions);
  t.diagnostic(`the page's ONNX model on the demo's 1000 held-out rows: labels identical, max |Δprobability| = ${diff.toExponential(2)}`);
  assert.ok(diff <= tolerance, `max |Δprobability| ${diff} above ${tolerance}`);
  const typed = await typeRow(page);
  assert.match(typed, /^Prediction of "Y": (<=50K|>50K) \(p\(<=50K\) = \d+\.\d %, p\(>50K\) = \d+\.\d %\)$/);
  await done(app);

  // A fresh page takes the file's settings, and its schema once the demo is loaded; and its
  // models predict the typed row, with no data and no fit, as the page that fitted them did.
  const again = await open();
  await again.page.setInputFiles('#settings-file', { name: 'privopt-release.json', mimeType: 'application/json', buffer: released });
  await again.page.waitForFunction(() => /The settings of .* are set/.test(document.querySelector('#settings-status')?.textContent || ''));
  assert.equal(await again.page.inputValue('#budget-eps'), '0.5');
  assert.equal(await again.page.inputValue('#runs'), '2');
  assert.equal(await again.page.inputValue('#eval-share'), '10');
  assert.equal(await again.page.inputValue('#scale-share'), '20');
  assert.equal(await again.page.isChecked('#choose-noisy-gd'), true);
  assert.equal(await again.page.inputValue('#option-MaxSteps'), '50');
  assert.match(await again.page.textContent('#settings-status'), /applies to the next file whose columns are exactly: age, workclass/);
  assert.equal(await again.page.textContent('#received-heading'), 'Models of privopt-release.json');
  assert.deepEqual(await again.page.$$eval('#use-model-number option', (os) => os.map((o) => o.textContent)), ['model 1', 'model 2']);
  assert.equal(await typeRow(again.page), typed, 'the received file predicts the typed row as the page that fitted it');
  await again.page.locator('#received').screenshot({ path: path.join(artifacts(), 'app-received.png') });
  await useDemo(again.page);
  assert.doesNotMatch(await again.page.textContent('#settings-status'), /applies to the next file/);
  await done(again);
});

test('add/remove needs a public number of rows N: refused without one or below the rows, stated in the results', async () => {
  const app = await open();
  const { page } = app;
  await useDemo(page);
  await choose(page, 'outpert-gauss');
  assert.equal(await page.$('#public-n'), null, 'no N field under replace-one');
  assert.match(await page.textContent('#neighbouring option[value="add-remove"]'), /the number of rows stays private: declare a public N/);
  // Add/remove without N: the field appears, and the page says why nothing is planned or run.
  await page.selectOption('#neighbouring', 'add-remove');
  await page.waitForSelector('#public-n');
  assert.match(await page.textContent('#public-n-help'), /every average is taken over N rows.*never silently dropped/s);
  await page.waitForSelector('#public-n-problem');
  assert.match(await page.textContent('#public-n-problem'), /declared public number of rows N instead: enter N/);
  assert.match(await page.textContent('#plan-outpert-gauss .unplanned'), /not planned: see the message above/);
  // N below the demo's 4000 training rows: refused, with the reason.
  await page.fill('#public-n', '100');
  await page.waitForFunction(() => /N = 100:/.test(document.querySelector('#public-n-problem')?.textContent || ''));
  assert.equal(await page.textContent('#public-n-problem'),
    'The data has 4000 training rows, more than the public number of rows N = 100: enter a larger N (at least 4000). Rows are never dropped to fit N.');
  await page.click('#run-button');
  assert.match(await page.textContent('#run-error'), /more than the public number of rows N = 100/);
  assert.equal(await page.$('#run-progress'), null, 'nothing ran');
  // An invalid N is marked next to the field.
  await page.fill('#public-n', '2.5');
  await page.waitForSelector('#public-n-error');
  assert.equal(await page.getAttribute('#public-n', 'aria-invalid'), 'true');
  // A valid N: planned, run, and stated with the relation.
  await replanned(page, () => page.fill('#public-n', '5000'));
  assert.equal(await page.$('#public-n-problem'), null);
  assert.equal(await page.$('#public-n-error'), null);
  await page.click('#run-button');
  await page.waitForSelector('#results', { timeout: 60000 });
  const released = await page.textContent('#released');
  assert.match(released, /differentially private under the add-remove relation with the declared public number of rows N = 5000 \(/);
  assert.doesNotMatch(released, /4000/, 'the observed number of rows is not stated');
  assert.match(await page.textContent('#report'), /Neighbouring relation\s*add-remove \(declared public number of rows N = 5000\)/);
  assert.equal(new URL(await page.inputValue('#share-link')).searchParams.get('pn'), '5000');
  await page.locator('#privacy').screenshot({ path: path.join(artifacts(), 'app-add-remove.png') });
  await done(app);
});

test('every control has a label, and the app works from the keyboard with a visible focus', async () => {
  const app = await open();
  const { page } = app;
  // Tab from the top of the page to the demo button and press Enter.
  let focused = '';
  for (let i = 0; i < 10 && focused !== 'use-demo'; i++) {
    await page.keyboard.press('Tab');
    focused = await page.evaluate(() => document.activeElement.id);
  }
  assert.equal(focused, 'use-demo', 'the demo button is reached with Tab');
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  assert.notEqual(outline, 'none', 'the focused control shows its focus');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#dataset-summary', { timeout: 30000 });
  await planned(page);
  await page.click('#toggle-schema');
  // Reading capital-gain (column 8) on a log scale changes the schema: the data is checked again.
  await page.check('#log1p-8');
  await page.waitForSelector('#dataset-summary', { state: 'detached' });
  await page.click('#check-data');
  await page.waitForSelector('#dataset-summary', { timeout: 30000 });
  await planned(page);
  assert.equal(await page.isChecked('#log1p-8'), true);
  await choose(page, 'rem');
  await page.focus('#run-button');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#results', { timeout: 60000 });
  // Every form control has an accessible name: a <label>, or its own text for a button.
  const unlabelled = await page.evaluate(() => [...document.querySelectorAll('input, select, textarea, button')]
    .filter((el) => !(el.labels && el.labels.length > 0) && !el.getAttribute('aria-label') && !(el.tagName === 'BUTTON' && el.textContent.trim()))
    .map((el) => el.outerHTML.slice(0, 80)));
  assert.deepEqual(unlabelled, []);
  await done(app);
});

test('the page opens on the recommended mechanism, explains ε and δ, and warns about weak budgets', async () => {
  const app = await open();
  const { page } = app;
  await useDemo(page);
  assert.ok(await page.isChecked('#choose-noisy-gd'), 'noisy-gd is chosen');
  assert.match(await page.textContent('#data-changes'), /workclass: \d+ missing, replaced by the declared value/);
  assert.match(await page.textContent('label[for="choose-noisy-gd"]'), /\(recommended\)/);
  assert.match(await page.textContent('#budget-help'), /finds at most \d+\.\d % of those in it/);
  assert.equal(await page.$('#budget-warnings'), null, 'no warning at ε = 1, δ = 1e-6');
  assert.equal(await page.getAttribute('#option-NoPrecondition', 'type'), 'checkbox', 'a yes/no setting is a checkbox');
  // While the plans are recomputed (aria-busy), the figures shown, the last choices', are
  // dimmed and the caption says so.
  const busy = await page.evaluate(() => {
    const table = document.querySelector('#plans');
    table.setAttribute('aria-busy', 'true');
    const shown = [getComputedStyle(table.tBodies[0]).opacity, getComputedStyle(table.caption, '::after').content];
    table.setAttribute('aria-busy', 'false');
    return shown;
  });
  assert.deepEqual(busy, ['0.5', '" (updating for the new choices…)"']);
  await replanned(page, () => page.fill('#budget-delta', '0.5'));
  assert.match(await page.textContent('#budget-warnings'), /not small next to 1\/n = 1\/4000/);
  await replanned(page, () => page.fill('#budget-delta', '1e-6'));
  await replanned(page, () => page.fill('#budget-eps', '50'));
  assert.match(await page.textContent('#budget-warnings'), /ε = 50 says little/);
  await page.click('#run-button');
  await page.waitForSelector('#results', { timeout: 60000 });
  await page.waitForFunction(() => document.querySelector('#run-progress')?.value === 100);
  assert.match(await page.textContent('#report-verdict'), /Private, but weakly/);
  assert.match(await page.textContent('#report-summary'), /Protected: .*Strength: .*finds at most .*Not covered: /s);
  assert.equal(await page.isVisible('#report-statement'), false, 'the derivation is one click away');
  assert.match(await page.textContent('#diagnostics'), /always the majority class: 76\.0 %/);
  assert.ok((await page.getAttribute('#roc path.series-0', 'd')).length > 100, 'the held-out ROC curve is drawn');
  await page.screenshot({ path: path.join(artifacts(), 'app-budget-warnings.png'), fullPage: true });
  await done(app);
});
