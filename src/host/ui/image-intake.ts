// Images sent from the panel: the model must take them (said before anything is sent, never a failed request
// mid-run), each is checked (its bytes really are the image type it claims) and stored by hash beside the task
// history, and the message's transcript item gets the thumbnails.
import type { ImagePart, ModelInfo } from '../../core/model/types';
import type { ImageAttachment, ImageThumb } from '../../protocol/images';
import type { ImageStore } from '../../node/image-store';
import { errorText } from '../../core/error-text';

export interface StagedImages {
  parts: ImagePart[];
  thumbs: ImageThumb[];
}

/** Why a model cannot get images, in the words the panel shows; undefined when it can. */
export function imageRefusal(info: Pick<ModelInfo, 'model' | 'provider' | 'images'> | undefined): string | undefined {
  if (info?.images) return undefined;
  const name = info?.model ? `The model ${info.model}` : 'The model in use';
  return (
    `${name} does not accept images, so your message was not sent. Remove the images, or pick a model that ` +
    'takes images (Forge: Select Model). If this model does take them, set forge.imageInput to "on".'
  );
}

/** Checks and stores a message's images. Returns them ready for the Agent, or a readable refusal. */
export async function stageImages(
  images: readonly ImageAttachment[],
  info: ModelInfo | undefined,
  store: Pick<ImageStore, 'put'>,
): Promise<StagedImages | { error: string }> {
  const refusal = imageRefusal(info);
  if (refusal) return { error: refusal };
  try {
    const parts = await Promise.all(images.map((img) => store.put(img)));
    const thumbs = images.map(({ thumb, width, height, name }) => ({
      thumb,
      width,
      height,
      ...(name ? { name } : {}),
    }));
    return { parts, thumbs };
  } catch (err) {
    return { error: `Your message was not sent: ${errorText(err)}` };
  }
}
