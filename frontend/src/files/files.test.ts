// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { base64ToBytes, bytesToBase64, downloadBase64, formatUploadSize, MIB, readAsBase64, uploadErrorText, uploadNoteText, uploadProblem } from './files';
import { i18n } from '../i18n/i18n';

/** Reference encoder: one character at a time, then btoa. */
function ref(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}
const utf8 = (t: string) => new TextEncoder().encode(t);

describe('base64', () => {
  it('round-trips every byte value and matches Node', () => {
    const all = new Uint8Array(256).map((_, i) => i);
    const b64 = bytesToBase64(all);
    expect(b64).toBe('AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+P0BBQkNERUZHSElKS0xNTk9QUVJTVFVWV1hZWltcXV5fYGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6e3x9fn+AgYKDhIWGh4iJiouMjY6PkJGSk5SVlpeYmZqbnJ2en6ChoqOkpaanqKmqq6ytrq+wsbKztLW2t7i5uru8vb6/wMHCw8TFxsfIycrLzM3Oz9DR0tPU1dbX2Nna29zd3t/g4eLj5OXm5+jp6uvs7e7v8PHy8/T19vf4+fr7/P3+/w==');
    expect(Array.from(base64ToBytes(b64))).toEqual(Array.from(all));
  });

  it('encodes large inputs in chunks (no stack overflow) and UTF-8 text', () => {
    const big = new Uint8Array(3 * 0x8000 + 17).map((_, i) => (i * 31) & 0xff);
    expect(bytesToBase64(big)).toBe(ref(big));
    const text = new TextEncoder().encode('热泵 — ok\n');
    expect(bytesToBase64(text)).toBe('54Ot5rO1IOKAlCBvawo=');
    expect(bytesToBase64(new Uint8Array())).toBe('');
  });

  it('decodes unpadded and wrapped input and rejects junk', () => {
    expect(new TextDecoder().decode(base64ToBytes('aGk'))).toBe('hi');
    expect(new TextDecoder().decode(base64ToBytes('aGVs\nbG8='))).toBe('hello');
    expect(() => base64ToBytes('not base64!')).toThrow('not valid base64');
  });

  it('reads a File as base64', async () => {
    await expect(readAsBase64(new File(['# notes\n'], 'notes.md'))).resolves.toBe(ref(utf8('# notes\n')));
  });
});

describe('uploadProblem', () => {
  it('accepts files up to the limit and refuses larger ones with a clear message', () => {
    expect(uploadProblem({ name: 'a.md', size: 20 * MIB }, 20)).toBe('');
    expect(uploadProblem({ name: 'a.md', size: 0 }, 20)).toBe('');
    expect(uploadProblem({ name: 'big.pdf', size: 20 * MIB + 1 }, 20)).toBe('"big.pdf" is just over 20 MB, over the 20 MB upload limit (see Settings)');
    expect(uploadProblem({ name: 'scan.pdf', size: Math.round(25.3 * MIB) }, 20)).toContain('is 25.3 MB, over the 20 MB');
    expect(uploadProblem({ name: 'x.bin', size: 2 * MIB }, 1)).toContain('over the 1 MB upload limit');
    // A nonsensical limit never lets everything through.
    expect(uploadProblem({ name: 'x.bin', size: 2 * MIB }, 0)).toContain('over the 1 MB');
  });

  it('formats sizes', () => {
    expect([formatUploadSize(512), formatUploadSize(1536), formatUploadSize(20 * MIB)]).toEqual(['512 bytes', '1.5 KB', '20 MB']);
  });
});

describe('downloadBase64', () => {
  it('clicks a temporary download link with the file name and bytes', async () => {
    const blobs: Blob[] = [];
    URL.createObjectURL = vi.fn((b: Blob) => {
      blobs.push(b);
      return 'blob:x';
    });
    URL.revokeObjectURL = vi.fn();
    const clicked: { download: string; href: string }[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push({ download: this.download, href: this.href });
    });
    downloadBase64('Report.md', 'text/markdown', ref(utf8('# R\n')));
    expect(clicked).toEqual([{ download: 'Report.md', href: 'blob:x' }]);
    expect(blobs[0]?.type).toBe('text/markdown');
    await expect(blobs[0]?.text()).resolves.toBe('# R\n');
    expect(document.querySelector('a[download]')).toBeNull();
    click.mockRestore();
  });
});

describe('upload messages from the backend', () => {
  const tooLarge = {
    error: '"big.pdf" is 300 MB, over the 256 MB upload limit; upload a smaller file or raise the limit in Settings',
    error_code: 'file_too_large',
    error_args: { size: String(300 * 1024 * 1024), limit_mb: '256' },
  };
  const png = {
    note: 'its text could not be read (.png files are not supported); the original file is kept',
    note_parts: [{ code: 'unreadable', args: { reason: '.png files are not supported', reason_code: 'unsupported_type', ext: '.png' } }],
  };
  const renamedLegacy: { note: string; note_parts: { code: string; args: Record<string, string> }[] } = {
    note: 'saved as "notes_1" because "notes" already exists; text decoded from GB18030',
    note_parts: [
      { code: 'renamed', args: { id: 'notes_1', base: 'notes' } },
      { code: 'decoded', args: { encoding: 'GB18030' } },
    ],
  };

  it('words them in English', () => {
    expect(uploadErrorText('big.pdf', tooLarge)).toBe('"big.pdf" is 300 MB, over the 256 MB upload limit (see Settings)');
    expect(uploadNoteText(png)).toBe('its text could not be read (.png files are not read as text); the original file is kept');
    expect(uploadNoteText(renamedLegacy)).toBe('saved as “notes_1” because “notes” already exists; text decoded from GB18030');
  });

  it('words them in Chinese, not in the backend’s English', async () => {
    await i18n.changeLanguage('zh-CN');
    try {
      expect(uploadErrorText('big.pdf', tooLarge)).toBe('“big.pdf”大小为 300 MB，超过了 256 MB 的上传上限（见设置）');
      expect(uploadErrorText('big.pdf', { ...tooLarge, error_args: { ...tooLarge.error_args, at_least: '1' } })).toBe('“big.pdf”至少有 300 MB，超过了 256 MB 的上传上限（见设置）');
      expect(uploadNoteText(png)).toBe('无法读取其文本（不支持读取 .png 文件的文本）；已保留原始文件');
      expect(uploadNoteText(renamedLegacy)).toBe('已另存为“notes_1”，因为“notes”已存在；文本已从 GB18030 转换');
      // A code without words of its own reads as what the code means.
      expect(uploadErrorText('pipe', { error: 'pipe is a named pipe, not a file; only files can be uploaded', error_code: 'not_a_file' })).toBe(i18n.t('errors:code.not_a_file'));
      // An older backend without parts: its own text.
      expect(uploadNoteText({ note: 'text decoded from Big5' })).toBe('text decoded from Big5');
    } finally {
      await i18n.changeLanguage('en');
    }
  });
});
