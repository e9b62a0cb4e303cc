// Helpers of privopt's browser tests: start `privopt serve` or the Cloudflare Worker (wrangler
// dev) on free loopback ports, launch Debian's Chromium with Playwright, and record every
// request a page makes. build.sh test sets PRIVOPT_BIN, PRIVOPT_DIST, PRIVOPT_CHROMIUM,
// PRIVOPT_WORKER and PRIVOPT_ARTIFACTS.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';

export function env(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run the browser tests with ./build.sh test`);
  return v;
}

export const artifacts = () => {
  const dir = env('PRIVOPT_ARTIFACTS');
  mkdirSync(dir, { recursive: true });
  return dir;
};

// serveAndLaunch starts privopt serve and Chromium before the tests of the file that calls it
// (node:test's before) and stops them after (after); it returns the object whose server and
// browser they are, set once the tests start.
export function serveAndLaunch() {
  const env = {};
  before(async () => {
    env.server = await startServer();
    env.browser = await launch();
  });
  after(async () => {
    await env.browser?.close();
    await env.server?.stop();
  });
  return env;
}

// startServer runs `privopt serve --addr 127.0.0.1:0 [--prefix PREFIX]` and resolves with its
// URL (the prefix included), its origin and a stop function.
export function startServer(dir = env('PRIVOPT_DIST'), prefix = '/') {
  const proc = spawn(env('PRIVOPT_BIN'), ['serve', '--dir', dir, '--addr', '127.0.0.1:0', '--prefix', prefix], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('privopt serve did not start in 20 s:\n' + log)), 20000);
    proc.stderr.on('data', (d) => { log += d; });
    proc.stdout.on('data', (d) => {
      log += d;
      const m = /serving .* on (http:\/\/127\.0\.0\.1:\d+)\//.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve({
          url: m[1] + prefix,
          origin: m[1],
          stop: () => new Promise((done) => { proc.once('exit', done); proc.kill('SIGTERM'); }),
        });
      }
    });
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`privopt serve exited with ${code}:\n${log}`)); });
  });
}

// startCoursePage serves one HTML page at / from a plain HTTP server on a free loopback port:
// a site of another origin (a course page) that embeds privopt. It resolves with its URL, its
// origin and a stop function.
export function startCoursePage(html) {
  const srv = http.createServer((req, res) => {
    res.writeHead(req.url === '/' ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(req.url === '/' ? html : 'not found');
  });
  return new Promise((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const origin = `http://127.0.0.1:${srv.address().port}`;
      resolve({ url: origin + '/', origin, stop: () => new Promise((done) => srv.close(done)) });
    });
  });
}

// launch starts headless Chromium with flags that keep it off the network. Playwright gives
// it a fresh, temporary profile.
export async function launch() {
  return chromium.launch({
    executablePath: env('PRIVOPT_CHROMIUM'),
    headless: true,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
}

// recordRequests records every request of a browser context (pages and their workers), with
// the time it was made.
export function recordRequests(context) {
  const requests = [];
  context.on('request', (r) => requests.push({ url: r.url(), at: Date.now() }));
  return requests;
}

// keepReleases makes every engine worker of page keep the last "release" message it posts (the
// page forgets the rest); lastRelease returns it, parsed, from whichever worker has one.
export async function keepReleases(page) {
  for (const w of page.workers()) {
    await w.evaluate(() => {
      const post = self.postMessage.bind(self);
      self.postMessage = (m, t) => {
        if (typeof m === 'string' && m.includes('"kind":"release"')) self.lastRelease = m;
        return post(m, t);
      };
    });
  }
}

export async function lastRelease(page) {
  let release;
  for (const w of page.workers()) {
    const m = await w.evaluate(() => self.lastRelease).catch(() => undefined);
    if (m) release = JSON.parse(m);
  }
  return release;
}

// collectErrors records console errors and uncaught exceptions of a page.
export function collectErrors(page) {
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push('console: ' + m.text()); });
  page.on('pageerror', (e) => errors.push('pageerror: ' + e.message));
  return errors;
}

// freePort returns a loopback TCP port that was free a moment ago.
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// startWorker runs `wrangler dev` in wasm/cfworker on free loopback ports (wrangler first runs
// its build command, ./build.sh worker-build; ./build.sh site has built dist/) and resolves,
// once the Worker answers, with its URL, its origin, its log and a stop function that ends
// wrangler and its workerd (a process group; also killed if the test process exits).
export async function startWorker() {
  const dir = env('PRIVOPT_WORKER');
  const port = await freePort();
  const inspector = await freePort();
  const proc = spawn(path.join(dir, 'node_modules', '.bin', 'wrangler'), [
    'dev', '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', String(inspector),
    '--show-interactive-dev-session=false',
  ], {
    cwd: dir,
    detached: true, // its own process group, so that stop() ends workerd too
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1' },
  });
  let exited = false;
  const exit = new Promise((done) => proc.once('exit', () => { exited = true; done(); }));
  const kill = (signal) => { try { process.kill(-proc.pid, signal); } catch { /* already gone */ } };
  const killOnExit = () => kill('SIGKILL');
  process.once('exit', killOnExit);
  const log = [];
  proc.stdout.on('data', (d) => log.push(String(d)));
  proc.stderr.on('data', (d) => log.push(String(d)));
  const worker = {
    url: `http://127.0.0.1:${port}/`,
    origin: `http://127.0.0.1:${port}`,
    log: () => log.join(''),
    stop: async () => {
      process.removeListener('exit', killOnExit);
      if (!exited) {
        proc.kill('SIGTERM'); // wrangler stops workerd and waits for it
        const timer = setTimeout(() => kill('SIGKILL'), 10000);
        await exit;
        clearTimeout(timer);
      }
      kill('SIGKILL'); // anything of the group that outlived wrangler
    },
  };
  // Ready when wrangler says so and the Worker answers.
  for (const deadline = Date.now() + 120000; ; await new Promise((r) => setTimeout(r, 250))) {
    if (exited) throw new Error('wrangler dev exited:\n' + worker.log());
    if (Date.now() > deadline) {
      await worker.stop();
      throw new Error('wrangler dev did not answer in 120 s:\n' + worker.log());
    }
    if (!/Ready on http/.test(worker.log())) continue;
    try {
      if ((await fetch(worker.url + 'api/curve?mu=1')).status === 200) return worker;
    } catch { /* not listening yet */ }
  }
}

// securityHeaders returns the headers of dist/_headers (written by ./build.sh site from
// internal/site, which a Go test keeps equal), lower-cased names to values.
export function securityHeaders() {
  const headers = {};
  for (const line of readFileSync(path.join(env('PRIVOPT_DIST'), '_headers'), 'utf8').split('\n')) {
    const m = /^\s+([^:]+):\s(.*)$/.exec(line);
    if (m) headers[m[1].toLowerCase()] = m[2];
  }
  if (Object.keys(headers).length < 4) throw new Error('dist/_headers has too few headers: run ./build.sh site');
  return headers;
}

// assertHeaders checks that a response's headers (a Headers object or a plain object with
// lower-case names) include the wanted ones exactly.
export function assertHeaders(headers, want, what) {
  const get = (k) => (typeof headers.get === 'function' ? headers.get(k) : headers[k]);
  for (const [k, v] of Object.entries(want)) {
    assert.equal(get(k), v, `${what}: ${k}`);
  }
}
