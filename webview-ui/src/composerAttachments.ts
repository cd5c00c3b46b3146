// Images in the composer: paste, drop or attach (file picker) them; each is scaled down here, in the webview, to
// a long edge of 1568 px and a byte cap before it is sent (the host never receives a multi-megabyte original),
// and shows as a removable thumbnail above the input until the message is sent.
import { IMAGE_LIMITS, IMAGE_MEDIA_TYPES, type ImageAttachment } from '../../src/protocol/images';
import type { WebviewMessage } from '../../src/protocol/messages';
import { h } from './dom';
import { icon } from './icons';

/** Long edge sent to the model (Anthropic scales anything larger down; OpenAI's high detail fits 2048). */
export const MAX_EDGE_PX = 1568;
/** Bytes one image may take after scaling; encoders step down quality until it fits. */
export const TARGET_BYTES = 1_500_000;
const THUMB_EDGE_PX = 96;

type MediaType = (typeof IMAGE_MEDIA_TYPES)[number];
const ACCEPTED = new Set<string>(IMAGE_MEDIA_TYPES);

interface AttachmentHost {
  /** Whether the model in use takes images (undefined: not known yet). */
  takesImages(): boolean | undefined;
}

interface Pending {
  id: number;
  name: string;
  el: HTMLElement;
  ready: Promise<ImageAttachment | undefined>;
  image?: ImageAttachment;
}

export class ComposerAttachments {
  readonly tray: HTMLElement;
  readonly attachBtn: HTMLElement;
  readonly note: HTMLElement;
  private readonly picker: HTMLInputElement;
  private items: Pending[] = [];
  private seq = 0;

  constructor(
    private readonly input: HTMLTextAreaElement,
    private readonly dropZone: HTMLElement,
    private readonly host: AttachmentHost,
  ) {
    this.tray = h('div', { class: 'attach-tray', role: 'list', 'aria-label': 'Attached images', hidden: true });
    this.note = h('div', { class: 'attach-note', role: 'status', hidden: true });
    this.picker = h('input', {
      type: 'file',
      accept: IMAGE_MEDIA_TYPES.join(','),
      multiple: true,
      hidden: true,
      'aria-hidden': 'true',
      tabindex: '-1',
    }) as HTMLInputElement;
    this.attachBtn = h(
      'button',
      { type: 'button', class: 'icon-btn attach-btn', title: 'Attach images', 'aria-label': 'Attach images' },
      icon('file-media'),
    );
    this.attachBtn.addEventListener('click', () => this.picker.click());
    this.picker.addEventListener('change', () => {
      this.addFiles(Array.from(this.picker.files ?? []));
      this.picker.value = '';
    });
    input.addEventListener('paste', (e) => this.onPaste(e));
    dropZone.addEventListener('dragover', (e) => this.onDragOver(e));
    dropZone.addEventListener('dragleave', (e) => {
      if (!dropZone.contains(e.relatedTarget as Node | null)) dropZone.classList.remove('drop-target');
    });
    dropZone.addEventListener('drop', (e) => this.onDrop(e));
    // Above the input: the thumbnails and what went wrong; the attach button before Send.
    const row = dropZone.querySelector('.composer-row');
    dropZone.insertBefore(this.tray, row);
    dropZone.insertBefore(this.note, row);
    const buttons = dropZone.querySelector('.composer-buttons');
    buttons?.prepend(this.attachBtn);
    dropZone.append(this.picker);
  }

  get count(): number {
    return this.items.length;
  }

  /** Shows or hides "this model does not take images" as the model or the attachments change. */
  refresh(): void {
    const refused = this.items.length > 0 && this.host.takesImages() === false;
    this.dropZone.classList.toggle('images-refused', refused);
    if (refused)
      this.say(
        'The model in use does not accept images. Remove them, or pick a model that takes images (or set forge.imageInput to "on").',
        'refused',
      );
    else if (this.note.dataset.kind === 'refused') this.say('');
  }

