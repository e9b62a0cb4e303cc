// The scale benchmark (issue 26): how fit time and peak memory grow with the number of rows,
// natively and in the page. For each n it writes a synthetic CSV of n rows × 20 columns (10
// numeric, 10 categorical with 8 levels, a binary label: internal/bench/scale), then
//   - natively, runs `privopt fit --mech noisy-gd --eps 1 --delta 1e-6` on it and records its
//     wall time, CPU time and peak resident memory (getrusage's maximum resident set size);
//   - in headless Chromium, opens the page with the file's public schema and noisy-gd at the
//     same budget in its link, chooses the file with the page's file input (as a person would;
//     Chromium reads it from disk, the page never holds it), waits for the data to be encoded
//     and planned, runs one fit and records: the seconds from choosing the file to the page's
//     summary of the data ("load"), the seconds from Run to the results ("fit"), the progress
//     the page showed meanwhile, the page's long main-thread tasks, the peak resident memory of
//     every Chromium process together (sampled from /proc every 250 ms, minus what they held
//     before the file was chosen) and each engine worker's WebAssembly memory at the end (a
//     WebAssembly memory never shrinks, so that is its peak), and how it failed when it did.
// It writes a markdown report. ./build.sh bench --scale runs it after ./build.sh build:
//   node tests/scale.mjs OUT.md SCRATCH-DIR [N…]
// with PRIVOPT_BIN (privopt), PRIVOPT_SCALE (internal/bench/scale's binary), PRIVOPT_DIST and
// PRIVOPT_CHROMIUM set; SCRATCH-DIR keeps the generated files between runs. PRIVOPT_SCALE_SKIP
// may hold "native" or "chromium" to measure one side only. PRIVOPT_SCALE_WORKERS may list
// numbers of engine workers ("1 2"): the page's fit is then measured once with each, the page
// told that the machine has that many cores (navigator.hardwareConcurrency), so that with one
// run the workers beyond the first help it (wasm/engine/farm.go); otherwise the page uses the
// machine's cores. ./build.sh bench --workers runs it so. PRIVOPT_SCALE_PAUSE may give seconds
// to wait between the plans shown and Run, as a person choosing model and budget would: the
// run's worker reads the checked file meanwhile (ui/data.go's prefetch), so "fit" then counts
// what is left of that read. PRIVOPT_SCALE_COLUMNS may give the numbers of numeric and
// categorical columns ("20,0", as ./build.sh bench --scale-numeric does; "10,10" by default).
// PRIVOPT_SCALE_FLOAT32=1 holds the values as float32 (privopt fit --float32, the page's f32=1;
// ./build.sh bench --scale-float32).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { env, keepReleases, lastRelease, launch, startServer } from './lib.mjs';

const [outPath, scratch, ...ns] = process.argv.slice(2);
if (!scratch) throw new Error('usage: node tests/scale.mjs OUT.md SCRATCH-DIR [N…]');
const sizes = (ns.length ? ns : ['10000', '100000', '1000000', '10000000']).map(Number);
const tool = env('PRIVOPT_SCALE');
const privopt = env('PRIVOPT_BIN');
const skip = process.env.PRIVOPT_SCALE_SKIP || '';
// A phase of the page (loading the data, or fitting it) that takes longer is stopped.
const phaseSeconds = Number(process.env.PRIVOPT_SCALE_PHASE_SECONDS || 1800);
const workerCounts = (process.env.PRIVOPT_SCALE_WORKERS || '').split(/\s+/).filter(Boolean).map(Number);
const pauseSeconds = Number(process.env.PRIVOPT_SCALE_PAUSE || 0);

const [numericColumns, categoricalColumns] = (process.env.PRIVOPT_SCALE_COLUMNS || '10,10').split(',').map(Number);
const float32 = process.env.PRIVOPT_SCALE_FLOAT32 === '1';
const shape = ['-numeric', String(numericColumns), '-categorical', String(categoricalColumns)];
// The files of the default shape keep their names; others are named by their shape.
const tag = numericColumns === 10 && categoricalColumns === 10 ? '' : `-${numericColumns}n${categoricalColumns}c`;
const schemaPath = path.join(scratch, `scale${tag}.schema.json`);
const fileOf = (n) => path.join(scratch, `scale${tag}-${n}.csv`);

