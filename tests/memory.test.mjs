// A file too large for the page is refused before it is read, with what is too large, by how
// much and what to do, and the page stays usable. The engine's limit on a worker's memory
// (3 GiB) is lowered through the workers' privoptWorkerMemory (a test hook that
// wasm/engine/serve_js.go reads), so that a file of 20,000 rows (about 1 MB) stands for one
// of gigabytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
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