  /** Whether the message may be sent now: false (and the reason shown) while the model refuses images. */
  canSend(): boolean {
    this.refresh();
    return !(this.items.length > 0 && this.host.takesImages() === false);
  }

  /**
   * Sends `text` with the attached images once each is scaled (a message of images alone gets a short text). The
   * caller checked canSend() first.
   */
  async send(text: string, requestId: string, post: (m: WebviewMessage) => void): Promise<void> {
    const images = await this.take();
    const body = (text || (images.length > 1 ? 'See the attached images.' : 'See the attached image.')).slice(
      0,
      100_000,
    );
    if (!images.length && !text) return;
    post({ type: 'send_message', requestId, text: body, ...(images.length ? { images } : {}) });
  }

  /** The scaled images, ready to send (waits for any still being scaled), and clears the tray. */
  async take(): Promise<ImageAttachment[]> {
    const items = this.items;
    const images = (await Promise.all(items.map((p) => p.ready))).filter((i): i is ImageAttachment => !!i);
    for (const p of items) this.remove(p.id);
    return images;
  }

  addFiles(files: readonly File[]): void {
    for (const file of files) {
      if (!ACCEPTED.has(file.type)) {
        this.say(`${file.name || 'That file'} is not a PNG, JPEG, GIF or WebP image; it was not attached.`, 'error');
        continue;
      }
      if (this.items.length >= IMAGE_LIMITS.perMessage) {
        this.say(`At most ${IMAGE_LIMITS.perMessage} images per message.`, 'error');
        break;
      }
      this.add(file);
    }
    this.refresh();
  }

  private add(file: File): void {
    const id = ++this.seq;
    const name = (file.name || `pasted-${id}.${file.type.split('/')[1]}`).slice(0, IMAGE_LIMITS.name);
    const remove = h(
      'button',
      { type: 'button', class: 'attach-remove', title: `Remove ${name}`, 'aria-label': `Remove ${name}` },
      icon('close'),
    );
    const el = h(
      'div',
      { class: 'attach-thumb loading', role: 'listitem', title: name, 'data-attach-id': String(id) },
      h('span', { class: 'attach-spinner codicon codicon-loading codicon-modifier-spin', 'aria-label': 'Scaling' }),
      remove,
    );
    remove.addEventListener('click', () => {
      this.remove(id);
      this.input.focus();
    });
    const pending: Pending = { id, name, el, ready: Promise.resolve(undefined) };
    pending.ready = scaleImage(file, name).then(
      (image) => {
        pending.image = image;
        el.classList.remove('loading');
        el.querySelector('.attach-spinner')?.remove();
        const img = h('img', { src: image.thumb, alt: name, width: THUMB_EDGE_PX });
        el.prepend(img);
        el.title = `${name} · ${image.width}×${image.height}`;
        return image;
      },
      (err: unknown) => {
        this.remove(id);
        this.say(`${name} could not be read as an image: ${err instanceof Error ? err.message : String(err)}`, 'error');
        return undefined;
      },
    );
    this.items.push(pending);
    this.tray.append(el);
    this.tray.hidden = false;
  }

  private remove(id: number): void {
    const p = this.items.find((i) => i.id === id);
    if (!p) return;
    this.items = this.items.filter((i) => i !== p);
    p.el.remove();
    this.tray.hidden = this.items.length === 0;
    this.refresh();
  }

  private say(text: string, kind: 'error' | 'refused' | 'info' = 'info'): void {
    this.note.textContent = text;
    this.note.dataset.kind = kind;
    this.note.hidden = !text;
  }

  private onPaste(e: ClipboardEvent): void {
    const files = Array.from(e.clipboardData?.items ?? [])
      .filter((i) => i.kind === 'file' && i.type.startsWith('image/'))
      .map((i) => i.getAsFile())
      .filter((f): f is File => !!f);
    if (!files.length) return; // text pastes as usual
    e.preventDefault();
    this.addFiles(files);
  }

