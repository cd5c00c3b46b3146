import { createHash } from 'node:crypto';
import * as z from 'zod';
import { imageSize, imageTypeOfPath, MAX_IMAGE_BASE64_CHARS, sniffImageType } from '../../model/images';
import type { WorkspaceSandbox } from '../../safety/paths';
import type { Tool } from '../types';
import { decodeText, decodeTextPaced, errorResult, formatBytes, isBinary, Pacer, resolveOrRefuse } from './common';

const READ_MAX_LINES = 2000;
const READ_MAX_CHARS = 256 * 1024;
/** Largest file read_file loads (whole: the file system ports have no ranged read). */
export const READ_MAX_FILE_BYTES = 20 * 1024 * 1024;
const MAX_LINE_CHARS = 2000;
/** Largest image read_file gives the model (its base64 fits the per-image cap every provider takes). */
export const READ_MAX_IMAGE_BYTES = Math.floor((MAX_IMAGE_BASE64_CHARS * 3) / 4);

const readFileInput = z.object({
  path: z.string().describe('File path relative to the workspace root (e.g. "src/index.ts").'),
  startLine: z.number().int().min(1).optional().describe('First line to read (1-based). Default 1.'),
  endLine: z.number().int().min(1).optional().describe('Last line to read (inclusive). Default: up to the size cap.'),
});