function generate(n) {
  if (!existsSync(fileOf(n))) {
    console.error(`scale: writing ${n} rows`);
    execFileSync(tool, ['gen', '-n', String(n), '-out', fileOf(n), '-schema', schemaPath, ...shape]);
  }
  if (!existsSync(schemaPath)) execFileSync(tool, ['gen', '-n', '1', '-out', path.join(scratch, `one${tag}.csv`), '-schema', schemaPath, ...shape]);
}

function native(n) {
  const out = execFileSync(tool, ['run', '--', privopt, 'fit', '--data', fileOf(n), '--schema', schemaPath,
    '--mech', 'noisy-gd', '--eps', '1', '--delta', '1e-6', ...(float32 ? ['--float32'] : [])], { encoding: 'utf8', maxBuffer: 1 << 26 });
  return JSON.parse(out);
}

// chromiumRSS returns the resident memory of every Chromium process this script started (the
// descendants of this process but the server), and the largest peak (VmHWM) of one of them.
function chromiumRSS() {
  const parent = new Map();
  const comm = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      comm.set(d, stat.slice(stat.indexOf('(') + 1, close));
      parent.set(d, stat.slice(close + 2).split(' ')[1]);
    } catch { /* gone */ }
  }
  const mine = (pid) => {
    for (let p = pid; p && p !== '0' && p !== '1'; p = parent.get(p)) if (p === String(process.pid)) return true;
    return false;
  };
  let total = 0;
  let peak = 0;
  for (const pid of parent.keys()) {
    if (pid === String(process.pid) || !mine(pid) || comm.get(pid) === 'privopt' || comm.get(pid) === 'scale') continue;
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      total += 1024 * Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] || 0);
      peak = Math.max(peak, 1024 * Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] || 0));
    } catch { /* gone */ }
  }
  return { total, peak };
}

// wasmMemory returns the WebAssembly memory of each of the page's engine workers that has
// started its engine (-1 for a worker that does not answer within 5 s), by worker.
async function wasmMemory(p) {
  const out = new Map();
  for (const w of p.workers()) {
    const bytes = await Promise.race([w.evaluate(() => self.privoptMemory?.buffer.byteLength ?? 0), new Promise((ok) => setTimeout(() => ok(-1), 5000))]).catch(() => -1);
    if (bytes !== 0) out.set(w, bytes);
  }
  return out;
}

