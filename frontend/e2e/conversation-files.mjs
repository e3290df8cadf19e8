// Conversation files and backups against the real Go backend in browser mode, driven by
// app/browser/convfiles_e2e_test.go (TestBrowserE2EConversationFiles):
//   node e2e/conversation-files.mjs URL with AF_QUESTION, AF_ANSWER, AF_DOCUMENTS, AF_TMP.
// The backend holds one conversation: an upload and a research whose question and answer
// are AF_QUESTION and AF_ANSWER. Checks: the conversation's menu offers Export…, which
// downloads NAME.artifactflow.zip (browser mode has no save dialog); "Import…" opens the
// page's file chooser, the downloaded file comes back as a second conversation that opens
// with the same question and answer; a file that is not a conversation file is refused
// with its reason and adds nothing; Settings → Data's "Back up now…" writes a backup into
// AF_DOCUMENTS and says so. Screenshots: /tmp/ui-conversation-menu.png,
// /tmp/ui-conversation-imported.png, /tmp/ui-settings-data.png and their -zh-CN twins.
// Exits non-zero on the first failure.
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { assert, checker, launch, screenshot } from './browser.mjs';

const url = process.argv[2];
const { AF_QUESTION: question, AF_ANSWER: answer, AF_DOCUMENTS: documents, AF_TMP: tmp } = process.env;
if (!url || !question || !answer || !documents || !tmp) {
  console.error('usage: AF_QUESTION=.. AF_ANSWER=.. AF_DOCUMENTS=.. AF_TMP=.. node e2e/conversation-files.mjs URL');
  process.exit(2);
}

const { page, errors, close } = await launch();
const check = checker(page, close);
await page.goto(url);
await page.locator('main.chat').waitFor();

const rows = page.locator('.conv-row');
const notice = page.locator('.file-notice');
let exported = '';

/** Opens the first conversation's menu and returns it. */
async function openMenu() {
  await rows.first().hover();
  await rows.first().locator('.conv-menu-btn').click();
  const menu = page.getByRole('menu');
  await menu.waitFor();
  return menu;
}

/** Opens Settings and scrolls its Data section into view; returns the section. */
async function openData() {
  await page.locator('.btn-settings').click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  const data = dialog.locator('[data-testid="data-settings"]');
  await data.scrollIntoViewIfNeeded();
  return { dialog, data };
}

await check('the conversation menu offers Export…', async () => {
  await rows.first().waitFor();
  assert((await rows.count()) === 1, `${await rows.count()} conversations before the import`);
  const menu = await openMenu();
  const items = (await menu.getByRole('menuitem').allTextContents()).map((s) => s.trim());
  assert(JSON.stringify(items) === JSON.stringify(['Rename', 'Pin', 'Archive', 'Export…', 'Delete…']), `menu items ${JSON.stringify(items)}`);
  await screenshot(page, 'conversation-menu');
});

await check('Export… downloads the conversation as one zip', async () => {
  const menu = page.getByRole('menu');
  const [download] = await Promise.all([page.waitForEvent('download'), menu.getByRole('menuitem', { name: 'Export…' }).click()]);
  const name = download.suggestedFilename();
  assert(name.endsWith('.artifactflow.zip'), `downloaded as ${name}`);
  exported = join(tmp, name);
  await download.saveAs(exported);
  const head = (await readFile(exported)).subarray(0, 2).toString();
  assert(head === 'PK', `the file starts with ${JSON.stringify(head)}, not a zip's PK`);
  await notice.waitFor();
  const text = (await notice.textContent()) ?? '';
  assert(text.includes(`Downloaded ${name}`), `notice "${text}"`);
});

