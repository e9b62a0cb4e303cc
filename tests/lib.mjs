// Helpers of privopt's browser tests: start `privopt serve` on a free loopback port, launch
// Debian's Chromium with Playwright, and record every request a page makes.
// build.sh test sets PRIVOPT_BIN, PRIVOPT_DIST, PRIVOPT_CHROMIUM and PRIVOPT_ARTIFACTS.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';

function env(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run the browser tests with ./build.sh test`);
  return v;
}

export const artifacts = () => {
  const dir = env('PRIVOPT_ARTIFACTS');
  mkdirSync(dir, { recursive: true });
  return dir;
};

// startServer runs `privopt serve --addr 127.0.0.1:0` and resolves with its URL and a stop function.
export function startServer(dir = env('PRIVOPT_DIST')) {
  const proc = spawn(env('PRIVOPT_BIN'), ['serve', '--dir', dir, '--addr', '127.0.0.1:0'], {
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
          url: m[1] + '/',
          origin: m[1],
          stop: () => new Promise((done) => { proc.once('exit', done); proc.kill('SIGTERM'); }),
        });
      }
    });
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`privopt serve exited with ${code}:\n${log}`)); });
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

// collectErrors records console errors and uncaught exceptions of a page.
export function collectErrors(page) {
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push('console: ' + m.text()); });
  page.on('pageerror', (e) => errors.push('pageerror: ' + e.message));
  return errors;
}
