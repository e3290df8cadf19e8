// The layout the user controls against the real Go backend in browser mode, driven by
// app/layout_e2e_test.go (TestBrowserE2ELayout): node e2e/layout.mjs URL, with
// AF_QUESTION (asked; the scripted research writes the report AF_REPORT_TITLE, whose text
// holds AF_FACT). Checks: dragging the panel's splitter widens the panel; the sidebar's
// splitter moves with the arrow keys and a double-click restores its width; Ctrl+B and
// Ctrl+J hide and show the sidebar and the panel, and so do the header's buttons; the
// report's Reader fills the window and Esc closes it; after a reload the widths, a hidden
// panel and the open conversation are all back; on a zoomed page a drag follows the
// pointer. Saves /tmp/ui-layout-*.png. Exits non-zero on the first failure.
import { assert, checker, launch, screenshot } from './browser.mjs';

const url = process.argv[2];
const env = (k) => {
  const v = process.env[k];
  if (!v) {
    console.error(`usage: AF_QUESTION=.. AF_REPORT_TITLE=.. AF_FACT=.. node e2e/layout.mjs URL (missing ${k})`);
    process.exit(2);
  }
  return v;
};
const question = env('AF_QUESTION');
const reportTitle = env('AF_REPORT_TITLE');
const fact = env('AF_FACT');
if (!url) process.exit(2);

const { page, errors, close } = await launch();
const check = checker(page, close);
const shot = (name) => screenshot(page, `layout-${name}`);
await page.goto(url);

const sidebar = page.locator('nav.sidebar');
const chat = page.locator('main.chat');
const panel = page.locator('aside.panel');
const sidebarSplitter = page.getByRole('separator', { name: 'Resize the sidebar' });
const panelSplitter = page.getByRole('separator', { name: 'Resize the panel' });
const width = async (loc) => Math.round((await loc.boundingBox())?.width ?? -1);
const near = (a, b) => Math.abs(a - b) <= 1;
let title = '';

await check('a research runs to completion', async () => {
  await sidebar.waitFor();
  await page.getByRole('textbox', { name: 'Research question' }).fill(question);
  await page.keyboard.press('Enter');
  const done = page.locator('.exchange').last().locator('.figures');
  const failed = page.locator('.error-box');
  const quiet = (p) => p.then(() => true, () => false);
  const finished = await Promise.race([quiet(done.waitFor({ timeout: 120_000 })), quiet(failed.waitFor({ timeout: 120_000 }))]);
  if (await failed.count()) throw new Error(`the run failed: ${await failed.first().textContent()}`);
  assert(finished, 'the run did not finish within 120 s');
  // The conversation's title arrives with the list after the run ends; until then the
  // header reads "Untitled research", which is not what a reload shows.
  const named = page.locator('.chat-title').filter({ hasNotText: /^(New|Untitled) research$/ });
  await named.waitFor({ timeout: 30_000 });
  title = ((await named.textContent()) ?? '').trim();
  assert(title !== '' && title !== 'New research', `the conversation has no title: "${title}"`);
});

await check('default widths: sidebar 252 px, panel 397 px; the splitters say so', async () => {
  assert(near(await width(sidebar), 252), `sidebar ${await width(sidebar)} px`);
  assert(near(await width(panel), 397), `panel ${await width(panel)} px`);
  assert((await sidebarSplitter.getAttribute('aria-valuenow')) === '252', 'sidebar splitter value');
  assert((await panelSplitter.getAttribute('aria-valuenow')) === '397', 'panel splitter value');
});

await check('dragging the panel splitter 203 px to the left widens the panel to 600 px', async () => {
  const box = await panelSplitter.boundingBox();
  assert(box, 'no panel splitter');
  const x = box.x + box.width / 2;
  const y = box.y + 300;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x - 120, y, { steps: 6 });
  await page.mouse.move(x - 203, y, { steps: 6 });
  await page.mouse.up();
  assert(near(await width(panel), 600), `panel ${await width(panel)} px after the drag`);
  assert((await panelSplitter.getAttribute('aria-valuenow')) === '600', `panel splitter says ${await panelSplitter.getAttribute('aria-valuenow')}`);
  // The columns still fill the window side by side.
  const [l, m, r] = await Promise.all([sidebar, chat, panel].map((c) => c.boundingBox()));
  assert(near(l.x + l.width, m.x) && near(m.x + m.width, r.x) && near(r.x + r.width, 1280), 'the columns no longer tile the window');
  await shot('wide');
});

await check('a drag cannot squeeze the chat column under 380 px', async () => {
  const box = await panelSplitter.boundingBox();
  const x = box.x + box.width / 2;
  await page.mouse.move(x, 300);
  await page.mouse.down();
  await page.mouse.move(20, 300, { steps: 8 });
  await page.mouse.up();
  assert(near(await width(chat), 380), `chat column ${await width(chat)} px`);
  assert((await panelSplitter.getAttribute('aria-valuemax')) === String(1280 - 252 - 380), 'aria-valuemax is not the widest allowed');
});

