// Measures the page's long main-thread tasks (PerformanceObserver 'longtask', over 50 ms)
// during fits of the demo in headless Chromium: a measurement for issue reports, not a test
// (times depend on the machine). After ./build.sh build, from tests/:
//   PRIVOPT_BIN=.bin/privopt PRIVOPT_DIST=../dist PRIVOPT_CHROMIUM=/usr/bin/chromium \
//   PRIVOPT_ARTIFACTS=/tmp/privopt-artifacts node longtasks.mjs
import { launch, startServer } from './lib.mjs';

const server = await startServer();
const browser = await launch();
for (const [mech, runs, opts] of [['noisy-gd', 1, ''], ['noisy-gd', 8, ''], ['rem', 4, '&opt.Sampler=mala&opt.FastSteps=2000']]) {
  const page = await browser.newPage();
  await page.goto(`${server.url}?data=demo&mech=${mech}&runs=${runs}${opts}`);
  await page.waitForSelector('#dataset-summary', { timeout: 60000 });
  await page.waitForFunction(() => document.querySelector('#plans')?.getAttribute('aria-busy') === 'false', null, { timeout: 60000 });
  const start = await page.evaluate(() => {
    window.longTasks = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.longTasks.push([e.startTime, e.duration]); }).observe({ type: 'longtask' });
    return performance.now();
  });
  const t0 = Date.now();
  await page.click('#run-button');
  await page.waitForSelector('#results', { timeout: 120000 });
  await page.waitForFunction(() => document.querySelector('#run-progress')?.value === 100, null, { timeout: 120000 });
  await page.waitForTimeout(500);
  const tasks = await page.evaluate(() => window.longTasks);
  const total = tasks.reduce((s, t) => s + t[1], 0);
  const longest = Math.max(0, ...tasks.map((t) => t[1]));
  console.log(`${mech} × ${runs}: ${((Date.now() - t0) / 1000).toFixed(2)} s, ${tasks.length} long tasks, ${total.toFixed(0)} ms in all, the longest ${longest.toFixed(0)} ms; ` +
    `[start ms, duration ms] after Run: ${JSON.stringify(tasks.map((t) => [Math.round(t[0] - start), Math.round(t[1])]))}`);
  await page.close();
}
await browser.close();
await server.stop();