// page runs the page's load and fit of the file of n rows, with the given number of engine
// workers (undefined: the machine's cores).
async function page(browser, server, n, workers) {
  const schema = readFileSync(schemaPath);
  const query = `?schema=${schema.toString('base64url')}&mech=noisy-gd&eps=1&delta=1e-6&runs=1${float32 ? '&f32=1' : ''}`;
  const context = await browser.newContext();
  if (workers) {
    await context.addInitScript((k) => {
      Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => k });
    }, workers);
  }
  const p = await context.newPage();
  const events = [];
  const note = (what) => { if (events.length < 20) events.push(what); };
  // A worker whose Go runtime fails (out of memory) prints "fatal error" and stops: the page
  // may then wait for it for ever, so a phase ends at once.
  let workerDied;
  const died = new Promise((resolve) => { workerDied = resolve; });
  p.on('crash', () => note('the tab crashed'));
  p.on('pageerror', (e) => note('page error: ' + e.message));
  p.on('console', (m) => { if (m.type() === 'error') note('console: ' + m.text().slice(0, 300)); });
  p.on('worker', (w) => w.on('console', (m) => {
    if (/error|fatal|memory/i.test(m.text())) note('worker: ' + m.text().slice(0, 300));
    if (/^fatal error/.test(m.text())) workerDied(m.text());
  }));
  const r = { n, workers, events, load: uptime() };
  let planning = [];
  try {
    await p.goto(server.url + query);
    await p.waitForSelector('html[data-ready="true"]', { timeout: 60000 });
    await p.evaluate(() => {
      // Long tasks by phase: loading (from choosing the file to the plans) and fitting.
      window.scaleLongTasks = { load: [], fit: [] };
      window.scalePhase = 'load';
      new PerformanceObserver((l) => { for (const e of l.getEntries()) window.scaleLongTasks[window.scalePhase].push(e.duration); }).observe({ type: 'longtask' });
      // The progress the page shows: the encoding's percentage and the run's progress bar.
      window.scaleProgress = { check: new Set(), run: new Set() };
      setInterval(() => {
        const c = document.querySelector('#check-status span');
        if (c) window.scaleProgress.check.add(c.textContent);
        const b = document.querySelector('#run-progress');
        if (b) window.scaleProgress.run.add(b.value);
      }, 100);
    });
    const base = chromiumRSS().total;
    let peak = base;
    const sampler = setInterval(() => { peak = Math.max(peak, chromiumRSS().total); }, 250);
    const stage = async (selectors, what) => {
      const t0 = Date.now();
      const found = await Promise.race([
        p.waitForSelector(selectors.join(', '), { timeout: phaseSeconds * 1000 }).then(() => 'ok', () => 'timeout'),
        new Promise((resolve) => p.once('crash', () => resolve('crash'))),
        died.then(() => 'died'),
      ]);
      const seconds = (Date.now() - t0) / 1000;
      if (found === 'crash') throw Object.assign(new Error(`${what}: the tab crashed after ${seconds.toFixed(0)} s`), { seconds });
      if (found === 'died') throw Object.assign(new Error(`${what}: a worker failed after ${seconds.toFixed(0)} s, and the page waits for it`), { seconds });
      if (found === 'timeout') throw Object.assign(new Error(`${what}: nothing after ${phaseSeconds} s`), { seconds });
      for (const id of ['#load-error', '#data-error', '#run-error']) {
        const e = await p.$(id);
        if (e) throw Object.assign(new Error(`${what}: ${id.slice(1)}: ${(await e.textContent()).trim()}`), { seconds });
      }
      return seconds;
    };
    try {
      const t0 = Date.now();
      await p.setInputFiles('#file-input', fileOf(n));
      r.loadSeconds = await stage(['#dataset-summary', '#load-error', '#data-error'], 'loading');
      await p.waitForSelector('#plans[aria-busy="false"] tbody td:is(.time, .unavailable)', { timeout: phaseSeconds * 1000 });
      r.loadPlanSeconds = (Date.now() - t0) / 1000;
      // The one engine started by now is the planning worker's, which checked the data.
      planning = [...(await wasmMemory(p)).keys()];
      if (pauseSeconds > 0) await p.waitForTimeout(pauseSeconds * 1000);
      await p.evaluate(() => { window.scalePhase = 'fit'; });
      await keepReleases(p);
      await p.click('#run-button');
      r.fitSeconds = await stage(['#results', '#run-error'], 'fitting');
      await p.waitForFunction(() => document.querySelector('#run-progress')?.value === 100, null, { timeout: 60000 }).catch(() => {});
      // The mechanism's own wall time (its diagnostics' seconds).
      r.mechSeconds = (await lastRelease(p))?.result.release.diagnostics.seconds;
    } catch (e) {
      r.error = e.message;
      r.failedAfter = e.seconds;
    } finally {
      clearInterval(sampler);
      peak = Math.max(peak, chromiumRSS().total);
    }
    r.rssBase = base;
    r.rssPeak = peak;
    r.rssProcessPeak = chromiumRSS().peak;
    if (!r.error || !/crashed/.test(r.error)) {
      const status = await p.textContent('#engine-status').catch(() => '');
      if (/failed/.test(status)) note('engine: ' + status);
      // The planning worker's memory first, then the others' (the run's).
      const wasm = await wasmMemory(p);
      r.wasm = [...wasm.keys()].sort((a, b) => planning.includes(b) - planning.includes(a)).map((w) => wasm.get(w));
      const seen = await p.evaluate(() => ({ tasks: window.scaleLongTasks, check: [...window.scaleProgress.check], run: [...window.scaleProgress.run] })).catch(() => null);
      if (seen) {
        r.longTasks = Object.fromEntries(Object.entries(seen.tasks).map(([k, t]) => [k, { count: t.length, longest: Math.max(0, ...t) }]));
        r.checkProgress = seen.check.length;
        r.runProgress = seen.run.filter((v) => v > 0 && v < 100).length;
      }
    }
  } finally {
    await context.close().catch(() => {});
  }
  return r;
}

