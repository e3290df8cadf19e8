// The virtualized exchange list against the real Go backend in browser mode, driven by
// app/browser/longconv_e2e_test.go (TestBrowserE2ELongConversation) on bench/fixture's
// 10,000-event conversation: node e2e/long-conversation.mjs URL, with AF_TITLE (the
// conversation) and AF_EXCHANGES (how many it has). Checks: it opens at its newest exchange;
// scrolling up loads older pages until the list is virtualized, and then only a few exchanges
// are in the page while older pages still load at the top; "Jump to latest" brings the newest
// back; Ctrl+F finds a question that is not rendered (every loaded exchange renders while the
// bar is open) and Enter scrolls to it; after Esc the list is windowed again; with
// AF_QUESTION, asking it while scrolled up scrolls to it and the finished answer leaves the
// view at the end. Saves /tmp/ui-long-*.png. Exits non-zero on the first failure.
import { assert, checker, launch, screenshot } from './browser.mjs';

const url = process.argv[2];
const title = process.env.AF_TITLE;
const total = Number(process.env.AF_EXCHANGES);
if (!url || !title || !total) {
  console.error('usage: AF_TITLE=.. AF_EXCHANGES=.. node e2e/long-conversation.mjs URL');
  process.exit(2);
}

const { page, errors, close } = await launch();
const check = checker(page, close);
await page.goto(url);

const scroller = page.locator('.chat-scroll');
const question = (n) => `Question ${String(n)}:`;
const rendered = () => page.locator('main.chat .exchange').count();
const jump = () => page.getByRole('button', { name: 'Jump to latest' });
/** The numbers of the questions rendered, in page order. */
const numbers = () =>
  page.$$eval('main.chat .exchange .question', (qs) => qs.map((q) => Number(/Question (\d+):/.exec(q.textContent ?? '')?.[1] ?? 0)));
/** True when the question numbered n is within the scroller's view. */
const inView = (n) =>
  page.evaluate((q) => {
    const el = document.querySelector('.chat-scroll');
    const x = [...document.querySelectorAll('main.chat .question')].find((e) => e.textContent?.includes(q));
    if (!el || !x) return false;
    const box = el.getBoundingClientRect();
    const r = x.getBoundingClientRect();
    return r.bottom > box.top && r.top < box.bottom;
  }, question(n));

await check('the conversation opens at its newest exchange', async () => {
  await page.locator('button.conv-open', { hasText: title }).click();
  await page.locator('main.chat .question', { hasText: question(total) }).waitFor({ timeout: 30_000 });
  await page.waitForFunction((q) => {
    const el = document.querySelector('.chat-scroll');
    return el !== null && el.scrollHeight - el.scrollTop - el.clientHeight < 48 && (el.textContent ?? '').includes(q);
  }, question(total));
  assert(await inView(total), 'the newest question is not in view');
});

let oldest = total;
await check('scrolling up loads older pages until the list is virtualized', async () => {
  for (let i = 0; i < 12 && (await page.locator('.exchange-slot').count()) === 0; i++) {
    const before = Math.min(...(await numbers()));
    await scroller.evaluate((el) => el.scrollTo(0, 0));
    await page.waitForFunction((b) => {
      const ns = [...document.querySelectorAll('main.chat .exchange .question')].map((q) => Number(/Question (\d+):/.exec(q.textContent ?? '')?.[1] ?? 0));
      return ns.length > 0 && Math.min(...ns) < b;
    }, before, { timeout: 15_000 });
  }
  assert((await page.locator('.exchange-slot').count()) > 0, 'the list was not virtualized after 12 older pages');
  const n = await rendered();
  assert(n > 0 && n <= 20, `${String(n)} exchanges rendered in the virtualized list`);
  oldest = Math.min(...(await numbers()));
  await screenshot(page, 'long-virtual');
});

await check('older pages still load at the top of the virtualized list', async () => {
  await scroller.evaluate((el) => el.scrollTo(0, 0));
  await page.waitForFunction((b) => {
    const ns = [...document.querySelectorAll('main.chat .exchange .question')].map((q) => Number(/Question (\d+):/.exec(q.textContent ?? '')?.[1] ?? 0));
    return ns.length > 0 && Math.min(...ns) < b;
  }, oldest, { timeout: 15_000 });
  oldest = Math.min(...(await numbers()));
  const n = await rendered();
  assert(n <= 20, `${String(n)} exchanges rendered after another page`);
});

