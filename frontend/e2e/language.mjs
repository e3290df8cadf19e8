// The language switch against the real Go backend in browser mode, driven by
// app/browser/language_e2e_test.go (TestBrowserE2ELanguage): node e2e/language.mjs URL, with
// AF_QUESTION (asked; the scripted research answers it and writes a report). Checks, each in
// a fresh browser profile where it says so:
//   1. a zh-CN system locale with no stored choice starts in Chinese, and the composer's
//      shortcut hint breaks no Chinese word across lines at any window width (960-1400 px);
//   2. an en-US profile starts in English, runs the research (screenshot
//      /tmp/ui-language-en.png), switches to 中文 in Settings and every area (sidebar,
//      composer, run figures, settings) is Chinese at once, without a reload (screenshots
//      /tmp/ui-language-settings-zh-CN.png, /tmp/ui-language-zh-CN.png); a reload keeps it;
//   3. a fresh en-US profile starts in Chinese too, since the choice is in config.json;
//      choosing "System" there gives English again;
//   4. choosing English explicitly in a zh-CN profile gives English, kept over a reload (the
//      Go test then reads config.json's language).
// Exits non-zero on the first failure.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { assert, checker, screenshot } from './browser.mjs';

const url = process.argv[2];
const question = process.env.AF_QUESTION;
if (!url || !question) {
  console.error('usage: AF_QUESTION=.. node e2e/language.mjs URL');
  process.exit(2);
}

/** One catalogue of the app, to find other parts' strings by key rather than by copy. */
const catalogue = (lang, ns) => JSON.parse(readFileSync(new URL(`../src/locales/${lang}/${ns}.json`, import.meta.url), 'utf8'));
const zh = { sidebar: catalogue('zh-CN', 'sidebar'), chat: catalogue('zh-CN', 'chat'), common: catalogue('zh-CN', 'common') };
const en = { sidebar: catalogue('en', 'sidebar'), chat: catalogue('en', 'chat') };
const CJK = /[\u4e00-\u9fff]/;

