// Measures the page's predicted times against the actual ones on the demo in headless
// Chromium: for each case, the plan table's predicted time per run, the run step's first
// "Remaining" (the prediction for all runs), and the time from Run to the results. A
// measurement for issue reports, not a test (times depend on the machine). After
// ./build.sh build, from tests/:
//   PRIVOPT_BIN=.bin/privopt PRIVOPT_DIST=../dist PRIVOPT_CHROMIUM=/usr/bin/chromium \
//   PRIVOPT_ARTIFACTS=/tmp/privopt-artifacts node predicted.mjs
import { launch, startServer } from './lib.mjs';

const cases = [
  ['noisy-gd', 1, ''], ['noisy-gd', 4, ''], ['noisy-gd', 8, ''], ['outpert-gauss', 4, ''],
  ['langevin', 2, ''], ['rem', 1, ''], ['rem', 4, '&opt.Sampler=mala&opt.FastSteps=2000'],
];
const server = await startServer();
const browser = await launch();
for (const [mech, runs, opts] of cases) {
  const page = await browser.newPage();
  await page.goto(`${server.url}?data=demo&mech=${mech}&runs=${runs}${opts}`);
  await page.waitForSelector('#dataset-summary', { timeout: 60000 });
  await page.waitForFunction(() => document.querySelector('#plans')?.getAttribute('aria-busy') === 'false', null, { timeout: 60000 });
  await page.waitForFunction((m) => /\d/.test(document.querySelector(`#plan-${m} td[data-label="predicted time per run"]`)?.textContent || ''), mech, { timeout: 60000 });
  const perRun = await page.textContent(`#plan-${mech} td[data-label="predicted time per run"]`);
  const t0 = Date.now();
  await page.click('#run-button');
  await page.waitForSelector('#remaining');
  const remaining = await page.textContent('#remaining');
  await page.waitForSelector('#results', { timeout: 600000 });
  const took = (Date.now() - t0) / 1000;
  console.log(`${mech} × ${runs}: predicted per run ${perRun.trim()}, at Run "${remaining.trim()}", took ${took.toFixed(1)} s`);
  await page.close();
}
await browser.close();
await server.stop();
