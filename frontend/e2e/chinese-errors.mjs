// Errors in the Chinese UI against the real Go backend in browser mode, driven by
// app/browser/netfixes_e2e_test.go (TestBrowserE2EChineseErrors): node e2e/chinese-errors.mjs
// URL with AF_SEARX (a dead SearXNG address, host:port), AF_DEAD_MODEL (a base URL where
// nothing listens), AF_REFUSING (a base URL answering 401) and AF_OLLAMA (Ollama's usual
// base URL when nothing listens there, else ""). In a zh-CN profile:
//   1. Settings: Test connection on the 401 endpoint says the key was refused, and the model
//      list says so too; on the dead endpoint that nothing answers there; on Ollama's address
//      that Ollama is not running and how to start it; SearXNG's Test that nothing answers at
//      its address (screenshots /tmp/ui-zh-settings-*.png);
//   2. a research run whose search fails shows the footer line and the banner in Chinese,
//      the cause ("connection refused") kept (/tmp/ui-zh-search-failed.png);
//   3. its Chinese report's Sources section is headed 来源 (/tmp/ui-zh-report.png);
//   4. an upload of an unsupported type says so in Chinese (/tmp/ui-zh-upload.png).
// Exits non-zero on the first failure.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { assert, checker, screenshot } from './browser.mjs';
import { dropFiles } from './ui-artifacts.mjs';

const url = process.argv[2];
const { AF_SEARX: searx, AF_DEAD_MODEL: deadModel, AF_REFUSING: refusing, AF_OLLAMA: ollama = '' } = process.env;
if (!url || !searx || !deadModel || !refusing) {
  console.error('usage: AF_SEARX=.. AF_DEAD_MODEL=.. AF_REFUSING=.. [AF_OLLAMA=..] node e2e/chinese-errors.mjs URL');
  process.exit(2);
}
const catalogue = (ns) => JSON.parse(readFileSync(new URL(`../src/locales/zh-CN/${ns}.json`, import.meta.url), 'utf8'));
const zh = { settings: catalogue('settings'), chat: catalogue('chat'), sources: catalogue('sources') };
const fill = (text, vars) => text.replace(/\{\{(\w+)\}\}/g, (_, k) => String(vars[k]));

const profile = await mkdtemp(join(tmpdir(), 'af-e2e-zh-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  headless: true,
  locale: 'zh-CN',
  viewport: { width: 1280, height: 860 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--lang=zh-CN',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = context.pages()[0] ?? (await context.newPage());
const errors = [];
page.on('pageerror', (e) => errors.push(String(e)));
const close = async () => {
  await context.close().catch(() => {});
  await rm(profile, { recursive: true, force: true }).catch(() => {});
};
const check = checker(page, close);
await page.goto(url);
await page.locator('nav.sidebar').waitFor();
await page.waitForFunction(() => document.documentElement.lang === 'zh-CN', null, { timeout: 10_000 });

const dialog = page.getByRole('dialog');
const baseUrl = () => dialog.getByRole('textbox', { name: zh.settings.model.baseUrl });
const testWith = async (base) => {
  await baseUrl().fill(base);
  await dialog.getByRole('button', { name: zh.settings.test.connection }).first().click();
  const result = dialog.locator('.test-row .test-result.err').first();
  await result.waitFor({ timeout: 30_000 });
  return (await result.textContent()) ?? '';
};

await check('Settings: a 401 is a refused key, in Chinese, and the model list says so too', async () => {
  await page.locator('.btn-settings').click();
  await dialog.waitFor();
  const text = await testWith(refusing);
  assert(text === fill(zh.settings.trouble.authStatus, { status: 401 }), `Test connection on a 401 says ${text}`);
  const hint = dialog.locator('.field .hint', { hasText: '无法列出接口的模型' });
  await hint.waitFor({ timeout: 10_000 });
  const list = (await hint.textContent()) ?? '';
  assert(list.includes(fill(zh.settings.trouble.authStatus, { status: 401 })), `the model list says ${list}`);
  assert(!/check the|refused the request/.test(list + text), 'English in the model list or the test');
  await screenshot(page, 'zh-settings-401');
});

await check('Settings: nothing answers at a dead endpoint, said in Chinese', async () => {
  const text = await testWith(deadModel);
  const origin = deadModel.replace(/\/v1$/, '');
  assert(text === fill(zh.settings.trouble.refused, { host: origin }), `Test connection on a dead endpoint says ${text}`);
});

if (ollama !== '') {
  await check('Settings: Ollama not running is said with how to start it', async () => {
    const text = await testWith(ollama);
    assert(text === fill(zh.settings.trouble.refusedOllama, { host: 'http://127.0.0.1:11434' }), `Test connection on Ollama's address says ${text}`);
    assert(!text.includes('check the base URL'), 'the old hint is back');
    await screenshot(page, 'zh-settings-ollama');
  });
}

await check('Settings: SearXNG at a dead address, said in Chinese', async () => {
  await dialog.getByRole('button', { name: fill(zh.settings.search.test, { name: 'SearXNG' }) }).click();
  const result = dialog.locator('.test-result.err', { hasText: searx });
  await result.waitFor({ timeout: 30_000 });
  const text = (await result.textContent()) ?? '';
  assert(text === fill(zh.settings.trouble.refused, { host: searx }), `SearXNG's Test says ${text}`);
  await result.scrollIntoViewIfNeeded();
  await screenshot(page, 'zh-settings-searxng');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
});

await check('a run whose search failed says so in Chinese, the cause kept', async () => {
  await page.getByRole('textbox', { name: zh.chat.composer.label }).fill('月球离地球有多远？');
  await page.keyboard.press('Enter');
  const footer = page.locator('.answer-failures');
  await footer.waitFor({ timeout: 60_000 });
  const line = (await footer.textContent()) ?? '';
  assert(line.startsWith('1 次搜索中有 1 次失败：searxng search at ' + searx), `the footer line says ${line}`);
  assert(line.includes('connection refused'), `the footer line lost the cause: ${line}`);
  assert(!line.includes('search failed'), `English in the footer line: ${line}`);
  const banner = page.locator('.search-banner');
  await banner.waitFor();
  const said = (await banner.textContent()) ?? '';
  assert(said.includes(zh.settings.banner.allFailed) && said.includes('connection refused'), `the banner says ${said}`);
  assert(!said.includes('format=json'), `the banner quotes the request URL: ${said}`);
  await screenshot(page, 'zh-search-failed');
});

await check('the Chinese report’s Sources section is headed 来源', async () => {
  await page.locator('.artifact-row', { hasText: 'research_report' }).click();
  const heading = page.locator('.preview h2', { hasText: '来源' });
  await heading.waitFor({ timeout: 10_000 });
  assert((await page.locator('.preview h2', { hasText: 'Sources' }).count()) === 0, 'the report still has an English Sources heading');
  await heading.scrollIntoViewIfNeeded();
  await screenshot(page, 'zh-report');
});

await check('an upload of an unsupported type says so in Chinese', async () => {
  await dropFiles(page, [{ name: 'measurements.xyz', type: 'application/octet-stream', bytes: [0, 1, 2, 3, 255, 254] }]);
  const note = page.locator('.upload-item', { hasText: 'measurements.xyz' }).locator('.upload-note');
  await note.waitFor({ timeout: 30_000 });
  const text = (await note.textContent()) ?? '';
  assert(text.includes('不支持读取 .xyz 文件的文本') && !text.includes('not supported'), `the upload's note says ${text}`);
  await screenshot(page, 'zh-upload');
});

await check('no page errors', async () => {
  assert(errors.length === 0, errors.join('\n'));
});
await close();
