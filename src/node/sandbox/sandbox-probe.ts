// Which sandbox this host can run, probed once: Seatbelt on macOS, bubblewrap on Linux (with user namespaces or
// without), and whether a command's writes can go to an overlay layer of its own (mounted by Perl or util-linux).
import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { errorText } from '../../core/error-text';
import { executable, findOnPath } from './find-on-path';
import { bwrapArgs, type BwrapFeatures, type SandboxProfile } from './profile';
import {
  createWriteLayer,
  layerPerlArgv,
  layerScript,
  mergeWriteLayer,
  perlLayerSupported,
  type WriteLayer,
} from './write-layer';

/** The programs that mount a command's write layer (util-linux), when overlays work here. */
export interface LayerTools {
  unshare?: string;
  /** Mounts with one Perl process instead of util-linux programs (faster), when it works here. */
  perl?: string;
}

export type Probe =
  | { kind: 'bubblewrap'; bwrap: string; features: BwrapFeatures; layer?: LayerTools; layerReason?: string }
  | { kind: 'seatbelt' }
  | { kind: 'none'; reason: string };

export const SANDBOX_EXEC = '/usr/bin/sandbox-exec';

export interface ProbeOptions {
  platform: NodeJS.Platform;
  /** Explicit bubblewrap binary (default: found on PATH). */
  bwrapPath?: string;
  /** Mount write layers with util-linux even where Perl could. */
  noPerl?: boolean;
  /** Forge's private folder, where the layer probe makes its scratch folders. */
  baseDir: () => Promise<string>;
}

/** Which sandbox this host can run commands in, tried for real (a sandbox that does not start is none). */
export async function probeSandbox(o: ProbeOptions): Promise<Probe> {
  if (o.platform === 'darwin') {
    if (!executable(SANDBOX_EXEC))
      return { kind: 'none', reason: 'sandbox-exec (Seatbelt) is not available on this Mac.' };
    const r = await run(SANDBOX_EXEC, ['-p', '(version 1)(allow default)(deny network*)', '/usr/bin/true']);
    return r.ok ? { kind: 'seatbelt' } : { kind: 'none', reason: `Seatbelt could not start a sandbox: ${r.error}` };
  }
  if (o.platform !== 'linux')
    return {
      kind: 'none',
      reason: `Forge has no command sandbox on ${o.platform === 'win32' ? 'Windows' : o.platform}.`,
    };
  const bwrap = o.bwrapPath ?? findOnPath('bwrap');
  if (!bwrap)
    return { kind: 'none', reason: 'bubblewrap is not installed (on Debian/Ubuntu: sudo apt install bubblewrap).' };
  let lastError = '';
  for (const features of [{ userns: true }, { userns: false }]) {
    const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-probe-'));
    try {
      const profile: SandboxProfile = {
        writable: [tmp],
        tmpDir: tmp,
        masked: [],
        network: 'off',
        env: { PATH: '/usr/bin:/bin' },
        cwd: tmp,
      };
      const r = await run(bwrap, [...bwrapArgs(profile, features), '/bin/sh', '-c', 'echo ok > probe && cat probe']);
      if (r.ok && r.stdout.trim() === 'ok')
        return { kind: 'bubblewrap', bwrap, features, ...(await probeLayer(o, bwrap, features)) };
      lastError = r.error || r.stdout;
    } finally {
      await fsp.rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    }
  }
  return {
    kind: 'none',
    reason: `bubblewrap is installed but cannot create a sandbox here (${lastError.trim().slice(0, 200)}). User namespaces may be disabled (sysctl kernel.unprivileged_userns_clone / AppArmor).`,
  };
}

/** Whether a command's writes can go to a layer of its own here (user namespaces, overlayfs, util-linux). */
async function probeLayer(
  o: ProbeOptions,
  bwrap: string,
  features: BwrapFeatures,
): Promise<{ layer?: LayerTools; layerReason?: string }> {
  if (!features.userns) return { layerReason: 'user namespaces are not available' };
  const unshare = findOnPath('unshare') && findOnPath('mount') ? findOnPath('unshare') : undefined;
  const base = await o.baseDir();
  const root = await fsp.mkdtemp(path.join(base, 'probe-'));
  try {
    const ws = path.join(root, 'ws');
    await fsp.mkdir(ws);
    const profile: SandboxProfile = {
      writable: [ws],
      tmpDir: root,
      masked: [],
      network: 'off',
      env: { PATH: '/usr/bin:/bin' },
      cwd: ws,
    };
    const ids = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
    const tryWith = async (tools: LayerTools): Promise<string | undefined> => {
      await fsp.writeFile(path.join(ws, 'gone'), 'x');
      await fsp.rm(path.join(ws, 'made'), { force: true });
      const layer = await createWriteLayer(path.join(root, 'st'), [ws]);
      const [cmd, ...args] = [
        ...layerLauncher(tools, layer, ids),
        bwrap,
        ...bwrapArgs(profile, features),
        '/bin/sh',
        '-c',
        'echo ok > made && rm gone && cat made',
      ];
      const r = await run(cmd!, args);
      const merged = r.ok && r.stdout.trim() === 'ok' ? await mergeWriteLayer(layer) : undefined;
      const works =
        !!merged &&
        merged.changes.length === 2 &&
        (await fsp.readFile(path.join(ws, 'made'), 'utf8').catch(() => '')) === 'ok\n';
      return works ? undefined : (r.error || r.stdout).trim().slice(0, 160) || 'the merge did not match';
    };
    const perl = o.noPerl ? undefined : findOnPath('perl');
    const perlFailed = perl && perlLayerSupported() ? await tryWith({ perl }) : 'no Perl';
    if (perlFailed === undefined) return { layer: { perl } };
    if (!unshare) return { layerReason: `util-linux unshare and mount are not installed (and Perl: ${perlFailed})` };
    const tools: LayerTools = { unshare };
    const failed = await tryWith(tools);
    return failed === undefined ? { layer: tools } : { layerReason: `an overlay could not be mounted (${failed})` };
  } catch (e) {
    return { layerReason: `an overlay could not be mounted (${errorText(e)})` };
  } finally {
    await fsp.rm(root, { recursive: true, force: true }).catch(() => undefined);
  }
}

const UNSHARE_ARGS = ['--user', '--map-root-user', '--mount', '--propagation', 'private'];

/** The programs that mount a command's layer, then run the bubblewrap argv that follows them. */
export function layerLauncher(
  tools: LayerTools,
  layer: WriteLayer,
  ids: { uid: number; gid: number } | undefined,
): string[] {
  if (tools.perl) return layerPerlArgv(layer, tools.perl, ids ?? { uid: 0, gid: 0 });
  return [tools.unshare!, ...UNSHARE_ARGS, '/bin/sh', '-c', layerScript(layer), 'forge-layer'];
}

function run(file: string, args: string[]): Promise<{ ok: boolean; stdout: string; error: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 5000, env: { PATH: '/usr/bin:/bin' } }, (err, stdout, stderr) => {
      resolve({ ok: !err, stdout: String(stdout), error: err ? String(stderr || err.message) : '' });
    });
  });
}