export function createReadFileTool(sandbox: WorkspaceSandbox): Tool<typeof readFileInput> {
  return {
    name: 'read_file',
    description:
      'Read a text file from the workspace. Returns lines prefixed with their line number ("12 | text"); the ' +
      `prefix is not part of the file. At most ${READ_MAX_LINES} lines / ${READ_MAX_CHARS / 1024} KB per call: ` +
      'for longer files pass startLine/endLine to page. Binary files are not shown, except images (png, jpg, ' +
      'gif, webp), which a model that takes images gets to see.',
    input: readFileInput,
    risk: 'read',
    async execute(input, ctx) {
      const r = await resolveOrRefuse(sandbox, input.path, 'read');
      if (!r.ok) return r.result;
      const { abs } = r.path;
      const shown = sandbox.display(abs);
      const st = await sandbox.fs.stat(abs);
      if (!st) return errorResult(`File not found: ${shown}. Use list_files or search_files to find the right path.`);
      if (st.type === 'dir') return errorResult(`${shown} is a directory. Use list_files to see its contents.`);
      // Checked before the open: reading a FIFO waits for a writer forever, a device never ends.
      if (st.type !== 'file')
        return errorResult(`${shown} is not a regular file (a FIFO, device or socket); its contents are not read.`);
      if (st.size > READ_MAX_FILE_BYTES) {
        return errorResult(
          `${shown} is ${formatBytes(st.size)}, over read_file's ${formatBytes(READ_MAX_FILE_BYTES)} cap on files it loads. ` +
            'Find the lines you need with search_files (path set to this file), or show a range with execute_command ' +
            '(for example `sed -n 100,200p`).',
          { errorClass: 'tool', tooLarge: true, size: st.size, capBytes: READ_MAX_FILE_BYTES },
        );
      }
      if (imageTypeOfPath(abs) && st.size > READ_MAX_IMAGE_BYTES) {
        return errorResult(
          `${shown} is an image of ${formatBytes(st.size)}, over read_file's ${formatBytes(READ_MAX_IMAGE_BYTES)} cap on images. ` +
            'Ask the user for a smaller copy, or scale it down with a command (for example ImageMagick `convert -resize`).',
          { errorClass: 'tool', tooLarge: true, size: st.size, capBytes: READ_MAX_IMAGE_BYTES },
        );
      }
      const bytes = await sandbox.fs.readFile(abs, ctx.signal);
      const image =
        imageTypeOfPath(abs) && bytes.byteLength <= READ_MAX_IMAGE_BYTES ? sniffImageType(bytes) : undefined;
      const size = image && imageSize(bytes, image);
      // Only an image whose header gives its size is sent as one; anything else reads as a binary file.
      if (image && size) {
        const dims = `, ${size.width}x${size.height}`;
        return {
          content: `${shown}: ${image} image${dims}, ${formatBytes(bytes.byteLength)}. The image is attached to this result.`,
          effects: { read: [shown] },
          data: { image: image, size: bytes.byteLength, ...size },
          images: [
            {
              mediaType: image,
              sha256: createHash('sha256').update(bytes).digest('hex'),
              data: Buffer.from(bytes).toString('base64'),
              ...size,
              name: shown,
            },
          ],
        };
      }
      if (bytes.byteLength > READ_MAX_FILE_BYTES) {
        return errorResult(
          `${shown} grew to ${formatBytes(bytes.byteLength)} while being read, over read_file's ${formatBytes(READ_MAX_FILE_BYTES)} cap. Use search_files to find the lines you need.`,
          { errorClass: 'tool', tooLarge: true, size: bytes.byteLength, capBytes: READ_MAX_FILE_BYTES },
        );
      }
      if (isBinary(bytes)) {
        return {
          content: `${shown} is a binary file (${formatBytes(bytes.byteLength)}); its contents are not shown.`,
          effects: { read: [shown] },
          data: { binary: true, size: bytes.byteLength },
        };
      }
      // Lines are found in the bytes (a newline is one byte in UTF-8 and never part of another character): one
      // pass counts them and finds where startLine and the last line that can be shown begin, pausing for the
      // host on big files; only the bytes of the lines shown are decoded (a 19 MB file is never one string).
      const start = input.startLine ?? 1;
      const lastShown = Math.min(input.endLine ?? Infinity, start + READ_MAX_LINES - 1);
      const pacer = new Pacer(ctx.signal, 4); // short slices: the scan of a 19 MB file is ~10 ms of them
      let newlines = 0;
      let startAt = start === 1 ? 0 : -1;
      let stopAt = bytes.byteLength;
      for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, i + 1)) {
        newlines++;
        if (newlines === start - 1) startAt = i + 1;
        if (newlines === lastShown) stopAt = i + 1;
        if (pacer.due()) await pacer.pause();
      }
      const empty = bytes.byteLength === 0 || (bytes.byteLength <= 6 && decodeText(bytes) === '');
      const total = empty ? 0 : newlines + (bytes[bytes.byteLength - 1] === 10 ? 0 : 1);
      if (total === 0) return { content: `${shown} is empty.`, effects: { read: [shown] }, data: { totalLines: 0 } };
      if (start > total) return errorResult(`${shown} has only ${total} lines; startLine ${start} is past the end.`);
      if (input.endLine !== undefined && input.endLine < start)
        return errorResult(`endLine (${input.endLine}) is before startLine (${start}).`);
      const text = await decodeTextPaced(bytes.subarray(startAt, Math.max(startAt, stopAt)), ctx.signal, startAt > 0);
      const wantedEnd = Math.min(input.endLine ?? total, total);
      const width = String(wantedEnd).length;
      const out: string[] = [];
      let chars = 0;
      let end = start - 1;
      let at = 0;
      for (let n = start; n <= wantedEnd && n - start < READ_MAX_LINES; n++) {
        const nl = text.indexOf('\n', at);
        const lineEnd = nl < 0 ? text.length : nl;
        // A line longer than the cap is cut before it is copied out.
        let line = text.slice(at, Math.min(lineEnd, at + MAX_LINE_CHARS + 1));
        if (line.endsWith('\r') && at + line.length === lineEnd) line = line.slice(0, -1);
        const fullLength = lineEnd - at - (text.charCodeAt(lineEnd - 1) === 13 ? 1 : 0);
        at = nl < 0 ? text.length : nl + 1;
        if (fullLength > MAX_LINE_CHARS)
          line = `${line.slice(0, MAX_LINE_CHARS)}… (${fullLength - MAX_LINE_CHARS} more characters on this line)`;
        const row = `${String(n).padStart(width)} | ${line}`;
        if (chars + row.length > READ_MAX_CHARS && out.length > 0) break;
        out.push(row);
        chars += row.length + 1;
        end = n;
      }
      let header = `${shown} (${total} lines)`;
      if (start !== 1 || end !== total) header += `, showing lines ${start}-${end}`;
      let content = `${header}\n${out.join('\n')}`;
      if (end < wantedEnd) {
        content += `\n[Stopped at the ${READ_MAX_LINES}-line / ${READ_MAX_CHARS / 1024} KB cap. Call read_file with startLine=${end + 1} to continue.]`;
      } else if (end < total && input.endLine === undefined) {
        content += `\n[${total - end} more lines. Call read_file with startLine=${end + 1} to continue.]`;
      }
      return { content, effects: { read: [shown] }, data: { totalLines: total, startLine: start, endLine: end } };
    },
  };
}
