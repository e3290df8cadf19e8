// Export → HTML of a report with Mermaid diagrams against the real Go backend in browser
// mode, driven by app/browser/math_e2e_test.go (TestBrowserE2EExportMermaid): node
// e2e/export-mermaid.mjs URL. The scripted lead writes a report with two flowcharts and a
// broken diagram; the page draws them, Export → HTML downloads a file holding the two
// diagrams as inline SVG and the broken one as its source. The file is then opened in
// Chromium from disk, under its own CSP: the node labels are visible SVG text, the file has
// no script and no <foreignObject>, the two diagrams' ids stay apart, and nothing is refused
// by the CSP. Exits non-zero on the first failure. AF_SHOT=path saves a screenshot of the
// exported page.
import { copyFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { assert, checker, launch } from './browser.mjs';

const url = process.argv[2];
if (!url) {
  console.error('usage: node e2e/export-mermaid.mjs URL');
  process.exit(2);
}

const { page, close, context, profile } = await launch({ contextOptions: { acceptDownloads: true } });
const check = checker(page, close);

await page.goto(url);

let file = '';
await check('Export → HTML sends the drawn diagrams and downloads the page', async () => {
  const box = page.getByPlaceholder('Ask a research question…');
  await box.fill('How does light reach the Moon?');
  await box.press('Enter');
  const doc = page.locator('.markdown.doc').first();
  await doc.locator('.mermaid-diagram svg').nth(1).waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: /^Export/ }).click();
  const menu = page.getByRole('menu', { name: 'Export as' });
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), menu.getByRole('menuitem', { name: /HTML/ }).click()]);
  assert(download.suggestedFilename() === 'Light_to_the_Moon.html', `downloaded ${download.suggestedFilename()}`);
  file = join(profile, 'export.html');
  await copyFile(await download.path(), file);
  await page.locator('.viewer-status', { hasText: 'Downloaded Light_to_the_Moon.html' }).waitFor();
});

await check('the exported file shows the diagrams as SVG text under its own CSP', async () => {
  const html = await readFile(file, 'utf8');
  assert(html.includes(`content="default-src 'none'; style-src 'unsafe-inline'; img-src * data:; form-action 'none'"`), 'the export lost its CSP');
  assert(!/<script/i.test(html) && !/<foreignObject/i.test(html), 'the export holds a script or a foreignObject');
  assert(/<code class="language-mermaid">graph LR\n {2}A --&gt;\n<\/code>/.test(html), 'the broken diagram is not its source');
  const view = await context.newPage();
  const refused = [];
  view.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) refused.push(m.text());
  });
  view.on('request', (r) => {
    if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) refused.push(`request ${r.url()}`);
  });
  await view.goto(pathToFileURL(file).href);
  const figs = view.locator('figure.diagram svg');
  assert((await figs.count()) === 2, `${String(await figs.count())} diagrams in the export`);
  for (const label of ['Ground station', 'Moon reflector', 'Sun', 'Earth']) {
    const text = view.locator('figure.diagram svg text', { hasText: label }).first();
    assert(await text.isVisible(), `label ${label} not visible`);
    const b = await text.boundingBox();
    assert(b !== null && b.width > 10 && b.height > 5, `label ${label} has no size: ${JSON.stringify(b)}`);
  }
  // Mermaid's theme came along: the node boxes are filled, not black.
  const fill = await view.locator('figure.diagram svg .node rect').first().evaluate((el) => getComputedStyle(el).fill);
  assert(fill !== 'rgb(0, 0, 0)' && fill !== 'none', `node fill ${fill}`);
  const ids = await view.evaluate(() => [...document.querySelectorAll('[id]')].map((e) => e.id));
  assert(new Set(ids).size === ids.length, `duplicate ids: ${ids.join(' ')}`);
  assert(refused.length === 0, `refused or loaded: ${refused.join(' | ')}`);
  if (process.env.AF_SHOT) await view.screenshot({ path: process.env.AF_SHOT, fullPage: true });
  await view.close();
});

console.log(`${String(check.passed)} checks passed`);
await close();
