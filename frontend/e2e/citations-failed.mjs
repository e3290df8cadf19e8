// Failures in the page against the real Go backend in browser mode, driven by
// app/citations_e2e_test.go (TestBrowserE2ESearchFailed): node e2e/citations-failed.mjs URL,
// with AF_QUESTION (asked) and AF_PROBLEM (the settings' reason search is not ready, e.g.
// "needs an API key"). Search is set to a provider without its key, so the banner says so
// before anything runs and offers the settings; after a run whose only search failed, the
// answer's footer shows the failure as a warning, the activity summary counts it, the banner
// says every search failed, and [2] (never recorded) is an unresolved chip. Saves
// /tmp/ui-citations-failed.png. Exits non-zero on the first failure.
import { assert, checker, launch } from './browser.mjs';

const url = process.argv[2];
const question = process.env.AF_QUESTION;
const problem = process.env.AF_PROBLEM;
if (!url || !question || !problem) {
  console.error('usage: AF_QUESTION=.. AF_PROBLEM=.. node e2e/citations-failed.mjs URL');
  process.exit(2);
}

const { page, errors, close } = await launch();
const check = checker(page, close);
await page.goto(url);
const banner = page.locator('.search-banner');

await check('the banner says search is not set up and opens the settings', async () => {
  await page.locator('nav.sidebar').waitFor();
  await banner.waitFor();
  const text = (await banner.textContent()) ?? '';
  assert(text.includes('Web search is not set up.') && text.includes(problem), `banner reads "${text}"`);
  await banner.getByRole('button', { name: 'Open Settings' }).click();
  await page.getByRole('dialog').first().waitFor();
  await page.keyboard.press('Escape');
  await page.getByRole('dialog').first().waitFor({ state: 'detached' });
  await banner.getByRole('button', { name: 'Dismiss' }).click();
  await banner.waitFor({ state: 'detached' });
});

await check('a run whose search fails still completes', async () => {
  await page.getByRole('textbox', { name: 'Research question' }).fill(question);
  await page.keyboard.press('Enter');
  const done = page.locator('.exchange').last().locator('.figures');
  await done.waitFor({ timeout: 120_000 });
});

await check('the footer shows the failed search as a warning; [2] is unresolved, [1] a chip', async () => {
  const ex = page.locator('.exchange').last();
  const warn = ex.locator('.answer-failures');
  await warn.waitFor();
  const text = (await warn.textContent()) ?? '';
  assert(/1 of 1 search(es)? failed/.test(text), `failure line reads "${text}"`);
  const color = await warn.evaluate((el) => getComputedStyle(el).borderTopColor);
  assert(color !== 'rgba(0, 0, 0, 0)', 'the failure line has no warning border');
  const missing = ex.locator('.answer .cite-missing');
  assert((await missing.textContent()) === '2', 'no unresolved chip 2');
  assert((await missing.getAttribute('title')) === "source 2 is not in this conversation's sources", 'unresolved chip has no title');
  assert((await ex.locator('.answer a').count()) === 0, 'a link in the answer');
  assert((await ex.locator('.answer button.cite').textContent()) === '1', 'chip 1 is not resolved');
  const list = ex.locator('.answer-sources li');
  assert((await list.count()) === 1, `${await list.count()} cited sources listed, want 1`);
});

await check('the activity summary counts the failed search', async () => {
  const sum = page.locator('.exchange').last().locator('.activity-web');
  assert(((await sum.textContent()) ?? '').includes('1 search (1 failed)'), `activity reads "${await sum.textContent()}"`);
  assert(await sum.evaluate((el) => el.classList.contains('has-failures')), 'failures not marked');
});

await check('the banner says every search of the last run failed', async () => {
  await banner.waitFor();
  const text = (await banner.textContent()) ?? '';
  assert(text.includes('Every web search of the last run failed.'), `banner reads "${text}"`);
  await page.mouse.move(0, 0);
  await page.screenshot({ path: '/tmp/ui-citations-failed.png' });
  console.log('     screenshot /tmp/ui-citations-failed.png');
  await banner.getByRole('button', { name: 'Dismiss' }).click();
  await banner.waitFor({ state: 'detached' });
});

await check('no page errors', async () => {
  assert(errors.length === 0, errors.join('\n'));
});

console.log(`${String(check.passed)} passed, 0 failed`);
await close();
