// Opens the 10,000-event fixture conversation (bench/fixture) in browser mode and measures
// open-to-first-paint for `make bench` (bench/cmd/measure):
//
//   node bench/openconv/open.mjs URL TITLE LAST_QUESTION [RUNS]
//
// Each run uses a fresh browser context (no remembered conversation), loads URL, waits for
// the sidebar to list TITLE, then clicks it inside the page and times, with performance.now(),
// from the click to the first animation frame (and the task after it, when the frame has been
// painted) after the newest exchange (the one holding LAST_QUESTION) is in the chat list.
// backend is the time from the click to the end of the responses the page waits for before
// showing the conversation (ConversationService/Get and ArtifactService/List: the Go calls
// plus their HTTP round trips), render the rest (React, layout, paint, and the other calls'
// handling on the page's thread).
// settled is the time to the paint after the newest History page replaced the few exchanges
// shown while it loaded (null if that did not happen within 10 s).
// The first run warms the server and is not counted. Prints one JSON object:
// {"runs":[{total,backend,render,exchanges,settled,settledExchanges,calls (every /api/ call after the click)}], "total",
// "backend", "render", "settled"} (medians, ms).
// With AF_CPUPROFILE=FILE, the last run's page is profiled (.cpuprofile, for DevTools).
// Uses the system Chromium (CHROMIUM_PATH or /usr/bin/chromium) and frontend/'s playwright-core.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { writeFile } from 'node:fs/promises';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '../../frontend/package.json'));
const { chromium } = require('playwright-core');

const [url, title, last, runsArg] = process.argv.slice(2);
if (!url || !title || !last) {
  console.error('usage: node bench/openconv/open.mjs URL TITLE LAST_QUESTION [RUNS]');
  process.exit(2);
}
const runs = Number(runsArg ?? 5);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

async function once(profile = '') {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(url);
    await page.locator('button.conv-open', { hasText: title }).first().waitFor({ timeout: 30_000 });
    // The event stream keeps the network busy: let the start-up calls settle instead.
    await page.waitForTimeout(1000);
    const cdp = profile ? await context.newCDPSession(page) : null;
    if (cdp) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
      await cdp.send('Profiler.start');
    }
    const r = await page.evaluate(
      async ({ title, last }) => {
        const btn = [...document.querySelectorAll('button.conv-open')].find((b) => (b.textContent ?? '').includes(title));
        if (!btn) throw new Error(`no conversation "${title}" in the sidebar`);
        performance.clearResourceTimings();
        const shown = () => {
          const ex = document.querySelectorAll('main.chat .exchange');
          const l = ex[ex.length - 1];
          return l !== undefined && (l.textContent ?? '').includes(last);
        };
        const t0 = performance.now();
        btn.click();
        await new Promise((resolve, reject) => {
          if (shown()) return resolve();
          const timer = setTimeout(() => {
            mo.disconnect();
            reject(new Error(`the exchange "${last}" was not shown within 60 s`));
          }, 60_000);
          const mo = new MutationObserver(() => {
            if (!shown()) return;
            mo.disconnect();
            clearTimeout(timer);
            resolve();
          });
          mo.observe(document.body, { childList: true, subtree: true, characterData: true });
        });
        await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
        const t1 = performance.now();
        // Settled: the newest History page has replaced the few exchanges shown while it
        // loaded (their number changes), painted; null when that did not happen within 10 s.
        const first = document.querySelectorAll('main.chat .exchange').length;
        const settled = await new Promise((resolve) => {
          const changed = () => document.querySelectorAll('main.chat .exchange').length !== first;
          const done = () => requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t0), 0));
          if (changed()) return done();
          const timer = setTimeout(() => {
            mo.disconnect();
            resolve(null);
          }, 10_000);
          const mo = new MutationObserver(() => {
            if (!changed()) return;
            mo.disconnect();
            clearTimeout(timer);
            done();
          });
          mo.observe(document.body, { childList: true, subtree: true });
        });
        const all = performance
          .getEntriesByType('resource')
          .filter((e) => e.name.includes('/api/') && e.startTime >= t0)
          .map((e) => ({ call: e.name.replace(/^.*\/api\/(bind\/)?/, '').replace(/\?.*$/, ''), start: e.startTime - t0, end: e.responseEnd - t0 }));
        const calls = all.filter((c) => c.end <= t1 - t0);
        // The page shows the conversation once both of these answered (chat/useConversationDetail).
        const data = calls.filter((c) => c.call === 'ConversationService/Get' || c.call === 'ArtifactService/List');
        const backend = Math.max(0, ...(data.length ? data : calls).map((c) => c.end));
        return { total: t1 - t0, backend, render: t1 - t0 - backend, exchanges: first, settled, settledExchanges: document.querySelectorAll('main.chat .exchange').length, calls: all };
      },
      { title, last },
    );
    if (cdp) {
      const { profile: p } = await cdp.send('Profiler.stop');
      await writeFile(profile, JSON.stringify(p));
    }
    if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
    return r;
  } finally {
    await context.close();
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
try {
  await once(); // warm-up
  const out = [];
  for (let i = 0; i < runs; i++) out.push(await once(i === runs - 1 ? (process.env.AF_CPUPROFILE ?? '') : ''));
  const settled = out.map((r) => r.settled).filter((x) => x !== null);
  console.log(
    JSON.stringify({
      runs: out,
      total: median(out.map((r) => r.total)),
      backend: median(out.map((r) => r.backend)),
      render: median(out.map((r) => r.render)),
      settled: settled.length ? median(settled) : null,
    }),
  );
} catch (e) {
  console.error(String(e?.stack ?? e));
  process.exitCode = 1;
} finally {
  await browser.close();
}
