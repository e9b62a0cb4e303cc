// One seeded noisy-gd fit in the page with 1, 2 and 4 engine workers (the test sets
// navigator.hardwareConcurrency): with more workers than runs, the idle ones help the run,
// computing ranges of its full passes (wasm/engine/farm.go), never through the page: from
// shared queues in shared memory, the page being cross-origin isolated as privopt serve makes
// it, and over MessagePorts in a page that is not (the test strips the page's
// Cross-Origin-Embedder-Policy). The release must be the same with any number of workers, either
// way (and so must the training loss at the release, all its bits), the helpers must have
// computed ranges, and the page's main thread must stay free (its long tasks are measured). A
// helper that is terminated during the run leaves the run to compute its ranges itself: the
// same release, some seconds later.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { collectErrors, keepReleases, lastRelease, serveAndLaunch } from './lib.mjs';

const env = serveAndLaunch(); // env.server, env.browser

// 4 numeric columns and 2 categorical ones of 16 levels and a binary label, 40,000 rows (10
// chunks of a pass), in blocks of 4,096 rows (a chunk) that alternate: rows of magnitude 1
// whose label follows their features, and rows of magnitude 10⁻³ with a random label, so that
// the chunks' sums of the loss differ in size and adding them in another order changes their
// bits. The rows are held sparse (7 entries of 37), so that each helper holds only the rows of
// its range of the chunks. None is held out: each page draws its own held-out split (every
// worker of a page holds the same one), so pages with held-out rows would not fit the same rows.
const schema = {
  privopt_schema: 1,
  norm: { p: 2, radius: 1, bias: 0.5, fit: 'scale' },
  columns: [
    ...[0, 1, 2, 3].map((j) => ({ name: `x${j}`, kind: 'numeric', min: -1, max: 1 })),
    ...[0, 1].map((j) => ({ name: `c${j}`, kind: 'categorical', categories: [...'abcdefghijklmnop'] })),
    { name: 'y', kind: 'binary-label', positive: ['1'], negative: ['0'] },
  ],
};

function rows(n) {
  const lines = ['x0,x1,x2,x3,c0,c1,y'];
  let s = 12345;
  const rand = () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648; };
  for (let i = 0; i < n; i++) {
    const easy = Math.floor(i / 4096) % 2 === 0;
    const m = easy ? 1 : 1e-3;
    const x = [0, 1, 2, 3].map(() => (m * (2 * rand() - 1)).toPrecision(6));
    const y = easy ? Number(x[0]) + Number(x[1]) - Number(x[2]) > 0 : rand() < 0.5;
    lines.push([...x, 'abcdefghijklmnop'[Math.floor(rand() * 16)], 'abcdefghijklmnop'[i % 16], y ? 1 : 0].join(','));
  }
  return lines.join('\n') + '\n';
}

const file = { name: 'workers.csv', mimeType: 'text/csv', buffer: Buffer.from(rows(40000)) };

