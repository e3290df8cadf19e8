// Numbered citations in the page against the real Go backend in browser mode, driven by
// app/citations_e2e_test.go (TestBrowserE2ECitations): node e2e/citations.mjs URL, with
// AF_QUESTION (asked), AF_SOURCE1_URL and AF_SOURCE1_TITLE (the fetched page, source 1),
// AF_SOURCE2_TITLE (the result only listed, source 2). The scripted lead answers and writes
// its report citing [1] and [2]. Checks the chips, the hover card (inside the window),
// keyboard focus and Enter, the answer's Sources list, the activity summary, the panel's
// Sources tab and its filter, and chips in the report. Saves /tmp/ui-citations.png,
// ui-citations-tab.png and ui-citations-dark.png. Exits non-zero on the first failure.
import { assert, checker, launch } from './browser.mjs';

const url = process.argv[2];
const env = (k) => {
  const v = process.env[k];
  if (!v) {
    console.error(`usage: AF_QUESTION=.. AF_SOURCE1_URL=.. AF_SOURCE1_TITLE=.. AF_SOURCE2_TITLE=.. node e2e/citations.mjs URL (missing ${k})`);
    process.exit(2);
  }
  return v;
};
const question = env('AF_QUESTION');
const source1URL = env('AF_SOURCE1_URL');
const source1Title = env('AF_SOURCE1_TITLE');
const source2Title = env('AF_SOURCE2_TITLE');
if (!url) process.exit(2);

const { page, errors, close } = await launch();
const check = checker(page, close);
await page.goto(url);

const answer = page.locator('.exchange').last().locator('.answer');
const card = page.locator('.cite-card');
/** BrowserOpenURL calls the page made, recorded by a wrapper around the shim's. */
const opened = () => page.evaluate(() => window.__opened ?? []);

await check('a question citing [1] and [2] runs to completion', async () => {
  await page.locator('nav.sidebar').waitFor();
  await page.evaluate(() => {
    window.__opened = [];
    // Record instead of opening tabs: what matters is what the page asked to open.
    window.runtime.BrowserOpenURL = (u) => window.__opened.push(u);
  });
  await page.getByRole('textbox', { name: 'Research question' }).fill(question);
  await page.keyboard.press('Enter');
  const done = page.locator('.exchange').last().locator('.figures');
  const failed = page.locator('.error-box');
  const quiet = (p) => p.then(() => true, () => false);
  const finished = await Promise.race([quiet(done.waitFor({ timeout: 120_000 })), quiet(failed.waitFor({ timeout: 120_000 }))]);
  if (await failed.count()) throw new Error(`the run failed: ${await failed.first().textContent()}`);
  assert(finished, 'the run did not finish within 120 s');
});

await check('the answer shows [1] and [2] as chips, and no bracketed numbers', async () => {
  const chips = answer.locator('button.cite');
  await chips.first().waitFor();
  assert((await chips.allTextContents()).join(',') === '1,2', `chips read ${(await chips.allTextContents()).join(',')}`);
  assert((await answer.locator('.cite-missing').count()) === 0, 'an unresolved chip in the answer');
  const text = (await answer.textContent()) ?? '';
  assert(!/\[\d\]/.test(text), `the answer still shows a bracketed number: ${text}`);
  assert((await chips.first().getAttribute('aria-label')) === `Source 1: ${source1Title}`, 'chip 1 has no accessible name');
});

await check('hovering chip [1] shows its card inside the window: title, site, read', async () => {
  await answer.locator('button.cite').first().hover();
  await card.waitFor();
  const text = (await card.textContent()) ?? '';
  for (const want of [source1Title, '127.0.0.1', 'page read']) assert(text.includes(want), `card reads "${text}", no ${want}`);
  const box = await card.boundingBox();
  const view = page.viewportSize();
  assert(box && view && box.x >= 0 && box.y >= 0 && box.x + box.width <= view.width && box.y + box.height <= view.height, `card at ${JSON.stringify(box)} leaves the window`);
  await page.screenshot({ path: '/tmp/ui-citations.png' });
  console.log('     screenshot /tmp/ui-citations.png');
  await page.mouse.move(5, 5);
  await card.waitFor({ state: 'detached' });
});

await check('a click on chip [1] opens the page through BrowserOpenURL', async () => {
  await answer.locator('button.cite').first().click();
  const got = await opened();
  assert(got.length === 1 && got[0] === source1URL, `opened ${JSON.stringify(got)}`);
});