  private onDragOver(e: DragEvent): void {
    if (!Array.from(e.dataTransfer?.types ?? []).includes('Files')) return;
    e.preventDefault();
    if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    this.dropZone.classList.add('drop-target');
  }

  private onDrop(e: DragEvent): void {
    this.dropZone.classList.remove('drop-target');
    const files = Array.from(e.dataTransfer?.files ?? []);
    if (!files.length) return;
    e.preventDefault();
    this.addFiles(files);
  }
}

/**
 * Decodes the image and makes what is sent: the original bytes when they already fit (a small screenshot stays
 * a lossless PNG), else the image scaled to MAX_EDGE_PX and encoded (PNG when that fits, else JPEG, then WebP,
 * stepping quality down) under TARGET_BYTES; plus a small thumbnail.
 */
export async function scaleImage(file: Blob, name: string): Promise<ImageAttachment> {
  const bitmap = await createImageBitmap(file);
  try {
    const { width, height } = bitmap;
    const scale = Math.min(1, MAX_EDGE_PX / Math.max(width, height));
    const w = Math.max(1, Math.round(width * scale));
    const h2 = Math.max(1, Math.round(height * scale));
    const thumb = await encodeThumb(bitmap);
    if (scale === 1 && file.size <= TARGET_BYTES && ACCEPTED.has(file.type)) {
      return { mediaType: file.type as MediaType, data: await base64Of(file), width, height, name, thumb };
    }
    const canvas = new OffscreenCanvas(w, h2);
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('no 2D canvas');
    const attempts: [MediaType, number | undefined][] = [
      ['image/png', undefined],
      ['image/jpeg', 0.85],
      ['image/webp', 0.8],
      ['image/jpeg', 0.7],
      ['image/jpeg', 0.5],
    ];
    for (const [type, quality] of attempts) {
      draw(ctx, bitmap, w, h2, type === 'image/jpeg');
      const blob = await canvas.convertToBlob({ type, quality });
      // convertToBlob falls back to PNG for a type it cannot encode.
      if (blob.type !== type || blob.size > TARGET_BYTES) continue;
      return { mediaType: type, data: await base64Of(blob), width: w, height: h2, name, thumb };
    }
    throw new Error(`still over ${Math.round(TARGET_BYTES / 1e6)} MB after scaling`);
  } finally {
    bitmap.close();
  }
}

/** Draws the image scaled; `opaque` (JPEG has no alpha) puts it on white, so transparent pixels are not black. */
function draw(ctx: OffscreenCanvasRenderingContext2D, bitmap: ImageBitmap, w: number, h: number, opaque: boolean) {
  ctx.clearRect(0, 0, w, h);
  if (opaque) {
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, w, h);
  }
  ctx.drawImage(bitmap, 0, 0, w, h);
}

async function encodeThumb(bitmap: ImageBitmap): Promise<string> {
  const scale = Math.min(1, THUMB_EDGE_PX / Math.max(bitmap.width, bitmap.height));
  const w = Math.max(1, Math.round(bitmap.width * scale));
  const h2 = Math.max(1, Math.round(bitmap.height * scale));
  const canvas = new OffscreenCanvas(w, h2);
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('no 2D canvas');
  ctx.drawImage(bitmap, 0, 0, w, h2);
  const blob = await canvas.convertToBlob({ type: 'image/webp', quality: 0.8 });
  return `data:${blob.type};base64,${await base64Of(blob)}`;
}

/** Base64 of a blob without building a string per byte on the main thread's hot path. */
async function base64Of(blob: Blob): Promise<string> {
  const url = await new Promise<string>((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result));
    r.onerror = () => reject(r.error ?? new Error('read failed'));
    r.readAsDataURL(blob);
  });
  return url.slice(url.indexOf(',') + 1);
}
