// Pictures in questions against the real Go backend in browser mode, driven by
// app/browser/questionimages_e2e_test.go (TestBrowserE2EQuestionImages):
// node e2e/question-images.mjs URL, with AF_PNG_PASTE and AF_PNG_DROP (two PNG charts,
// base64), AF_ANSWER (the scripted model's answer) and AF_SHOT (optional: where to save the
// screenshot of the answered picture question). A chart pasted into the composer becomes a
// chip; sent with a question it shows in the sent question with the answer beneath; a
// second chart dropped onto the composer goes with a follow-up. Exits non-zero on the
// first failure.
import { assert, checker, launch } from './browser.mjs';

const url = process.argv[2];
const { AF_PNG_PASTE: pasted, AF_PNG_DROP: dropped, AF_ANSWER: answer, AF_SHOT: shot } = process.env;
if (!url || !pasted || !dropped || !answer) {
  console.error('usage: AF_PNG_PASTE=.. AF_PNG_DROP=.. AF_ANSWER=.. node e2e/question-images.mjs URL');
  process.exit(2);
}

const { page, close } = await launch();
const check = checker(page, close);

await page.goto(url);
const box = page.getByPlaceholder('Ask a research question…');
await box.waitFor();

await check('a chart pasted into the composer becomes a chip with its thumbnail', async () => {
  await page.evaluate((b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], 'image.png', { type: 'image/png' }));
    const box = document.querySelector('textarea.composer-input');
    box.focus();
    box.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  }, pasted);
  const chip = page.locator('[data-testid="composer-picture"]');
  await chip.first().waitFor();
  await page.waitForFunction(() => {
    const c = document.querySelector('[data-testid="composer-picture"]');
    return c && c.classList.contains('status-ready') && c.querySelector('img')?.naturalWidth > 0;
  });
  assert((await chip.count()) === 1, 'one chip');
  assert(/^pasted-\d{8}-\d{6}\.png$/.test((await chip.locator('.picture-name').textContent()) ?? ''), 'the pasted picture is named pasted-<time>.png');
  assert((await chip.locator('.picture-remove').getAttribute('aria-label'))?.includes('pasted-'), 'the remove button names the picture');
});

await check('sent with the question, the chart shows in the question with the answer beneath', async () => {
  await box.fill('What does this chart show?');
  await box.press('Enter');
  await page.getByText(answer).first().waitFor();
  const pic = page.locator('.question-picture img').first();
  await pic.waitFor();
  await page.waitForFunction(() => document.querySelector('.question-picture img')?.naturalWidth === 480);
  assert((await page.locator('[data-testid="composer-picture"]').count()) === 0, 'the chips are gone once sent');
  const picBox = await pic.boundingBox();
  const answerBox = await page.locator('.answer').first().boundingBox();
  assert(picBox && answerBox && picBox.y + picBox.height <= answerBox.y, 'the answer is under the question picture');
  if (shot) await page.screenshot({ path: shot });
});

await check('a chart dropped onto the composer goes with a follow-up', async () => {
  const target = await box.boundingBox();
  await page.evaluate(
    ({ b64, x, y }) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], 'sales-2025.png', { type: 'image/png' }));
      const at = document.elementFromPoint(x, y) ?? document.body;
      for (const type of ['dragenter', 'dragover', 'drop']) {
        at.dispatchEvent(new DragEvent(type, { dataTransfer: dt, clientX: x, clientY: y, bubbles: true, cancelable: true }));
      }
    },
    { b64: dropped, x: target.x + target.width / 2, y: target.y + target.height / 2 },
  );
  await page.waitForFunction(() => document.querySelector('[data-testid="composer-picture"]')?.classList.contains('status-ready'));
  assert((await page.locator('.drop-overlay').count()) === 0, 'the drop overlay is gone');
  await box.fill('And this one?');
  await box.press('Enter');
  await page.locator('.question-picture img[alt="sales-2025.png"]').waitFor();
  await page.waitForFunction(() => document.querySelectorAll('.answer').length >= 2);
});

console.log(`${String(check.passed)} checks passed`);
await close();
