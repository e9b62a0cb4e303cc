// Takes the screenshots the documentation shows: the page after three noisy-gd runs of the
// demo, at 1280 px with the results' privacy report in view (the README's picture,
// docs/screenshots/page-1280.png) and at 375 px with the weights chart in view
// (docs/screenshots/page-375.png). A tool, not a test.
// After ./build.sh build, from tests/:
//   PRIVOPT_BIN=.bin/privopt PRIVOPT_DIST=../dist PRIVOPT_CHROMIUM=/usr/bin/chromium \
//   PRIVOPT_ARTIFACTS=/tmp/privopt-artifacts node screenshots.mjs
import { launch, startServer } from './lib.mjs';

const out = new URL('../docs/screenshots/', import.meta.url).pathname;
const server = await startServer();
const browser = await launch();
for (const [width, height, view] of [[1280, 900, '#results'], [375, 812, '#weights-chart-text']]) {
  const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  await page.goto(`${server.url}?data=demo&mech=noisy-gd&runs=3`);
  await page.waitForSelector('#dataset-summary', { timeout: 60000 });
  await page.waitForFunction(() => document.querySelector('#plans')?.getAttribute('aria-busy') === 'false', null, { timeout: 60000 });
  await page.click('#run-button');
  await page.waitForSelector('#results', { timeout: 120000 });
  await page.waitForFunction(() => document.querySelector('#run-progress')?.value === 100, null, { timeout: 120000 });
  await page.waitForTimeout(500);
  await page.evaluate((sel) => document.querySelector(sel).scrollIntoView(), view);
  await page.screenshot({ path: `${out}page-${width}.png` });
  console.log(`wrote docs/screenshots/page-${width}.png`);
  await context.close();
}
await browser.close();
await server.stop();
