// read_file on an image: the model gets the image within a size cap; an over-cap or mislabelled file gets a clear
// text result; the same confinement and secret refusal as every read.
import { strict as assert } from 'node:assert';
import { createWorkspaceTools } from '../../../../../src/core/tools/builtin';
import { READ_MAX_IMAGE_BYTES } from '../../../../../src/core/tools/builtin/read-file';
import { FakeCommandRunner, FsEditApplier, MemoryFs } from '../../../../../src/core/workspace/memory-fs';
import { byName, call, refusalOf } from '../../../../support/tool-context';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

function readFile(files: Record<string, string | Uint8Array>) {
  const fs = new MemoryFs(['/ws'], files);
  const tools = createWorkspaceTools({
    fs,
    runner: new FakeCommandRunner(),
    applier: new FsEditApplier(fs),
    sandbox: { trusted: true, platform: 'posix' },
  });
  return byName(tools, 'read_file');
}

describe('read_file on images', () => {
  it('gives a PNG to the model as an image part with its size and hash', async () => {
    const r = await call(readFile({ '/ws/shots/home.png': new Uint8Array(PNG) }), { path: 'shots/home.png' });
    assert.equal(r.isError, undefined);
    assert.match(r.content, /shots\/home\.png: image\/png image, 1x1, .*attached/);
    assert.equal(r.images?.length, 1);
    const img = r.images![0];
    assert.equal(img.mediaType, 'image/png');
    assert.equal(img.data, PNG.toString('base64'));
    assert.match(img.sha256, /^[0-9a-f]{64}$/);
    assert.deepEqual([img.width, img.height], [1, 1]);
  });

  it('an image over the cap is a clear error, with no bytes read into the result', async () => {
    const big = new Uint8Array(READ_MAX_IMAGE_BYTES + 1);
    big.set(PNG);
    const r = await call(readFile({ '/ws/huge.png': big }), { path: 'huge.png' });
    assert.equal(r.isError, true);
    assert.match(r.content, /huge\.png is an image of .* over read_file's .* cap on images/);
    assert.equal(r.images, undefined);
  });

  it('a .png that is not an image is a binary file, not an image part', async () => {
    const r = await call(readFile({ '/ws/fake.png': new Uint8Array([0, 1, 2, 3, 0, 0, 7]) }), { path: 'fake.png' });
    assert.equal(r.images, undefined);
    assert.match(r.content, /binary file/);
  });

  it('is confined like every read: outside the workspace and secrets are refused', async () => {
    const tool = readFile({
      '/ws/.env.png': new Uint8Array(PNG),
      '/outside/x.png': new Uint8Array(PNG),
      '/ws/id_rsa.png': new Uint8Array(PNG),
    });
    for (const p of ['../outside/x.png', '/outside/x.png', '.env.png', 'id_rsa.png']) {
      const r = (await refusalOf(tool, { path: p })) ?? (await call(tool, { path: p }));
      assert.equal(r.isError, true, p);
      assert.equal(r.images, undefined, p);
    }
  });
});
