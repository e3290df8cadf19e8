// Remote images and "Load images" against the real Go backend in browser mode, driven by
// app/images_e2e_test.go (TestBrowserE2ERemoteImages): node e2e/remote-images.mjs URL,
// with AF_IMAGE_URL (an image on the test's own server, which counts requests;
// AF_IMAGE_COUNT_URL answers the count). A question quoting the image in markdown gets an
// answer that repeats it (the scripted model echoes); the answer shows "Load images" and
// the image server has had no request; after the click it has. Browser mode's page CSP
// (img-src 'self' data: blob:) would block any remote image even after the click, so this
// page runs with CSP bypassed, as the desktop window (which has no CSP) does. Exits
// non-zero on the first failure.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { assert, checker } from './browser.mjs';

const url = process.argv[2];
const imageURL = process.env.AF_IMAGE_URL;
const countURL = process.env.AF_IMAGE_COUNT_URL;
if (!url || !imageURL || !countURL) {
  console.error('usage: AF_IMAGE_URL=.. AF_IMAGE_COUNT_URL=.. node e2e/remote-images.mjs URL');
  process.exit(2);
}

const profile = await mkdtemp(join(tmpdir(), 'af-e2e-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  headless: true,
  bypassCSP: true,
  viewport: { width: 1280, height: 860 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const close = async () => {
  await context.close().catch(() => {});
  await rm(profile, { recursive: true, force: true }).catch(() => {});
};
const page = context.pages()[0] ?? (await context.newPage());
const check = checker(page, close);
/** Requests the image server has had, asked outside the page. */
const count = async () => Number(await (await fetch(countURL)).text());

await page.goto(url);

await check('an answer with a remote image fetches nothing until "Load images"', async () => {
  const box = page.getByPlaceholder('Ask a research question…');
  await box.fill(`Show ![chart](${imageURL})`);
  await box.press('Enter');
  await page.getByText('saw Show').first().waitFor();
  const button = page.locator('.load-images').last();
  await button.waitFor();
  const img = page.locator(`img[data-blocked-src="${imageURL}"]`).last();
  await img.waitFor({ state: 'attached' });
  await page.waitForTimeout(500); // give a wrongly loading image the time to be requested
  assert((await count()) === 0, `the image server had ${String(await count())} requests before the click`);
  await button.click();
  await page.locator(`img[src="${imageURL}"]`).first().waitFor({ state: 'attached' });
  await page.waitForFunction(async (u) => Number(await (await fetch(u)).text()) > 0, countURL, { timeout: 10_000 }).catch(() => {});
  assert((await count()) >= 1, 'the image was not requested after "Load images"');
});

console.log(`${String(check.passed)} checks passed`);
await close();