await check('Import… takes the file back as a second conversation that opens with the research', async () => {
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: 'Import…' }).click()]);
  await chooser.setFiles(exported);
  await page.locator('.file-notice', { hasText: 'Imported' }).waitFor({ timeout: 30_000 });
  const text = (await notice.textContent()) ?? '';
  assert(text.includes('messages') && text.includes('artifacts'), `notice "${text}"`);
  await page.waitForFunction(() => document.querySelectorAll('.conv-row').length === 2, null, { timeout: 10_000 });
  const chat = page.locator('main.chat');
  await chat.getByText(question).first().waitFor({ timeout: 10_000 });
  await chat.getByText(answer.slice(0, 40)).first().waitFor({ timeout: 10_000 });
  const list = await page.evaluate(() => window.go.app.ConversationService.List());
  assert(list.length === 2 && list[0].title === list[1].title && list[0].id !== list[1].id, `list ${JSON.stringify(list)}`);
  await screenshot(page, 'conversation-imported');
});

await check('a file that is not a conversation file is refused with its reason', async () => {
  const bad = join(tmp, 'holiday-photos.zip');
  await writeFile(bad, 'PK\u0003\u0004 not really a zip');
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: 'Import…' }).click()]);
  await chooser.setFiles(bad);
  const alert = page.locator('.file-notice.error');
  await alert.waitFor({ timeout: 10_000 });
  const text = (await alert.textContent()) ?? '';
  assert(text.includes('Could not import holiday-photos.zip') && text.includes('not a valid ArtifactFlow conversation file'), `alert "${text}"`);
  assert((await rows.count()) === 2, 'a refused file added a conversation');
});

await check('Settings → Data backs up into Documents and says where', async () => {
  const { dialog, data } = await openData();
  const legend = ((await data.locator('legend').textContent()) ?? '').trim();
  assert(legend === 'Data', `legend "${legend}"`);
  assert(((await data.locator('.data-command').textContent()) ?? '') === 'artifactflow restore FILE', 'no restore command');
  await screenshot(page, 'settings-data');
  await data.getByRole('button', { name: 'Back up now…' }).click();
  const status = data.getByRole('status');
  await status.waitFor({ timeout: 60_000 });
  const text = (await status.textContent()) ?? '';
  const m = /Backup saved to (\S+\.zip)/.exec(text);
  assert(m !== null && m[1].startsWith(documents), `status "${text}"`);
  assert((await stat(m[1])).size > 0, `${m[1]} is empty`);
  assert(text.includes('2 conversations'), `status "${text}"`);
  assert((await data.getByRole('button', { name: 'Show in folder' }).count()) === 0, 'Show in folder in browser mode');
  await screenshot(page, 'settings-data-saved');
  await dialog.getByRole('button', { name: 'Close' }).first().click();
  await dialog.waitFor({ state: 'detached' });
});

await check('the menu, the import button and Settings → Data in Chinese', async () => {
  await notice.getByRole('button', { name: 'Dismiss' }).click(); // worded when it was shown
  await notice.waitFor({ state: 'detached' });
  await page.locator('.btn-settings').click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  await dialog.locator('[data-testid="language-select"]').selectOption('zh-CN');
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN', null, { timeout: 10_000 });
  const data = dialog.locator('[data-testid="data-settings"]');
  await data.scrollIntoViewIfNeeded();
  const legend = ((await data.locator('legend').textContent()) ?? '').trim();
  assert(legend === '数据', `legend "${legend}"`);
  await screenshot(page, 'settings-data-zh-CN');
  await dialog.getByRole('button', { name: '关闭' }).first().click();
  await dialog.waitFor({ state: 'detached' });
  assert((await page.getByRole('button', { name: '导入…' }).count()) === 1, 'no 导入… button');
  const menu = await openMenu();
  const items = (await menu.getByRole('menuitem').allTextContents()).map((s) => s.trim());
  assert(items.includes('导出…'), `menu items ${JSON.stringify(items)}`);
  await screenshot(page, 'conversation-menu-zh-CN');
  await page.keyboard.press('Escape');
});

await check('no page errors besides the refused import', async () => {
  const unexpected = errors.filter((e) => !/status of 500 \(Internal Server Error\) \(http:\/\/[^)]+\/api\/bind\/ConversationService\/Import\)/.test(e));
  assert(unexpected.length === 0, `page errors:\n${unexpected.join('\n')}`);
});
await close();