await check('keyboard: Tab from chip [1] to chip [2] shows its card, Escape hides it, Enter opens it', async () => {
  const two = answer.locator('button.cite').nth(1);
  await answer.locator('button.cite').first().focus();
  await page.keyboard.press('Tab');
  assert(await two.evaluate((el) => el === document.activeElement), 'Tab did not reach chip [2]');
  await card.waitFor();
  assert(((await card.textContent()) ?? '').includes(source2Title), 'the card is not source 2');
  assert(((await card.textContent()) ?? '').includes('listed in results'), 'source 2 is not shown as listed');
  const outline = await two.evaluate((el) => getComputedStyle(el).outlineStyle);
  assert(outline !== 'none', 'no visible focus outline on the chip');
  await page.keyboard.press('Escape');
  await card.waitFor({ state: 'detached' });
  await page.keyboard.press('Enter');
  const got = await opened();
  assert(got.length === 2 && got[1] !== source1URL && got[1].startsWith('http'), `opened ${JSON.stringify(got)}`);
});

await check('the answer ends with its cited sources: chips and links', async () => {
  const list = page.locator('.exchange').last().locator('.answer-sources li');
  assert((await list.count()) === 2, `${await list.count()} cited sources listed`);
  assert((await list.nth(0).locator('button.cite').textContent()) === '1', 'first line has no chip 1');
  assert((await list.nth(0).locator('a').textContent()) === source1Title, 'first line has no link to the page');
  assert((await list.nth(1).textContent())?.includes(source2Title), 'second line is not source 2');
  assert((await page.locator('.answer-failures').count()) === 0, 'a failure line although nothing failed');
});

await check('the activity summary counts the search and the page', async () => {
  const sum = (await page.locator('.exchange').last().locator('.activity-sum').textContent()) ?? '';
  assert(sum.includes('1 search · 1 page'), `activity summary reads "${sum}"`);
});

await check('the report shows its citations as chips and its Sources section', async () => {
  await page.locator('.artifact-row', { hasText: 'research_report' }).click();
  const doc = page.locator('.preview .doc');
  await doc.locator('button.cite').first().waitFor();
  const chips = await doc.locator('button.cite').allTextContents();
  assert(chips.includes('1') && chips.includes('2'), `report chips: ${chips.join(',')}`);
  assert((await doc.locator('h2', { hasText: 'Sources' }).count()) === 1, 'the report has no Sources section');
  // The report sits at the window's right edge: the card moves left to stay inside.
  await doc.locator('button.cite').last().hover();
  await card.waitFor();
  const box = await card.boundingBox();
  const view = page.viewportSize();
  assert(box && view && box.x >= 0 && box.x + box.width <= view.width - 4, `card at ${JSON.stringify(box)} leaves the window`);
  await page.mouse.move(5, 5);
  await card.waitFor({ state: 'detached' });
});

await check('the Sources tab lists both sources in order, read and listed, and filters', async () => {
  const tab = page.getByRole('tab', { name: /Sources/ });
  await tab.click();
  const rows = page.locator('.source-list .source-row');
  await rows.first().waitFor();
  assert((await rows.count()) === 2, `${await rows.count()} rows`);
  assert(((await rows.nth(0).textContent()) ?? '').includes(source1Title), 'row 1 is not source 1');
  assert((await rows.nth(0).locator('.badge').textContent()) === 'read', 'source 1 not marked read');
  assert((await rows.nth(1).locator('.badge').textContent()) === 'listed', 'source 2 not marked listed');
  await page.screenshot({ path: '/tmp/ui-citations-tab.png' });
  console.log('     screenshot /tmp/ui-citations-tab.png');
  await page.getByRole('searchbox', { name: 'Filter sources' }).fill(source2Title.slice(0, 5).toLowerCase());
  assert((await rows.count()) === 1, 'the filter did not narrow the list');
  await rows.first().focus();
  await page.keyboard.press('Enter');
  const got = await opened();
  assert(got.length === 3 && got[2] === got[1], `opened ${JSON.stringify(got)}`);
  // Arrow keys move between the tabs.
  await tab.focus();
  await page.keyboard.press('ArrowLeft');
  assert((await page.getByRole('tab', { name: /Artifacts/ }).getAttribute('aria-selected')) === 'true', 'ArrowLeft did not select Artifacts');
});

await check('dark theme: chips and the card follow the system colours', async () => {
  await page.getByRole('tab', { name: /Artifacts/ }).click();
  await page.emulateMedia({ colorScheme: 'dark' });
  await answer.locator('button.cite').first().hover();
  await card.waitFor();
  const bg = await card.evaluate((el) => getComputedStyle(el).backgroundColor);
  assert(bg === 'rgb(29, 30, 33)', `dark card background ${bg}`);
  await page.screenshot({ path: '/tmp/ui-citations-dark.png' });
  console.log('     screenshot /tmp/ui-citations-dark.png');
  await page.mouse.move(5, 5);
  await page.emulateMedia({ colorScheme: 'light' });
});

await check('no page errors', async () => {
  assert(errors.length === 0, errors.join('\n'));
});

console.log(`${String(check.passed)} passed, 0 failed`);
await close();
