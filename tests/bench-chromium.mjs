// The adult-lr benchmark's private fits in headless Chromium, through the page's own engine:
// the page's app.wasm runs in a Web Worker exactly as in the app, reads the training file as a
// File and runs each cell (mechanism, ε) that ran natively, a few times, with the browser's
// randomness. It writes a benchmark result (internal/bench's JSON) whose rows hold the time of
// one private fit as the engine measured it; accuracy is the native and node runs' business.
// First it loads the page a few times, each in a fresh browser context (a cold cache), and
// records the seconds from the navigation to the page's being usable (every engine worker
// started and answering: the page then sets data-ready on its <html>), as the page's clock
// reads them (performance.now(), whose origin is the navigation's start). A first load is not
// counted: it waits for the server, which compresses its files once when it starts.
// ./build.sh bench runs it:
//   node tests/bench-chromium.mjs NATIVE.json TRAIN.csv SCHEMA.json OUT.json [RUNS] [CELL-SECONDS]
import { readFileSync, writeFileSync } from 'node:fs';
import { launch, startServer } from './lib.mjs';

const [nativePath, trainPath, schemaPath, outPath, runsArg = '3', cellArg = '60'] = process.argv.slice(2);
if (!outPath) throw new Error('usage: node tests/bench-chromium.mjs NATIVE.json TRAIN.csv SCHEMA.json OUT.json [RUNS] [CELL-SECONDS]');
const native = JSON.parse(readFileSync(nativePath, 'utf8'));
const maxRuns = Number(runsArg);
const cellSeconds = Number(cellArg);
const csv = readFileSync(trainPath, 'utf8');
const schema = JSON.parse(readFileSync(schemaPath, 'utf8'));

const pageLoads = 5;

const server = await startServer();
const browser = await launch();
try {
  const pageReady = [];
  for (let k = -1; k < pageLoads; k++) {
    const context = await browser.newContext();
    const fresh = await context.newPage();
    await fresh.goto(server.url);
    await fresh.waitForSelector('html[data-ready="true"]', { timeout: 60000 });
    const seconds = (await fresh.evaluate(() => performance.now())) / 1000;
    if (k >= 0) pageReady.push(seconds);
    await context.close();
  }
  console.error(`chromium: the page was usable ${pageReady.map((s) => s.toFixed(3)).join(', ')} s after the navigation`);
  const page = await browser.newPage();
  await page.goto(server.url);
  await page.waitForFunction(() => window.privoptWasmModule !== undefined, null, { timeout: 60000 });
  // A worker of our own, started as the page starts its engines: engine-worker.js, then the
  // page's compiled module. ask posts a request and resolves with its final answer.
  await page.evaluate(async ({ csv, schema }) => {
    const worker = new Worker('engine-worker.js');
    await new Promise((resolve) => worker.addEventListener('message', function loaded(e) {
      if (e.data && e.data.loaded) { worker.removeEventListener('message', loaded); resolve(); }
    }));
    worker.postMessage(window.privoptWasmModule);
    window.benchAsk = (request, file) => new Promise((resolve, reject) => {
      const answer = (e) => {
        const m = JSON.parse(e.data);
        if (m.id !== request.id || m.kind === 'progress' || m.kind === 'started') return;
        worker.removeEventListener('message', answer);
        if (m.kind === 'error') reject(new Error(m.error)); else resolve(m);
      };
      worker.addEventListener('message', answer);
      const message = JSON.stringify(request);
      worker.postMessage(file ? { request: message, file } : message);
    });
    await window.benchAsk({ id: 1, kind: 'dataset', source: 'file', schema }, new File([csv], 'train.csv'));
  }, { csv, schema });

  const result = { platform: 'chromium', radius: native.radius, rows: [], baselines: native.baselines, page_ready_seconds: pageReady };
  let id = 2;
  for (const cell of native.rows) {
    const row = { mechanism: cell.mechanism, options: cell.options, epsilon: cell.epsilon, delta: cell.delta, certified: cell.certified, private: cell.private, runs: 0, seconds: 0 };
    // Cells that did not run natively, or would take more than the cell's time here (wasm
    // takes about twice the native time), are left out.
    if (cell.error || 2 * cell.seconds > cellSeconds) {
      row.error = cell.error || `one run takes ${cell.seconds.toFixed(3)} s natively, over half the limit of ${cellSeconds} s per cell`;
      result.rows.push(row);
      continue;
    }
    const runs = Math.max(1, Math.min(maxRuns, Math.floor(cellSeconds / (2 * cell.seconds))));
    const spec = { loss: 'logistic', domain: 'whole', radius: native.radius, mechanism: cell.mechanism, options: cell.options, budget: { epsilon: cell.epsilon, delta: cell.delta } };
    for (let k = 0; k < runs; k++) {
      const release = await page.evaluate((req) => window.benchAsk(req), { id: id++, kind: 'run', spec, run: k });
      row.seconds += release.result.release.diagnostics.seconds / runs;
      row.runs++;
    }
    console.error(`chromium: ${cell.mechanism}${cell.options ? ' ' + JSON.stringify(cell.options) : ''} ε=${cell.epsilon}: ${row.seconds.toFixed(3)} s per fit (${row.runs} runs)`);
    result.rows.push(row);
  }
  writeFileSync(outPath, JSON.stringify(result, null, 2) + '\n');
} finally {
  await browser.close();
  await server.stop();
}
