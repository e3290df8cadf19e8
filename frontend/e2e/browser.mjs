// Shared by the UI checks: launches the system Chromium headless with a fresh profile
// (never a downloaded browser) and runs named checks that stop at the first failure.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * Launches Chromium at 1280x860 and returns {page, errors, close, context, profile}.
 * `errors` collects page errors and console errors (except Chromium's own /favicon.ico
 * request). `init`, when given, is a script path (or a list of them, installed in order)
 * added with addInitScript before any page script runs. `contextOptions` are added to
 * Playwright's launchPersistentContext options (e.g. acceptDownloads). `profile` is the
 * fresh profile folder, removed by close.
 */
export async function launch({ init, contextOptions = {} } = {}) {
  const profile = await mkdtemp(join(tmpdir(), 'af-e2e-'));
  const context = await chromium.launchPersistentContext(profile, {
    ...contextOptions,
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 860 },
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
  for (const path of [init ?? []].flat()) await context.addInitScript({ path });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    const where = m.location().url || 'page';
    // Chromium asks for /favicon.ico on its own; the app never loads it.
    if (m.type() === 'error' && !where.endsWith('/favicon.ico')) errors.push(`${m.text()} (${where})`);
  });
  const close = async () => {
    await context.close().catch(() => {});
    await rm(profile, { recursive: true, force: true }).catch(() => {});
  };
  return { page, errors, close, context, profile };
}

/**
 * Returns check(name, fn): runs fn, prints "ok name"; on failure prints the error, saves
 * /tmp/ui-failure.png, calls onFail (cleanup) and exits 1. check.passed counts successes.
 */
export function checker(page, onFail) {
  const check = async (name, fn) => {
    try {
      await fn();
      check.passed++;
      console.log(`ok   ${name}`);
    } catch (e) {
      console.error(`FAIL ${name}\n     ${String(e?.message ?? e).split('\n').slice(0, 6).join('\n     ')}`);
      await page.screenshot({ path: '/tmp/ui-failure.png' }).catch(() => {});
      await onFail();
      process.exit(1);
    }
  };
  check.passed = 0;
  return check;
}

/**
 * Waits (at most timeoutMs, 10 s by default) until locator's form field is enabled: the
 * Settings dialog shows its fields disabled and empty until the stored settings arrive, so a
 * value read before then is "" rather than what is stored. Throws when the deadline passes.
 */
export async function waitEnabled(locator, timeoutMs = 10_000) {
  const handle = await locator.elementHandle({ timeout: timeoutMs });
  await handle.waitForElementState('enabled', { timeout: timeoutMs });
}

/** Throws Error(msg) unless cond. */
export function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

/** Saves /tmp/ui-<name>.png after moving the mouse away and letting transitions settle. */
export async function screenshot(page, name) {
  await page.mouse.move(0, 0);
  await page.waitForTimeout(250);
  await page.screenshot({ path: `/tmp/ui-${name}.png` });
  console.log(`     screenshot /tmp/ui-${name}.png`);
}