await check('keyboard: arrows move the focused sidebar splitter, a double-click restores the default', async () => {
  // The panel back at 600 px.
  const pbox = await panelSplitter.boundingBox();
  const px = pbox.x + pbox.width / 2;
  await page.mouse.move(px, 300);
  await page.mouse.down();
  await page.mouse.move(1280 - 600, 300, { steps: 6 });
  await page.mouse.up();
  assert(near(await width(panel), 600), `panel ${await width(panel)} px`);

  await sidebarSplitter.focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert(near(await width(sidebar), 284), `sidebar ${await width(sidebar)} px after two Right presses`);
  await page.keyboard.press('Shift+ArrowLeft');
  assert(near(await width(sidebar), 220), `sidebar ${await width(sidebar)} px after Shift+Left`);
  assert((await sidebarSplitter.getAttribute('aria-valuenow')) === '220', 'aria-valuenow did not follow');
  await sidebarSplitter.dblclick();
  assert(near(await width(sidebar), 252), `sidebar ${await width(sidebar)} px after a double-click`);
  await sidebarSplitter.focus();
  await page.keyboard.press('ArrowRight');
  assert(near(await width(sidebar), 268), `sidebar ${await width(sidebar)} px`);
});

await check('Ctrl+B and Ctrl+J hide the sidebar and the panel; the chat takes the window', async () => {
  await page.keyboard.press('Control+b');
  await sidebar.waitFor({ state: 'hidden' });
  await page.keyboard.press('Control+j');
  await panel.waitFor({ state: 'hidden' });
  const box = await chat.boundingBox();
  assert(box && box.x === 0 && near(box.width, 1280), `chat column at ${JSON.stringify(box)}`);
  assert((await page.getByRole('separator').count()) === 0, 'a splitter of a hidden column is still there');
  await shot('collapsed');
});

await check('the header buttons and the shortcuts show them again, at their widths', async () => {
  await page.getByRole('button', { name: 'Show the sidebar' }).click();
  await sidebar.waitFor();
  assert(near(await width(sidebar), 268), `sidebar ${await width(sidebar)} px`);
  await page.keyboard.press('Control+j');
  await panel.waitFor();
  assert(near(await width(panel), 600), `panel ${await width(panel)} px`);
  await page.getByRole('button', { name: 'Hide the panel' }).click();
  await panel.waitFor({ state: 'hidden' });
  await page.getByRole('button', { name: 'Show the panel' }).click();
  await panel.waitFor();
});

await check('the report opens full-window in the Reader; Esc closes it', async () => {
  await panel.locator('.artifact-row', { hasText: reportTitle }).click();
  const readerButton = panel.getByRole('button', { name: 'Reader' });
  await readerButton.click();
  const reader = page.getByRole('dialog', { name: `Reader: ${reportTitle}` });
  await reader.waitFor();
  const box = await reader.boundingBox();
  assert(box && box.x === 0 && box.y === 0 && near(box.width, 1280) && near(box.height, 860), `reader at ${JSON.stringify(box)}`);
  assert(((await reader.textContent()) ?? '').includes(fact), 'the reader does not show the report');
  await shot('reader');
  await page.keyboard.press('Escape');
  await reader.waitFor({ state: 'detached' });
  assert(await readerButton.evaluate((el) => el === document.activeElement), 'focus did not return to the Reader button');
  assert((await page.locator('.pill-running').count()) === 0, 'something runs');
});

await check('after a reload: the widths and the open conversation are back', async () => {
  await page.reload();
  await sidebar.waitFor();
  await page.locator('.chat-title', { hasText: title }).waitFor();
  await page.locator('.exchange .answer').first().waitFor();
  assert(near(await width(sidebar), 268), `sidebar ${await width(sidebar)} px after the reload`);
  assert(near(await width(panel), 600), `panel ${await width(panel)} px after the reload`);
});

await check('a hidden panel stays hidden after a reload; a new research is not reopened', async () => {
  await page.keyboard.press('Control+j');
  await panel.waitFor({ state: 'hidden' });
  await page.reload();
  await sidebar.waitFor();
  await page.locator('.chat-title', { hasText: title }).waitFor();
  assert(!(await panel.isVisible()), 'the panel is back after the reload');
  await page.keyboard.press('Control+j');
  await panel.waitFor();
  await page.keyboard.press('Control+n');
  await page.locator('.chat-title', { hasText: 'New research' }).waitFor();
  await page.reload();
  await sidebar.waitFor();
  await page.waitForTimeout(500);
  assert(((await page.locator('.chat-title').textContent()) ?? '') === 'New research', 'the old conversation was reopened');
});

await check('zoomed to 125%, a drag moves the splitter as far as the pointer', async () => {
  await page.keyboard.press('Control+=');
  await page.keyboard.press('Control+=');
  await page.waitForFunction(() => getComputedStyle(document.documentElement).getPropertyValue('zoom') === '1.25');
  const before = (await panel.boundingBox())?.width ?? 0;
  const box = await panelSplitter.boundingBox();
  const x = box.x + box.width / 2;
  await page.mouse.move(x, 300);
  await page.mouse.down();
  // To the right: the panel narrows (it is at its widest in the zoomed, narrower page).
  await page.mouse.move(x + 100, 300, { steps: 5 });
  await page.mouse.up();
  const after = (await panel.boundingBox())?.width ?? 0;
  assert(Math.abs(before - after - 100) <= 2, `the panel narrowed by ${before - after} screen px for a 100 px drag`);
  await page.keyboard.press('Control+0');
});

await check('no page errors', async () => {
  assert(errors.length === 0, errors.join('\n'));
});

console.log(`${check.passed} checks passed`);
await close();
