// --image <file>: image files sent with the task. Checked before anything is sent: the model must take images,
// each file must be an image of a kind the providers accept and within the per-image cap.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { imageTypeOfPath, MAX_IMAGE_BASE64_CHARS, sniffImageType } from '../core/model/images';
import type { ImagePart, ModelInfo } from '../core/model/types';
import { toImagePart } from '../node/image-store';
import { InputError } from './json-input';
import { errorText } from '../core/error-text';

const MAX_BYTES = Math.floor((MAX_IMAGE_BASE64_CHARS * 3) / 4);

export async function loadCliImages(files: readonly string[], cwd: string, info: ModelInfo): Promise<ImagePart[]> {
  if (!files.length) return [];
  if (!info.images)
    throw new InputError(
      `--image: the model ${info.model} does not accept images, so nothing was sent. Use a model that takes images ` +
        '(Claude, GPT-4o / 4.1 / 5, a vision model such as llava or qwen2.5vl).',
    );
  const parts: ImagePart[] = [];
  for (const file of files) {
    const abs = path.resolve(cwd, file);
    const st = await fs.stat(abs).catch(() => undefined);
    if (!st?.isFile()) throw new InputError(`--image ${file}: no such file`);
    if (st.size > MAX_BYTES)
      throw new InputError(
        `--image ${file}: ${st.size} bytes, over the ${MAX_BYTES}-byte cap per image; scale it down`,
      );
    const bytes = await fs.readFile(abs);
    const type = sniffImageType(bytes) ?? imageTypeOfPath(file);
    if (!type) throw new InputError(`--image ${file}: not a PNG, JPEG, GIF or WebP image`);
    try {
      parts.push(await toImagePart({ mediaType: type, data: bytes.toString('base64'), name: path.basename(file) }));
    } catch (err) {
      throw new InputError(`--image ${file}: ${errorText(err)}`);
    }
  }
  return parts;
}
