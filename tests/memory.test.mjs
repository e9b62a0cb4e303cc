// A file too large for the page is refused before it is read, with what is too large, by how
// much and what to do, and the page stays usable. The engine's limit on a worker's memory
// (3 GiB) is lowered through the workers' privoptWorkerMemory (a test hook that
// wasm/engine/serve_js.go reads), so that a file of 20,000 rows (about 1 MB) stands for one
// of gigabytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { collectErrors, serveAndLaunch } from './lib.mjs';

const env = serveAndLaunch(); // env.server, env.browser

// A schema of 4 numeric and 4 categorical columns (8 levels) and a binary label, in the link.
const schema = {
  privopt_schema: 1,
  norm: { p: 2, radius: 1, bias: 0.5, fit: 'scale' },
  columns: [
    ...[0, 1, 2, 3].map((j) => ({ name: `x${j}`, kind: 'numeric', min: 0, max: 100 })),
    ...[0, 1, 2, 3].map((j) => ({ name: `c${j}`, kind: 'categorical', categories: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'] })),
    { name: 'y', kind: 'binary-label', positive: ['1'], negative: ['0'] },
  ],
};

function rows(n) {
  const lines = ['x0,x1,x2,x3,c0,c1,c2,c3,y'];
  for (let i = 0; i < n; i++) {
    lines.push([0, 1, 2, 3].map((j) => ((i * 37 + j * 11) % 10000) / 100).concat([0, 1, 2, 3].map((j) => 'abcdefgh'[(i + j * 3) % 8]), [i % 2]).join(','));
  }
  return lines.join('\n') + '\n';
}

// setLimit sets the memory a worker's data may take, in every engine worker of the page.
async function setLimit(page, bytes) {
  for (const w of page.workers()) await w.evaluate((b) => { self.privoptWorkerMemory = b; }, bytes);
}

test('a file too large for a worker is refused before it is read, and the page stays usable', async () => {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  const errors = collectErrors(page);
  const link = Buffer.from(JSON.stringify(schema)).toString('base64url');
  await page.goto(`${env.server.url}?schema=${link}&holdout=0`);
  await page.waitForSelector('html[data-ready="true"]', { timeout: 30000 });
  // 20,000 rows of 13 entries take about 0.35 MB encoded, and 1.25 times that with the
  // collector's slack: a limit of 100 kB is about 4.4 times too small.
  await setLimit(page, 100000);
  await page.setInputFiles('#file-input', { name: 'big.csv', mimeType: 'text/csv', buffer: Buffer.from(rows(20000)) });
  await page.waitForSelector('#data-error', { timeout: 30000 });
  const message = await page.textContent('#data-error');
  assert.match(message, /too large for the page/);
  assert.match(message, /about 2000\d rows \(\d+ bytes a line in its first rows\)/, 'the rows estimated from the file');
  assert.match(message, /[\d.]+ times the 100 kB a worker can hold/, 'by how much');
  assert.match(message, /keeps its own copy/, 'the copies the page holds');
  assert.match(message, /fewer columns .*a sample of at most about \d+ rows.*privopt fit/, 'what to do');
  assert.equal(await page.$('#dataset-summary'), null, 'nothing was encoded');
  // With the engine's own limit the same file is read and summarised.
  await setLimit(page, 3 * 2 ** 30);
  await page.click('#check-data');
  await page.waitForSelector('#dataset-summary', { timeout: 30000 });
  assert.match(await page.textContent('#dataset-summary'), /20000 training rows/);
  assert.deepEqual(errors, []);
  await context.close();
});

// A file of numeric columns, held dense, that a worker can hold only with its values as float32:
// the refusal says so; with the option ticked the file is read, a noisy-gd run releases a model,
// and the release's facts and statement say how the values were held.
test('a file that fits as float32 is refused with the option, and read and fitted with it', async () => {
  const numeric = {
    privopt_schema: 1,
    norm: { p: 2, radius: 1, bias: 0.5, fit: 'scale' },
    columns: [
      ...[0, 1, 2, 3, 4, 5, 6, 7].map((j) => ({ name: `x${j}`, kind: 'numeric', min: 0, max: 100 })),
      { name: 'y', kind: 'binary-label', positive: ['1'], negative: ['0'] },
    ],
  };
  const lines = ['x0,x1,x2,x3,x4,x5,x6,x7,y'];
  for (let i = 0; i < 20000; i++) {
    const x = [0, 1, 2, 3, 4, 5, 6, 7].map((j) => ((i * 37 + j * 11) % 10000) / 100);
    lines.push(x.concat([x[0] + x[3] > 100 ? 1 : 0]).join(','));
  }
  const context = await env.browser.newContext({ acceptDownloads: true });
  const page = await context.newPage();
  const errors = collectErrors(page);
  const link = Buffer.from(JSON.stringify(numeric)).toString('base64url');
  await page.goto(`${env.server.url}?schema=${link}&holdout=0&mech=noisy-gd&eps=1&delta=1e-6&runs=1&seed=5`);
  await page.waitForSelector('html[data-ready="true"]', { timeout: 30000 });
  // 20,000 rows of 9 values: about 152 bytes a row as float64 (rows and a rescaled copy), 80 as
  // float32, and a quarter more each for the collector: 3.8 MB and 2.0 MB, about a 3 MB limit.
  await setLimit(page, 3000000);
  await page.setInputFiles('#file-input', { name: 'numeric.csv', mimeType: 'text/csv', buffer: Buffer.from(lines.join('\n') + '\n') });
  await page.waitForSelector('#data-error', { timeout: 30000 });
  assert.match(await page.textContent('#data-error'), /Held as float32 .*privopt fit --float32.*which fits/, 'the refusal names the option');
  await page.check('#float32');
  await page.click('#check-data');
  await page.waitForSelector('#dataset-summary', { timeout: 30000 });
  assert.match(await page.textContent('#dataset-summary'), /20000 training rows/);
  await page.waitForSelector('#plans[aria-busy="false"] #plan-noisy-gd.chosen td.time', { timeout: 30000 });
  await page.click('#run-button');
  await page.waitForSelector('#results', { timeout: 180000 });
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  const saved = JSON.parse(readFileSync(await download.path(), 'utf8'));
  assert.equal(saved.facts.float32, true, 'the release says the values were float32');
  assert.equal(saved.facts.bias, 0.5);
  assert.match(saved.statements.plain, /every value held as a float32, rounded toward zero/);
  assert.deepEqual(errors, []);
  await context.close();
});
