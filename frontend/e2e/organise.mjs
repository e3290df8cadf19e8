// Pinned and archived conversations and follow-up questions against the real Go backend in
// browser mode, driven by app/browser/organise_e2e_test.go (TestBrowserE2EOrganise):
//   node e2e/organise.mjs URL
// The backend holds four answered conversations whose titles the model wrote (newest
// first: Lunar distance, Tall wind turbines, How tides work, Solar panel efficiency) and
// whose answers have two follow-up questions. Checks: the titles are the model's; the
// latest answer shows its follow-up questions, a click puts one in the composer (focused)
// and Enter sends it, after which only the new answer shows questions; "Tall wind turbines"
// is pinned from its menu with the keyboard and heads a Pinned group; "How tides work" and
// "Solar panel efficiency" are archived and leave the list for a collapsed "Archived (2)"
// toggle, which Enter opens; "Solar panel efficiency" is unarchived; after a reload the
// groups are the same. Screenshots: /tmp/ui-sidebar-pinned-archived.png and its -zh-CN
// twin (the archived group open). Exits non-zero on the first failure.
import { assert, checker, launch, screenshot } from './browser.mjs';

const url = process.argv[2];
if (!url) {
  console.error('usage: node e2e/organise.mjs URL');
  process.exit(2);
}

const { page, errors, close } = await launch();
const check = checker(page, close);
await page.goto(url);
await page.locator('main.chat').waitFor();

const titlesIn = (sel) => page.locator(`${sel} .conv-title`).allTextContents();
const composer = () => page.getByRole('textbox', { name: 'Research question' });
const toggle = () => page.locator('.conv-archived-toggle');
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** Opens the menu of the conversation titled title and picks item with the keyboard. */
async function menuPick(title, item) {
  await page.getByRole('button', { name: `Actions for ${title}` }).click();
  const menu = page.getByRole('menu');
  await menu.waitFor();
  const items = (await menu.getByRole('menuitem').allTextContents()).map((s) => s.trim());
  const at = items.indexOf(item);
  assert(at >= 0, `"${item}" not in the menu of ${title}: ${JSON.stringify(items)}`);
  for (let i = 0; i < at; i++) await page.keyboard.press('ArrowDown');
  const focused = await page.evaluate(() => document.activeElement?.textContent);
  assert(focused === item, `the keyboard reached "${focused}", not "${item}"`);
  await page.keyboard.press('Enter');
  await menu.waitFor({ state: 'detached' });
}

await check('the titles are the ones the model wrote', async () => {
  await page.locator('.conv-row').nth(3).waitFor();
  const titles = await titlesIn('#conv-group-recent');
  assert(same(titles, ['Lunar distance', 'Tall wind turbines', 'How tides work', 'Solar panel efficiency']), `titles ${JSON.stringify(titles)}`);
  assert((await page.locator('.conv-group-label').count()) === 0, 'a group label with nothing pinned');
  assert((await toggle().count()) === 0, 'an Archived toggle with nothing archived');
});

await check('the latest answer shows its follow-up questions; a click fills the composer', async () => {
  await page.locator('.conv-open', { hasText: 'Lunar distance' }).click();
  const chips = page.locator('.follow-up');
  await chips.first().waitFor({ timeout: 15_000 });
  const texts = await chips.allTextContents();
  assert(same(texts, ['Why does the distance change over a month?', 'How is the distance measured today?']), `chips ${JSON.stringify(texts)}`);
  await chips.nth(1).click();
  assert((await composer().inputValue()) === 'How is the distance measured today?', `composer "${await composer().inputValue()}"`);
  assert(await composer().evaluate((el) => el === document.activeElement), 'the composer is not focused');
});

await check('Enter sends it; only the new answer shows follow-up questions', async () => {
  await page.keyboard.press('Enter');
  const exchanges = page.locator('article.exchange');
  await exchanges.nth(1).locator('.follow-up').first().waitFor({ timeout: 30_000 });
  assert((await page.locator('.follow-ups').count()) === 1, `${await page.locator('.follow-ups').count()} groups of follow-ups`);
  assert((await exchanges.nth(0).locator('.follow-up').count()) === 0, 'the first answer still shows its questions');
  // The chips are reachable with Tab from the answer before them.
  await exchanges.nth(1).locator('.follow-up').first().focus();
  await page.keyboard.press('Tab');
  const next = await page.evaluate(() => document.activeElement?.textContent);
  assert(next === 'How is the distance measured today?', `Tab went to "${next}"`);
});