await check('"Jump to latest" brings the newest exchange back', async () => {
  await jump().waitFor();
  await jump().click();
  await page.waitForFunction((q) => {
    const el = document.querySelector('.chat-scroll');
    return el !== null && el.scrollHeight - el.scrollTop - el.clientHeight < 48 && (el.textContent ?? '').includes(q);
  }, question(total));
  await page.waitForTimeout(300); // let late measurements settle, then it must still be at the end
  assert(await inView(total), 'the newest question is not in view after Jump to latest');
  await jump().waitFor({ state: 'detached' });
});

await check('Ctrl+F finds a question that was not rendered, Enter shows it, Esc windows the list again', async () => {
  const target = oldest + 2;
  assert(!(await numbers()).includes(target), `question ${String(target)} is rendered at the end of the list`);
  await page.keyboard.press('Control+f');
  const input = page.getByRole('searchbox', { name: 'Find in conversation' });
  await input.waitFor();
  await input.fill(question(target));
  await page.waitForFunction(() => document.querySelector('.find-count')?.textContent === '1 / 1');
  const all = await rendered();
  assert(all >= total - oldest + 1, `${String(all)} exchanges rendered while finding, want every loaded one (${String(total - oldest + 1)})`);
  await page.keyboard.press('Enter');
  await page.waitForFunction((q) => {
    const el = document.querySelector('.chat-scroll');
    const x = [...document.querySelectorAll('main.chat .question')].find((e) => e.textContent?.includes(q));
    if (!el || !x) return false;
    const box = el.getBoundingClientRect();
    const r = x.getBoundingClientRect();
    return r.bottom > box.top && r.top < box.bottom;
  }, question(target));
  await screenshot(page, 'long-find');
  await page.keyboard.press('Escape');
  await page.locator('.find-bar').waitFor({ state: 'detached' });
  await page.waitForFunction(() => document.querySelectorAll('main.chat .exchange').length <= 20);
  assert(await inView(target), `question ${String(target)} left the view when find closed`);
});

const ask = process.env.AF_QUESTION;
if (ask) {
  await check('sending while scrolled up scrolls to the new question, and the answer keeps the end in view', async () => {
    await scroller.evaluate((el) => el.scrollTo(0, el.scrollHeight / 2));
    await jump().waitFor();
    await page.getByRole('textbox', { name: 'Research question' }).fill(ask);
    await page.keyboard.press('Enter');
    await page.waitForFunction((q) => {
      const el = document.querySelector('.chat-scroll');
      const x = [...document.querySelectorAll('main.chat .question')].find((e) => e.textContent?.includes(q));
      if (!el || !x) return false;
      const box = el.getBoundingClientRect();
      const r = x.getBoundingClientRect();
      return r.top >= box.top - 1 && r.top < box.bottom;
    }, ask, { timeout: 15_000 });
    const asked = page.locator('main.chat .exchange', { hasText: ask });
    const quiet = (p) => p.then(() => true, () => false);
    const done = await Promise.race([quiet(asked.locator('.figures').waitFor({ timeout: 120_000 })), quiet(page.locator('.error-box').waitFor({ timeout: 120_000 }))]);
    assert(done, 'the run did not end within 120 s');
    if (await page.locator('.error-box').count()) throw new Error(`the run failed: ${await page.locator('.error-box').first().textContent()}`);
    await page.waitForFunction(() => {
      const el = document.querySelector('.chat-scroll');
      return el !== null && el.scrollHeight - el.scrollTop - el.clientHeight < 48;
    }, undefined, { timeout: 10_000 });
    assert((await page.locator('.exchange-slot').count()) > 0, 'the list is no longer virtualized');
    await screenshot(page, 'long-send');
  });
}

await check('no page errors', async () => {
  assert(errors.length === 0, `page errors:\n${errors.join('\n')}`);
});

await close();
console.log(`all ${String(check.passed)} checks passed`);