const mb = (b) => (b / 1e6).toFixed(0);
const s = (x) => (x === undefined ? '—' : x.toFixed(1));
// bytesPerRow returns the mean length of a row of the largest file measured, rounded to ten bytes.
const bytesPerRow = () => {
  const n = Math.max(...sizes);
  return Math.round(statSync(fileOf(n)).size / n / 10) * 10;
};

const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim().replace(/^.*load average:/, 'load average');
const loads = [uptime()];
const results = [];
const server = skip === 'chromium' ? null : await startServer();
const browser = skip === 'chromium' ? null : await launch();
try {
  for (const n of sizes) {
    generate(n);
    const row = { n };
    if (skip !== 'native') {
      row.native = native(n);
      console.error(`scale: ${n} rows natively: ${JSON.stringify(row.native)}`);
    }
    for (const workers of browser ? (workerCounts.length ? workerCounts : [undefined]) : []) {
      const pg = await page(browser, server, n, workers);
      console.error(`scale: ${n} rows in Chromium${workers ? ` with ${workers} workers` : ''}: ${JSON.stringify(pg)}`);
      results.push({ ...row, page: pg, again: results.at(-1)?.n === n });
    }
    if (!browser) results.push(row);
  }
} finally {
  await browser?.close();
  await server?.stop();
}

