// Math and Mermaid in a report against the real Go backend in browser mode, driven by
// app/browser/math_e2e_test.go (TestBrowserE2EMathMermaid): node e2e/math.mjs URL. The
// scripted lead writes a report with inline and display math, prices, a diagram and a
// broken diagram; the page (under its own CSP) shows KaTeX's output, the prices as text, the
// diagram as an SVG and the broken one as an inline error with its source. Exits non-zero
// on the first failure. AF_SHOT=path saves a screenshot of the page.
import { assert, checker, launch } from './browser.mjs';

const url = process.argv[2];
if (!url) {
  console.error('usage: node e2e/math.mjs URL');
  process.exit(2);
}

const { page, close } = await launch();
const check = checker(page, close);
const cspErrors = [];
page.on('console', (m) => {
  if (/Content Security Policy|Refused to/i.test(m.text())) cspErrors.push(m.text());
});

await page.goto(url);

await check('a report shows typeset math and a drawn diagram', async () => {
  const box = page.getByPlaceholder('Ask a research question…');
  await box.fill('How long does light take to the Moon?');
  await box.press('Enter');
  const doc = page.locator('.markdown.doc').first();
  await doc.locator('.katex-display').first().waitFor({ timeout: 30_000 });
  const tex = await doc.locator('annotation[encoding="application/x-tex"]').allTextContents();
  assert(tex.includes('d \\approx 384\\,400') && tex.includes('t = \\frac{d}{c} \\approx 1.28\\ \\text{s}'), `formulas: ${JSON.stringify(tex)}`);
  assert((await doc.textContent()).includes('it costs $5 and $10.'), 'the prices are not left as text');
  await doc.locator('.mermaid-diagram svg').first().waitFor({ timeout: 30_000 });
  // The second diagram's init directive sets a themeCSS with a remote url(): drawn, without it.
  await doc.locator('.mermaid-diagram svg').nth(1).waitFor({ timeout: 30_000 });
  const drawn = await doc.locator('.mermaid-diagram').evaluateAll((els) => els.map((e) => e.outerHTML).join('\n'));
  assert(drawn.includes('Sun') && drawn.includes('Moon'), 'a diagram lost its labels');
  assert(!drawn.includes('x.example'), 'a diagram kept the remote URL of its init directive');
  const err = doc.locator('.mermaid-error[role="alert"]');
  await err.waitFor({ timeout: 30_000 });
  assert((await doc.locator('.mermaid-block pre:not([hidden])').textContent()).includes('A -->'), 'the broken diagram does not show its source');
  // KaTeX's fonts load from the app (the page CSP allows fonts from itself only).
  const fonts = await page.evaluate(() => document.fonts.check('16px KaTeX_Main'));
  assert(fonts, 'KaTeX_Main font not loaded');
  assert(cspErrors.length === 0, `CSP violations: ${cspErrors.join(' | ')}`);
  if (process.env.AF_SHOT) await page.screenshot({ path: process.env.AF_SHOT });
});

console.log(`${String(check.passed)} checks passed`);
await close();
