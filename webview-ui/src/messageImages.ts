// The images a sent message carried, as a row of thumbnails above its text in the transcript.
import type { ImageThumb } from '../../src/protocol/images';
import { h } from './dom';

export function messageImages(images: readonly ImageThumb[] | undefined): HTMLElement[] {
  if (!images?.length) return [];
  return [
    h(
      'div',
      { class: 'message-images', role: 'list', 'aria-label': `${images.length} image${images.length > 1 ? 's' : ''}` },
      ...images.map((img) => {
        const label = `${img.name ?? 'image'} · ${img.width}×${img.height}`;
        return h(
          'figure',
          { class: 'message-image', role: 'listitem', title: label },
          // Thumbnails are validated data: URLs (protocol/images.ts); the CSP allows img-src data:.
          h('img', { src: img.thumb, alt: img.name ?? 'attached image' }),
        );
      }),
    ),
  ];
}