loads.push(uptime());
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim() !== '';
const lines = [
  '# privopt at scale: fit time and memory against the number of rows',
  '',
  `Written by \`./build.sh bench ${workerCounts.length ? '--workers' : float32 ? '--scale-float32' : tag ? '--scale-numeric' : '--scale'}\` (tests/scale.mjs) at commit ${commit}${dirty ? ' with uncommitted changes' : ''}, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC,`,
  `on a machine with ${execFileSync('nproc', { encoding: 'utf8' }).trim()} cores shared with other jobs (times vary by tens of percent between runs). The data: n rows of`,
  `${numericColumns} numeric columns${categoricalColumns ? ` and ${categoricalColumns} categorical columns of 8 levels each` : ''} and a binary label, about ${bytesPerRow()} bytes`,
  `a row (${numericColumns + 8 * categoricalColumns + 1} encoded features with the bias, held ${4 * (numericColumns + categoricalColumns + 1) <= numericColumns + 8 * categoricalColumns + 1 ? 'sparse' : 'dense'}); one noisy-gd fit at ε = 1, δ = 10⁻⁶ with the defaults`,
  `(private ranges, and in the page 20 % of the rows held out)${float32 ? ', the values held as float32 (`--float32`, `f32=1`)' : ''}.`,
  ...(pauseSeconds > 0 ? ['', `The page waited ${pauseSeconds} s between showing its plans and Run (PRIVOPT_SCALE_PAUSE), as a person`,
    'choosing model and budget would; the run\'s worker reads the checked file meanwhile.'] : []),
  ...(workerCounts.length ? ['', `The page's fit is measured with ${workerCounts.join(', ')} engine workers, in this order (**page: workers**; the page is told the`,
    'machine has that many cores): with one run, the workers beyond the first help it, each computing',
    'its range of the chunks of every full pass (docs/scaling.md); each helper reads the file too, while',
    'the run\'s worker does, and keeps only the rows of its range. Load average (`uptime`) before and',
    `after: ${loads[0]}; ${loads[1]}.`] : []),
  '',
  '| rows | file (MB) | native: time (s) | native: CPU (s) | native: peak memory (MB) | page: workers | load average before | page: load (s) | page: fit (s) | page: noisy-gd (s) | page: peak memory (MB) | page: wasm memory (MB) | page: long tasks, load and fit (longest) | outcome |',
  '|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|',
];
for (const { n, native: found, page: pg, again } of results) {
  const nat = again ? undefined : found; // measured once for each n
  const bytes = statSync(fileOf(n)).size;
  const outcome = [];
  if (nat && nat.exit !== 0) outcome.push(`native: ${nat.stderr.trim().split('\n').pop()}`);
  if (pg?.error) outcome.push(`page: ${pg.error}`);
  for (const e of pg?.events ?? []) if (!outcome.includes(e)) outcome.push(e);
  lines.push([
    n.toLocaleString('en-US'), mb(bytes),
    nat ? (nat.exit === 0 ? s(nat.seconds) : `failed after ${s(nat.seconds)}`) : '—',
    nat ? s(nat.user_seconds + nat.sys_seconds) : '—',
    nat ? mb(nat.peak_rss_bytes) : '—',
    pg?.workers ?? (pg ? 'all cores' : '—'),
    pg ? pg.load.replace('load average ', '') : '—',
    pg ? (pg.loadSeconds !== undefined ? s(pg.loadSeconds) : `failed after ${s(pg.failedAfter)}`) : '—',
    pg ? (pg.fitSeconds !== undefined ? s(pg.fitSeconds) : (pg.loadSeconds !== undefined ? `failed after ${s(pg.failedAfter)}` : '—')) : '—',
    pg?.mechSeconds !== undefined ? s(pg.mechSeconds) : '—',
    pg ? mb(pg.rssPeak - pg.rssBase) : '—',
    pg?.wasm ? pg.wasm.map(mb).join(' + ') : '—',
    pg?.longTasks ? ['load', 'fit'].map((k) => `${pg.longTasks[k].count} (${pg.longTasks[k].longest.toFixed(0)} ms)`).join(', ') : '—',
    outcome.length ? outcome.join('; ').replaceAll('|', '\\|') : 'fitted',
  ].join(' | ').replace(/^/, '| ').replace(/$/, ' |'));
}
lines.push('',
  'The columns: **rows** the number of data rows in the file and **file** its size; **native: time**',
  'the wall time of `privopt fit` (reading, encoding, private ranges, the fit and its output) and',
  '**CPU** its user and system time, on every core (`--workers` at its default); **native: peak',
  'memory** the process\'s maximum resident set size; **page: load** the seconds from choosing the',
  'file in the page to its summary of the encoded data (the planning worker reads and encodes the',
  'whole file); **page: fit** the seconds from Run to the results (what is left of the run\'s worker\'s',
  'reading of the file, which it starts once the data is checked, then the private ranges, the fit',
  'and the evaluation on the held-out rows); **page: noisy-gd**',
  'the fit alone, as the run\'s diagnostics report it; **load average before** the',
  'machine\'s load (`uptime`: over 1, 5 and 15 minutes) when the page was opened; **page: peak',
  'memory** the largest resident memory of all the Chromium processes together, sampled every',
  '250 ms, minus what they held before the file was chosen; **page: wasm memory** each engine',
  'worker\'s WebAssembly memory at the end (the planning worker\'s, then the run\'s and its',
  'helpers\'), which never shrinks and so is each worker\'s peak; **page: long tasks** the main thread\'s tasks over 50 ms',
  '(a long task freezes the page) while loading (from choosing the file to the plans shown) and',
  'while fitting, and the longest of each; **outcome** how it ended.',
  '');
writeFileSync(outPath, lines.join('\n'));
console.error(lines.join('\n'));