/** Launches Chromium (as browser.mjs does) with a fresh profile whose system locale is `locale`. */
async function launchIn(locale) {
  const profile = await mkdtemp(join(tmpdir(), 'af-e2e-lang-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    locale,
    viewport: { width: 1280, height: 860 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', `--lang=${locale}`,
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    const where = m.location().url || 'page';
    if (m.type() === 'error' && !where.endsWith('/favicon.ico')) errors.push(`${m.text()} (${where})`);
  });
  const close = async () => {
    await context.close().catch(() => {});
    await rm(profile, { recursive: true, force: true }).catch(() => {});
  };
  await page.goto(url);
  await page.locator('nav.sidebar').waitFor();
  return { page, errors, close };
}

/** Waits until <html lang> is `lang` (the language i18n applied, possibly after the backend's answer). */
const langIs = (page, lang) => page.waitForFunction((l) => document.documentElement.lang === l, lang, { timeout: 10_000 });

/** Opens Settings (by its button's class, whatever the language) and returns the dialog. */
async function openSettings(page) {
  await page.locator('.btn-settings').click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  return dialog;
}

/** Picks `value` in Settings' Language select and waits for the UI to be in `lang`. */
async function choose(page, value, lang) {
  const dialog = await openSettings(page);
  const select = dialog.locator('[data-testid="language-select"]');
  await select.selectOption(value);
  await langIs(page, lang);
  return dialog;
}

let check;
const run = async (name, fn) => {
  await fn();
  console.log(`---- ${name}`);
};

await run('zh-CN system locale', async () => {
  const { page, errors, close } = await launchIn('zh-CN');
  check = checker(page, close);
  await check('a Chinese system with no stored choice starts in Chinese', async () => {
    await langIs(page, 'zh-CN');
    await page.getByRole('navigation', { name: zh.sidebar.conversations }).waitFor();
    await page.getByRole('textbox', { name: zh.chat.composer.label }).waitFor();
    const dialog = await openSettings(page);
    await dialog.getByText('设置', { exact: true }).first().waitFor();
    const select = dialog.locator('[data-testid="language-select"]');
    assert((await select.inputValue()) === '', 'the select does not say "System"');
    assert((await select.locator('option:checked').textContent()) === '跟随系统（中文）', `the System option reads ${await select.locator('option:checked').textContent()}`);
    await page.keyboard.press('Escape');
  });
  await check('the shortcut hint never breaks a Chinese word across lines, at any window width', async () => {
    const words = Object.entries(zh.chat.composer).filter(([k, v]) => k.startsWith('hint') && CJK.test(v) && v.length > 1).map(([, v]) => v);
    assert(words.length >= 4, `hint words: ${words.join(', ')}`);
    for (let width = 960; width <= 1400; width += 2) {
      await page.setViewportSize({ width, height: 760 });
      const broken = await page.evaluate((ws) => {
        const hint = document.querySelector('.composer-hint');
        if (!hint) return ['no hint'];
        const out = [];
        const walker = document.createTreeWalker(hint, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          for (const w of ws) {
            const at = n.nodeValue.indexOf(w);
            if (at < 0 || n.parentElement.offsetParent === null) continue;
            const r = document.createRange();
            r.setStart(n, at);
            r.setEnd(n, at + w.length);
            const lines = new Set([...r.getClientRects()].filter((b) => b.width > 0).map((b) => Math.round(b.top)));
            if (lines.size > 1) out.push(w);
          }
        }
        return out;
      }, words);
      if (broken.length > 0) await page.screenshot({ path: '/tmp/ui-language-hint-broken.png' });
      assert(broken.length === 0, `at ${String(width)} px the hint breaks ${broken.join(', ')} across lines (/tmp/ui-language-hint-broken.png)`);
    }
    await page.setViewportSize({ width: 1266, height: 760 }); // where 换行 and 面板 used to break
    await screenshot(page, 'language-hint-zh');
    await page.setViewportSize({ width: 1280, height: 860 });
  });
  assert(errors.length === 0, `page errors: ${errors.join('; ')}`);
  await close();
});

await run('en-US profile: switch to 中文', async () => {
  const { page, errors, close } = await launchIn('en-US');
  check = checker(page, close);
  await check('an English system starts in English', async () => {
    await langIs(page, 'en');
    await page.getByRole('navigation', { name: en.sidebar.conversations }).waitFor();
  });

  await check('a research runs to completion, in English', async () => {
    await page.getByRole('textbox', { name: en.chat.composer.label }).fill(question);
    await page.keyboard.press('Enter');
    const figures = page.locator('.exchange').last().locator('.figures');
    const failed = page.locator('.error-box');
    const quiet = (p) => p.then(() => true, () => false);
    const finished = await Promise.race([quiet(figures.waitFor({ timeout: 120_000 })), quiet(failed.waitFor({ timeout: 120_000 }))]);
    if (await failed.count()) throw new Error(`the run failed: ${await failed.first().textContent()}`);
    assert(finished, 'the run did not finish within 120 s');
    await page.locator('.chat-title').filter({ hasNotText: /^(New|Untitled) research$/ }).waitFor({ timeout: 30_000 });
    assert(!CJK.test(await page.locator('nav.sidebar').innerText()), 'the English sidebar shows Chinese');
    await screenshot(page, 'language-en');
  });

  await check('choosing 中文 in Settings switches every area at once', async () => {
    const dialog = await choose(page, 'zh-CN', 'zh-CN');
    // The dialog itself, without Save or a reload.
    await dialog.getByText('界面语言', { exact: true }).waitFor();
    await dialog.getByText('更改从下一个问题起生效。', { exact: true }).waitFor();
    await dialog.getByRole('button', { name: zh.common.save, exact: true }).waitFor();
    await dialog.locator('legend', { hasText: '网页搜索' }).waitFor();
    await screenshot(page, 'language-settings-zh-CN');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    // The sidebar, the composer and the run's figures.
    await page.getByRole('navigation', { name: zh.sidebar.conversations }).waitFor();
    await page.getByRole('textbox', { name: zh.chat.composer.label }).waitFor();
    const placeholder = await page.locator('textarea.composer-input').getAttribute('placeholder');
    assert(placeholder === zh.chat.composer.placeholder, `composer placeholder ${placeholder}`);
    const sidebar = await page.locator('nav.sidebar').innerText();
    assert(sidebar.includes(zh.sidebar.newResearch), `sidebar reads ${sidebar.slice(0, 200)}`);
    const figures = await page.locator('.exchange').last().locator('.figures').innerText();
    assert(CJK.test(figures), `run figures still read "${figures}"`);
    await screenshot(page, 'language-zh-CN');
  });

  await check('a reload keeps Chinese', async () => {
    await page.reload();
    await langIs(page, 'zh-CN');
    await page.getByRole('navigation', { name: zh.sidebar.conversations }).waitFor();
    const dialog = await openSettings(page);
    assert((await dialog.locator('[data-testid="language-select"]').inputValue()) === 'zh-CN', 'the select forgot 中文');
    await page.keyboard.press('Escape');
  });
  assert(errors.length === 0, `page errors: ${errors.join('; ')}`);
  await close();
});

await run('fresh en-US profile: the choice is in config.json', async () => {
  const { page, errors, close } = await launchIn('en-US');
  check = checker(page, close);
  await check('a new profile on an English system starts in the stored Chinese', async () => {
    await langIs(page, 'zh-CN');
    await page.getByRole('textbox', { name: zh.chat.composer.label }).waitFor();
  });
  await check('choosing "System" follows the English system again', async () => {
    const dialog = await choose(page, '', 'en');
    const select = dialog.locator('[data-testid="language-select"]');
    assert((await select.locator('option:checked').textContent()) === 'System (English)', 'the System option does not name English');
    await dialog.getByText('Interface language', { exact: true }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('textbox', { name: en.chat.composer.label }).waitFor();
  });
  assert(errors.length === 0, `page errors: ${errors.join('; ')}`);
  await close();
});

await run('zh-CN profile: switch back to English', async () => {
  const { page, errors, close } = await launchIn('zh-CN');
  check = checker(page, close);
  await check('choosing English on a Chinese system gives English, kept over a reload', async () => {
    await langIs(page, 'zh-CN');
    await choose(page, 'en', 'en');
    await page.keyboard.press('Escape');
    await page.getByRole('navigation', { name: en.sidebar.conversations }).waitFor();
    await page.reload();
    await langIs(page, 'en');
    await page.getByRole('textbox', { name: en.chat.composer.label }).waitFor();
    assert(!CJK.test(await page.locator('nav.sidebar').innerText()), 'the English sidebar shows Chinese after the reload');
  });
  assert(errors.length === 0, `page errors: ${errors.join('; ')}`);
  await close();
});

console.log('language: all checks passed');
