// Everyday actions against the real Go backend in browser mode, driven
// by app/everyday_e2e_test.go (TestBrowserE2EEveryday): node e2e/everyday.mjs URL with
// AF_ANSWER (the scripted answer: a [1] citation, "Moon" four times, a python code block)
// and AF_REPORT (the report lunar_report, with the word "perilune" and literal <b> markup).
// Checks copy (answer, code block, artifact: what reached navigator.clipboard.writeText and
// the clipboard itself, and the "Copied" confirmation), find (Ctrl+F), zoom (Ctrl + / 0,
// remembered across a reload) and the sidebar search finding report text with a plain-text
// snippet; find in the Reader and the artifact view. Saves /tmp/ui-everyday-find.png,
// ui-everyday-find-reader.png and ui-everyday-find-view.png. Exits non-zero on the first failure.
import { assert, checker, launch, screenshot } from './browser.mjs';

const url = process.argv[2];
const answer = process.env.AF_ANSWER;
const report = process.env.AF_REPORT;
if (!url || !answer || !report) {
  console.error('usage: AF_ANSWER=.. AF_REPORT=.. node e2e/everyday.mjs URL');
  process.exit(2);
}

const { page, errors, close } = await launch();
const check = checker(page, close);
const origin = new URL(url).origin;
await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
// Record every text the page writes to the clipboard (the write still happens).
await page.addInitScript(() => {
  window.__copied = [];
  const orig = navigator.clipboard.writeText.bind(navigator.clipboard);
  navigator.clipboard.writeText = (t) => {
    window.__copied.push(t);
    return orig(t);
  };
});
await page.goto(url);
await page.locator('main.chat').waitFor();

/** The last text the page copied, checked against the system clipboard. */
const lastCopied = async () => {
  const copied = await page.evaluate(() => window.__copied.at(-1));
  const clip = await page.evaluate(() => navigator.clipboard.readText());
  assert(clip === copied, `the clipboard holds ${JSON.stringify(clip)}, the page wrote ${JSON.stringify(copied)}`);
  return copied;
};

await check('a question runs to its answer', async () => {
  await page.getByRole('textbox', { name: 'Research question' }).fill('How far is the Moon?');
  await page.keyboard.press('Enter');
  await page.locator('.exchange .answer', { hasText: 'elliptical' }).waitFor({ timeout: 60_000 });
  await page.locator('.exchange .figures').waitFor({ timeout: 60_000 });
});

await check('Copy answer copies its Markdown with [1] and says Copied', async () => {
  const b = page.getByRole('button', { name: 'Copy answer' });
  await b.focus(); // keyboard reachable
  await page.keyboard.press('Enter');
  await page.locator('.msg-copy', { hasText: 'Copied' }).waitFor();
  const got = await lastCopied();
  assert(got.startsWith('The Moon is about 384,400 km away [1].') && got.includes('```python\nprint(384400)\n```'), `copied ${JSON.stringify(got)}`);
});

await check('a code block copies its code only', async () => {
  const pre = page.locator('.exchange .answer pre').first();
  await pre.hover();
  await pre.locator('button.code-copy').click();
  await pre.locator('button.code-copy[data-copied="true"]').waitFor();
  const got = await lastCopied();
  assert(got === 'print(384400)\n', `copied ${JSON.stringify(got)}, want the code only`);
  const label = await pre.locator('button.code-copy').evaluate((b) => getComputedStyle(b, '::before').content);
  assert(label === '"Copied"', `the code button shows ${label}`);
});

await check('the artifact copies its current content', async () => {
  await page.locator('.run-artifacts .chip').first().click();
  await page.locator('.preview', { hasText: 'perilune' }).waitFor();
  await page.getByRole('button', { name: 'Copy artifact' }).click();
  await page.getByRole('button', { name: 'Copy artifact: Copied' }).waitFor();
  const got = await lastCopied();
  assert(got === report, `copied ${JSON.stringify(got)}, want the report`);
});

await check('Ctrl+F finds in the conversation: count, Enter, Shift+Enter, Esc', async () => {
  await page.locator('.exchange .answer').click();
  await page.keyboard.press('Control+f');
  const input = page.getByRole('searchbox', { name: 'Find in conversation' });
  await input.waitFor();
  assert(await input.evaluate((el) => el === document.activeElement), 'the find box is not focused');
  await page.keyboard.type('moon');
  const count = page.locator('.find-count');
  // "Moon" three times in the answer, once in the question.
  const want = await page.evaluate(() => (document.querySelector('.chat-scroll')?.textContent?.toLowerCase().match(/moon/g) ?? []).length);
  assert(want >= 4, `the conversation shows "moon" ${String(want)} times`);
  await page.waitForFunction((n) => document.querySelector('.find-count')?.textContent === `1 / ${String(n)}`, want);
  const size = await page.evaluate(() => CSS.highlights.get('af-find')?.size ?? 0);
  assert(size === want, `${String(size)} ranges highlighted, want ${String(want)}`);
  await page.keyboard.press('Enter');
  assert((await count.textContent()) === `2 / ${String(want)}`, `after Enter: ${String(await count.textContent())}`);
  await page.keyboard.press('Shift+Enter');
  await page.keyboard.press('Shift+Enter');
  assert((await count.textContent()) === `${String(want)} / ${String(want)}`, `after Shift+Enter twice: ${String(await count.textContent())}`);
  const current = await page.evaluate(() => [...(CSS.highlights.get('af-find-current') ?? [])].map((r) => r.toString()).join());
  assert(current.toLowerCase() === 'moon', `the current match is "${current}"`);
  await screenshot(page, 'everyday-find');
  await page.keyboard.press('Escape');
  await page.locator('.find-bar').waitFor({ state: 'detached' });
  assert(await page.evaluate(() => !CSS.highlights.has('af-find')), 'highlights left after Esc');
});