await check('Pin (from the keyboard) moves a conversation to the Pinned group', async () => {
  await menuPick('Tall wind turbines', 'Pin');
  await page.locator('#conv-group-pinned').waitFor();
  assert(same(await titlesIn('#conv-group-pinned'), ['Tall wind turbines']), `pinned ${JSON.stringify(await titlesIn('#conv-group-pinned'))}`);
  assert(same(await page.locator('.conv-group-label').allTextContents(), ['Pinned', 'Recent']), 'group labels');
  assert(!(await titlesIn('#conv-group-recent')).includes('Tall wind turbines'), 'still in Recent');
});

await check('Archive moves conversations behind the collapsed Archived toggle, which opens from the keyboard', async () => {
  await menuPick('How tides work', 'Archive');
  await menuPick('Solar panel efficiency', 'Archive');
  // The list reloads after each archive: wait until it counts both before reading it.
  await toggle().filter({ hasText: 'Archived (2)' }).waitFor({ timeout: 10_000 });
  const recent = await titlesIn('#conv-group-recent');
  assert(same(recent, ['Lunar distance']), `recent ${JSON.stringify(recent)}`);
  assert(((await toggle().textContent()) ?? '').trim() === 'Archived (2)', `toggle "${await toggle().textContent()}"`);
  assert((await toggle().getAttribute('aria-expanded')) === 'false', 'the Archived group is open at first');
  await toggle().focus();
  await page.keyboard.press('Enter');
  await page.locator('#conv-group-archived').waitFor();
  const archived = await titlesIn('#conv-group-archived');
  assert(same(archived, ['How tides work', 'Solar panel efficiency']), `archived ${JSON.stringify(archived)}`);
  await screenshot(page, 'sidebar-pinned-archived');
});

await check('Unarchive restores a conversation to the list', async () => {
  await menuPick('Solar panel efficiency', 'Unarchive');
  const recent = await titlesIn('#conv-group-recent');
  assert(same(recent, ['Lunar distance', 'Solar panel efficiency']), `recent ${JSON.stringify(recent)}`);
  assert(((await toggle().textContent()) ?? '').trim() === 'Archived (1)', `toggle "${await toggle().textContent()}"`);
});

await check('the groups survive a reload, the Archived group collapsed again', async () => {
  await page.reload();
  await page.locator('#conv-group-pinned').waitFor();
  assert(same(await titlesIn('#conv-group-pinned'), ['Tall wind turbines']), 'pinned after reload');
  assert(same(await titlesIn('#conv-group-recent'), ['Lunar distance', 'Solar panel efficiency']), 'recent after reload');
  assert((await toggle().getAttribute('aria-expanded')) === 'false', 'Archived open after reload');
  await toggle().click();
  assert(same(await titlesIn('#conv-group-archived'), ['How tides work']), 'archived after reload');
});

await check('the groups and menu in Chinese', async () => {
  await page.locator('.btn-settings').click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  await dialog.locator('[data-testid="language-select"]').selectOption('zh-CN');
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN', null, { timeout: 10_000 });
  await dialog.getByRole('button', { name: '关闭' }).first().click();
  await dialog.waitFor({ state: 'detached' });
  const labels = await page.locator('.conv-group-label').allTextContents();
  assert(same(labels, ['已置顶', '最近']), `labels ${JSON.stringify(labels)}`);
  assert(((await toggle().textContent()) ?? '').trim() === '已归档（1）', `toggle "${await toggle().textContent()}"`);
  assert((await toggle().getAttribute('aria-expanded')) === 'true', 'the Archived group closed with the language change');
  await menuPickZh();
  await screenshot(page, 'sidebar-pinned-archived-zh-CN');
});

/** Opens the pinned conversation's menu and checks its items in Chinese, then closes it. */
async function menuPickZh() {
  await page.locator('#conv-group-pinned .conv-menu-btn').click();
  const items = (await page.getByRole('menu').getByRole('menuitem').allTextContents()).map((s) => s.trim());
  assert(same(items, ['重命名', '取消置顶', '归档', '导出…', '删除…']), `menu ${JSON.stringify(items)}`);
  await page.keyboard.press('Escape');
  await page.getByRole('menu').waitFor({ state: 'detached' });
}

await check('no page errors', async () => {
  assert(errors.length === 0, `page errors: ${errors.join('; ')}`);
});

console.log(`${check.passed} checks passed`);
await close();