// fit runs the fit in a page with the given number of workers and returns the release file's
// models, the run's label, how many ranges the helpers answered (the passes a helper took
// chunks of, from shared queues), how many chunks the run took from its helpers' shared queues,
// whether the page was cross-origin isolated, and the long tasks during the fit; kill, when
// set, closes the helper once it has answered a range; isolated = false strips the page's
// Cross-Origin-Embedder-Policy.
async function fit(workers, { kill = false, isolated = true } = {}) {
  const context = await env.browser.newContext({ acceptDownloads: true });
  if (!isolated) {
    await context.route((url) => url.pathname === new URL(env.server.url).pathname, async (route) => {
      const response = await route.fetch();
      const headers = response.headers();
      delete headers['cross-origin-embedder-policy'];
      await route.fulfill({ response, headers });
    });
  }
  await context.addInitScript((n) => {
    Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => n });
  }, workers);
  const page = await context.newPage();
  const errors = collectErrors(page);
  const link = Buffer.from(JSON.stringify(schema)).toString('base64url');
  await page.goto(`${env.server.url}?schema=${link}&mech=noisy-gd&eps=1&delta=1e-6&runs=1&seed=5&holdout=0`);
  await page.waitForSelector('html[data-ready="true"]', { timeout: 30000 });
  await page.setInputFiles('#file-input', file);
  await page.waitForSelector('#dataset-summary', { timeout: 60000 });
  await page.waitForSelector('#plans[aria-busy="false"] #plan-noisy-gd.chosen td.time', { timeout: 30000 });
  // Every engine worker keeps its last "release" message, whose diagnostics hold the training
  // loss at the release, a full pass with all its bits (the release file rounds nothing, but
  // the weights are on the noise's grid, which can hide a different order of the chunks).
  await keepReleases(page);
  await page.evaluate(() => {
    window.fitLongTasks = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.fitLongTasks.push(e.duration); }).observe({ type: 'longtask' });
  });
  await page.click('#run-button');
  if (kill) {
    // The helper is the worker that answers ranges: it is closed once it has answered one.
    let helper;
    for (let i = 0; i < 1200 && !helper; i++) {
      for (const w of page.workers()) if (await w.evaluate(() => self.privoptRangesAnswered || 0).catch(() => 0)) helper = w;
      if (!helper) await page.waitForTimeout(50);
    }
    assert.ok(helper, 'no helper answered a range');
    await helper.evaluate(() => self.close());
  }
  await page.waitForSelector('#results', { timeout: 180000 });
  const label = await page.textContent('label[for="run-progress"]');
  let answered = 0;
  let stolen = 0;
  for (const w of page.workers()) {
    answered += await w.evaluate(() => self.privoptRangesAnswered || 0).catch(() => 0);
    stolen += await w.evaluate(() => self.privoptChunksStolen || 0).catch(() => 0);
  }
  const shared = await page.evaluate(() => self.crossOriginIsolated);
  const trainLoss = (await lastRelease(page))?.result.release.diagnostics.train_loss;
  const longTasks = await page.evaluate(() => window.fitLongTasks);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  const saved = JSON.parse(readFileSync(await download.path(), 'utf8'));
  await context.close();
  assert.deepEqual(errors, []);
  return { models: saved.models.map((m) => m.model), trainLoss, label, answered, stolen, shared, longTasks };
}

test('a seeded fit gives the same release with 1, 2 and 4 workers, the idle ones helping', async () => {
  const one = await fit(1);
  assert.match(one.label, /1 of 1 runs: 1 done \(in one Web Worker\)/);
  assert.equal(one.answered, 0);
  assert.equal(one.shared, true, 'privopt serve\'s page is not cross-origin isolated');
  assert.equal(one.models[0].weights.length, 4 + 32 + 1);
  console.log(`1 worker: ${one.longTasks.length} long tasks on the page's thread during the fit, the longest ${Math.max(0, ...one.longTasks).toFixed(0)} ms`);
  for (const [workers, isolated] of [[2, true], [4, true], [2, false]]) {
    const many = await fit(workers, { isolated });
    const how = `${workers} workers, ${isolated ? 'shared queues' : 'MessagePorts'}`;
    assert.equal(many.shared, isolated, `${how}: crossOriginIsolated`);
    assert.match(many.label, new RegExp(`in one Web Worker, helped by ${workers - 1} more`));
    assert.ok(many.answered > 0, `${how}: the helpers computed no range`);
    if (!isolated) assert.equal(many.stolen, 0, `${how}: the run took chunks from shared queues`);
    assert.deepEqual(many.models, one.models, `${how}: another release than one worker's`);
    assert.ok(typeof one.trainLoss === 'number' && Object.is(many.trainLoss, one.trainLoss), `${how}: training loss ${many.trainLoss}, with one ${one.trainLoss}`);
    const longest = Math.max(0, ...many.longTasks);
    console.log(`${how}: ${many.answered} ranges answered by helpers, ${many.stolen} chunks taken back by the run; ${many.longTasks.length} long tasks on the page's thread during the fit, the longest ${longest.toFixed(0)} ms`);
    assert.ok(longest < 1000, `${how}: the page's thread was blocked for ${longest} ms`);
  }
});

test('a helper terminated during the run leaves the same release', async () => {
  const one = await fit(1);
  const killed = await fit(2, { kill: true });
  assert.deepEqual(killed.models, one.models);
  assert.ok(Object.is(killed.trainLoss, one.trainLoss), `training loss ${killed.trainLoss}, with one worker ${one.trainLoss}`);
});