await check('Ctrl+F finds in the Reader and in the artifact view, not in the conversation behind', async () => {
  await page.locator('aside.panel').getByRole('button', { name: 'Reader' }).click();
  const reader = page.locator('dialog.reader');
  await reader.waitFor();
  await page.keyboard.press('Control+f');
  const input = reader.getByRole('searchbox', { name: 'Find in report' });
  await input.waitFor();
  assert(await input.evaluate((el) => el === document.activeElement), 'the find box in the Reader is not focused');
  await page.keyboard.type('perilune');
  // "perilu" has one match too: wait until the find has caught up with the whole word.
  await page.waitForFunction(
    () => document.querySelector('dialog.reader .find-count')?.textContent === '1 / 1' && [...(CSS.highlights.get('af-find') ?? [])].some((r) => r.toString() === 'perilune'),
  );
  const inReader = await page.evaluate(() =>
    [...(CSS.highlights.get('af-find') ?? [])].map((r) => (r.startContainer.parentElement?.closest('.reader-body') ? r.toString() : 'outside')),
  );
  assert(inReader.join() === 'perilune', `highlighted ${JSON.stringify(inReader)}, want the Reader's one "perilune"`);
  await screenshot(page, 'everyday-find-reader');
  await page.keyboard.press('Escape');
  await reader.locator('.find-bar').waitFor({ state: 'detached' });
  assert(await reader.isVisible(), 'Esc in the find box closed the Reader too');
  assert(await page.evaluate(() => !CSS.highlights.has('af-find')), 'highlights left after Esc');
  await page.keyboard.press('Escape');
  await reader.waitFor({ state: 'detached' });

  await page.locator('.viewer .preview').click();
  await page.keyboard.press('Control+f');
  const inView = page.getByRole('searchbox', { name: 'Find in report' });
  await inView.waitFor();
  await page.keyboard.type('orbiter');
  await page.waitForFunction(() => document.querySelector('.find-bar .find-count')?.textContent === '1 / 1');
  const where = await page.evaluate(() => [...(CSS.highlights.get('af-find') ?? [])].map((r) => Boolean(r.startContainer.parentElement?.closest('.viewer .preview'))));
  assert(where.join() === 'true', `the artifact view's match is not the one highlighted: ${JSON.stringify(where)}`);
  await screenshot(page, 'everyday-find-view');
  await page.keyboard.press('Escape');
  await page.locator('.find-bar').waitFor({ state: 'detached' });
});

await check('Ctrl + zooms the whole UI, remembered across a reload; Ctrl 0 resets', async () => {
  const zoom = () => page.evaluate(() => getComputedStyle(document.documentElement).zoom);
  // A fixed-size control, not a column: the layout keeps the columns' widths within the
  // window (the chat column never under 380 px), so a column need not grow by the zoom.
  const width = () =>
    page.evaluate(() => document.querySelector('nav.sidebar button')?.getBoundingClientRect().height ?? 0);
  const before = await width();
  await page.keyboard.press('Control+=');
  await page.keyboard.press('Control+=');
  assert((await zoom()) === '1.25', `zoom after Ctrl+= twice: ${await zoom()}`);
  const after = await width();
  assert(Math.abs(after / before - 1.25) < 0.02, `the sidebar's first button is ${String(after)} px high, was ${String(before)} px: not zoomed`);
  await page.reload();
  await page.locator('main.chat').waitFor();
  assert((await zoom()) === '1.25', `zoom after reload: ${await zoom()}`);
  await page.keyboard.press('Control+-');
  assert((await zoom()) === '1.1', `zoom after Ctrl+-: ${await zoom()}`);
  await page.keyboard.press('Control+0');
  assert((await zoom()) === '1', `zoom after Ctrl+0: ${await zoom()}`);
});

await check('the sidebar search finds report text, with a plain-text snippet', async () => {
  await page.getByRole('searchbox', { name: 'Search conversations' }).or(page.getByRole('textbox', { name: 'Search conversations' })).fill('perilune');
  const hit = page.locator('.search-list li').first();
  await hit.waitFor({ timeout: 10_000 });
  const snippet = hit.locator('.search-snippet');
  const text = (await snippet.textContent()) ?? '';
  assert(text.includes('perilune') && text.includes('<b>orbiter</b>'), `snippet "${text}" lacks the report's text as written`);
  assert((await snippet.locator('b').count()) === 0, 'the snippet was rendered as HTML');
  assert((await snippet.locator('mark', { hasText: 'perilune' }).count()) === 1, 'the term is not highlighted');
});

await check('no page errors', async () => {
  assert(errors.length === 0, `page errors:\n${errors.join('\n')}`);
});
await close();
console.log(`${String(check.passed)} checks passed`);
