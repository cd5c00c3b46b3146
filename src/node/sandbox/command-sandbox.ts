// Contains every command the agent runs: bubblewrap on Linux, Seatbelt on macOS, probed once. Both command
// runners (terminal and child process) ask it for a plan: the argv to run and the environment to run it with.
// A sandbox that is expected but fails to start is reported as such, never silently replaced by a bare run.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fsp, realpathSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CommandFileChange, Containment, RunRequest } from '../../core/workspace/types';
import { scrubEnv } from './env';
import { bridgeArgv, writeBridgeScript } from './net-bridge';
import { registryHosts, startAllowlistProxy, type AllowlistProxy } from './network-proxy';
import { bwrapArgs, seatbeltProfile, shellQuote, within, type SandboxProfile } from './profile';
import { hostSockets } from './host-sockets';
import { blockedNotes, refusalNotes } from './sandbox-notes';
import { layerLauncher, probeSandbox, SANDBOX_EXEC, type Probe } from './sandbox-probe';
import { SCAN_MAX_ENTRIES, SecretLocator } from './secret-locations';
import {
  createWriteLayer,
  mergeWriteLayer,
  optionSafe,
  removeWriteLayer,
  type MergeResult,
  type WriteLayer,
} from './write-layer';
import { errorText } from '../../core/error-text';

export interface SandboxSettings {
  /** false: the user turned the sandbox off (commands then ask unless read-only). */
  enabled: boolean;
  network: 'off' | 'allowlist' | 'on';
  /** Host patterns for 'allowlist' (`preset:package-registries` ...). */
  allowedHosts?: readonly string[];
  /** Extra host variables to pass (names, `*` suffix for a prefix); credentials are refused anyway. */
  envAllow: readonly string[];
}

interface CommandSandboxOptions {
  settings: () => SandboxSettings;
  /** Workspace folders (writable inside the sandbox). */
  roots: () => readonly string[];
  platform?: NodeJS.Platform;
  home?: string;
  /** Where task temp folders and launchers live (default: a private folder under the OS temp dir). */
  baseDir?: string;
  /** Explicit bubblewrap binary (default: found on PATH). */
  bwrapPath?: string;
  log?: { info(m: string): void; warn(m: string): void };
  /** Entries the workspace secret scan reads at most (default SCAN_MAX_ENTRIES); past it, commands ask. */
  scanMaxEntries?: number;
  /** Mount write layers with util-linux even where Perl could (tests of that path). */
  noPerl?: boolean;
  /** How the surface names its sandbox controls in notes (default: the extension's settings). */
  controls?: SandboxControls;
}

/** The surface's words for the sandbox's controls ("setting forge.sandbox.network" / "--network"). */
export interface SandboxControls {
  /** Containment's summary and reason when the sandbox is turned off. */
  off: { summary: string; reason: string };
  network: string;
  allowedHosts: string;
}

const SETTINGS_CONTROLS: SandboxControls = {
  off: {
    summary: 'no sandbox (turned off in forge.sandbox.enabled)',
    reason: 'The sandbox is turned off in the setting forge.sandbox.enabled.',
  },
  network: 'setting forge.sandbox.network',
  allowedHosts: 'setting forge.sandbox.allowedHosts',
};

export interface SandboxPlan {
  contained: boolean;
  /** Program and arguments, no shell in between (the command itself runs under /bin/sh -c inside). */
  argv: string[];
  /** The whole environment of the spawned process. */
  env: Record<string, string>;
  summary: string;
  profile?: SandboxProfile;
  /** This command's allow-list proxy (closed by finish()). */
  proxy?: AllowlistProxy;
  /** The command's own write layer, merged into the workspace by finish(). */
  layer?: WriteLayer;
  /** What the merge did (set by finish()). */
  merged?: MergeResult;
}

export class CommandSandbox {
  private probe: Probe | undefined;
  private probing: Promise<Probe> | undefined;
  private base: Promise<string> | undefined;
  private readonly platform: NodeJS.Platform;
  private readonly home: string;
  private readonly locator: SecretLocator;
  private warnedEnv = new Set<string>();

  private readonly controls: SandboxControls;

  constructor(private readonly opts: CommandSandboxOptions) {
    this.controls = opts.controls ?? SETTINGS_CONTROLS;
    this.platform = opts.platform ?? process.platform;
    this.home = opts.home ?? os.homedir();
    this.locator = new SecretLocator(this.home, undefined, opts.scanMaxEntries);
  }

  /** Probes the platform's sandbox once (later calls return the same answer) and scans for the workspace's secrets. */
  async ready(): Promise<Containment> {
    this.probing ??= probeSandbox({
      platform: this.platform,
      bwrapPath: this.opts.bwrapPath,
      noPerl: this.opts.noPerl,
      baseDir: () => this.baseDir(),
    }).then((p) => (this.probe = p));
    await this.probing;
    if (this.probe?.kind !== 'none' && this.locator.state(this.realRoots()) === 'unknown')
      await this.locateSecrets().catch(() => undefined);
    return this.containment();
  }

  /** The workspace folders with symlinks resolved, as the secret scan keys them (cached per folder list). */
  private realRootsCache: { key: string; real: string[] } | undefined;
  private realRoots(): string[] {
    const roots = this.opts.roots();
    const key = roots.join('\n');
    if (this.realRootsCache?.key !== key)
      this.realRootsCache = {
        key,
        real: roots.map((r) => {
          try {
            return realpathSync(r);
          } catch {
            return r;
          }
        }),
      };
    return this.realRootsCache.real;
  }

  private locateSecrets(fresh = false) {
    return this.locator.locate(this.realRoots(), fresh);
  }

  /** How commands run now (before the probe finished: what the probe is expected to find). */
  containment(): Containment {
    const s = this.opts.settings();
    const network = s.network;
    if (!s.enabled)
      return {
        kind: 'none',
        network: 'on',
        summary: this.controls.off.summary,
        reason: this.controls.off.reason,
      };
    const p = this.probe;
    if (!p)
      return { kind: this.platform === 'darwin' ? 'seatbelt' : 'bubblewrap', network, summary: 'sandbox starting' };
    if (p.kind === 'none') return { kind: 'none', network: 'on', summary: 'no sandbox', reason: p.reason };
    const name = p.kind === 'bubblewrap' ? 'bubblewrap sandbox' : 'Seatbelt sandbox';
    const net =
      network === 'allowlist'
        ? p.kind === 'bubblewrap'
          ? 'network only to allowed hosts'
          : 'network off (no allow list under Seatbelt)'
        : `network ${network}`;
    const layer = p.kind === 'bubblewrap' && !!p.layer;
    const scan = this.locator.state(this.realRoots());
    const secretScan =
      scan === 'complete' ? {} : { secretScan: scan === 'incomplete' ? ('incomplete' as const) : ('pending' as const) };
    const writes = layer
      ? 'writes reach the workspace when the command ends, never the control plane (.git, .vscode, AGENTS.md ...)'
      : 'writes only in the workspace and a task temp folder';
    const secrets =
      scan === 'complete'
        ? 'secrets hidden'
        : scan === 'incomplete'
          ? `secrets hidden as far as the scan got (it stops at ${(this.opts.scanMaxEntries ?? SCAN_MAX_ENTRIES).toLocaleString('en-US')} files), so every command asks`
          : 'secrets being located, so commands ask';
    return {
      kind: p.kind,
      network,
      summary: `${name}: ${writes}, ${secrets}, ${net}, scrubbed environment`,
      ...(layer ? { writeLayer: true } : {}),
      ...secretScan,
    };
  }

  /** The argv and environment for one command. */
  async plan(
    req: Pick<RunRequest, 'command' | 'cwd' | 'taskId' | 'env'>,
    opts: { fresh?: boolean; statusFd?: number } = {},
  ): Promise<SandboxPlan> {
    const s = this.opts.settings();
    const probe = s.enabled ? (this.probe ?? (await this.ready(), this.probe!)) : undefined;
    const tmpDir = await this.taskTmp(req.taskId);
    const scrubbed = scrubEnv(process.env, s.envAllow, {
      TMPDIR: tmpDir,
      TMP: tmpDir,
      TEMP: tmpDir,
      ...(req.env ?? {}),
    });
    for (const name of scrubbed.refused) {
      if (this.warnedEnv.has(name)) continue;
      this.warnedEnv.add(name);
      this.opts.log?.warn(`forge.sandbox.envAllowList: ${name} looks like a credential and is not passed to commands.`);
    }
    const env = scrubbed.env;
    const c = this.containment();
    if (!probe || probe.kind === 'none') {
      const argv = this.platform === 'win32' ? [] : ['/bin/sh', '-c', req.command];
      return { contained: false, argv, env, summary: c.reason ? `no sandbox: ${c.reason}` : 'no sandbox' };
    }
    this.realRootsCache = undefined; // resolved again for each command: a folder may have been replaced by a link
    const roots = this.realRoots();
    // The write layer's folders are made while the secrets and sockets are located (each a few milliseconds).
    const layerP =
      probe.kind === 'bubblewrap' && probe.layer
        ? this.prepareLayer(roots, req.taskId).catch(() => undefined)
        : undefined;
    const [{ masked }, hiddenDirs] = await Promise.all([this.locateSecrets(opts.fresh), this.hiddenDirs()]);
    const hidden = [...hiddenDirs]; // a copy: Forge's folder may be added below for this command
    const profile: SandboxProfile = {
      writable: roots,
      tmpDir,
      masked,
      network: s.network,
      env,
      cwd: req.cwd,
      hiddenDirs: hidden,
    };
    profile.masked = [...masked, ...(await hostSockets(roots, hiddenDirs))];
    if (hidden.some((d) => within(d, this.home)))
      profile.keepVisible = [await fsp.realpath(this.home).catch(() => this.home)];
    let inner = ['/bin/sh', '-c', req.command];
    let proxy: AllowlistProxy | undefined;
    if (probe.kind === 'bubblewrap' && s.network === 'allowlist') {
      const net = await this.allowListProxy(s.allowedHosts ?? []);
      proxy = net.proxy;
      profile.privateDirs = [net.netDir];
      profile.roBinds = [path.dirname(net.proxy.socketPath), path.dirname(net.script)];
      inner = bridgeArgv(req.command, {
        socketPath: net.proxy.socketPath,
        scriptPath: net.script,
        nodePath: process.execPath,
      });
    }
    if (probe.kind === 'seatbelt') {
      profile.protectedPaths = await protectedPaths(roots);
      const argv = [SANDBOX_EXEC, '-p', seatbeltProfile(profile), ...inner];
      return { contained: true, argv, env, summary: c.summary, profile, proxy };
    }
    const base = await this.baseDir();
    // Forge's private folder (write layers, launchers, proxies) is never visible inside, wherever it lives.
    if (!hidden.some((d) => within(d, base))) hidden.push(base);
    profile.sharedTmp = hidden.filter((d) => d === '/tmp' || d === '/var/tmp' || d === os.tmpdir());
    if (hidden.some((d) => within(d, tmpDir))) {
      const inside = profile.sharedTmp.includes('/tmp') ? '/tmp' : profile.sharedTmp[0];
      if (inside) for (const k of ['TMPDIR', 'TMP', 'TEMP']) if (env[k] === tmpDir) env[k] = inside;
    }
    if (s.network !== 'on') profile.resolvConf = await this.resolvConf(base);
    const uid = process.getuid?.();
    const gid = process.getgid?.();
    if (uid !== undefined && gid !== undefined) profile.ids = { uid, gid };
    const layer = await layerP;
    if (layer?.home) profile.writable = [layer.home.path, ...roots];
    if (!layer) profile.protectedPaths = await protectedPaths(roots); // before the arguments are made from the profile
    const bwrap = [probe.bwrap, ...bwrapArgs(profile, probe.features, opts.statusFd), ...inner];
    const argv = layer ? [...layerLauncher(probe.layer!, layer, profile.ids), ...bwrap] : bwrap;
    const summary = layer
      ? c.summary
      : `${c.summary} (no write layer: ${probe.layerReason ?? 'overlays are not available'}; the control plane is read-only where it exists)`;
    if (!layer && c.writeLayer)
      this.opts.log?.warn(
        "A command runs without its write layer: the path of Forge's temp folder has a comma, colon or space.",
      );
    return { contained: true, argv, env, summary, profile, proxy, layer };
  }

  private hidden: Promise<string[]> | undefined;
  /** The shared temp folder(s) and the user's runtime folder: other programs' sockets live there. */
  private hiddenDirs(): Promise<string[]> {
    this.hidden ??= (async () => {
      const uid = process.getuid?.();
      const candidates = ['/tmp', '/var/tmp', os.tmpdir(), ...(uid !== undefined ? [`/run/user/${uid}`] : [])];
      const real = await Promise.all(candidates.map((d) => fsp.realpath(d).catch(() => undefined)));
      return [...new Set(real.filter((d): d is string => !!d && d !== '/'))];
    })();
    return this.hidden;
  }

  /**
   * Ends a command's plan: merges its write layer into the workspace (without the control plane), closes its proxy;
   * returns what the sandbox stopped, for the model and the card. The merge's record is left in plan.merged.
   */
  async finish(plan: SandboxPlan, output: string, opts: { merge?: boolean } = {}): Promise<string[]> {
    const notes = blockedNotes(output, plan, this.home, this.controls);
    if (plan.layer) {
      const layer = plan.layer;
      plan.layer = undefined; // once: a retried plan is finished too
      if (opts.merge !== false) {
        plan.merged = await this.merge(layer).catch((e: unknown) => {
          this.opts.log?.warn(`Merging a command's writes failed: ${errorText(e)}`);
          return {
            changes: [],
            refused: [],
            skipped: [{ path: layer.folders[0]?.root ?? '', why: 'the merge failed' }],
            partial: true,
          };
        });
        notes.unshift(...refusalNotes(plan.merged, this.opts.roots()));
      }
      void removeWriteLayer(layer); // off the command's path: the next request need not wait for the clean-up
    }
    if (plan.proxy) {
      const denied = plan.proxy.takeDenied();
      await plan.proxy.close().catch(() => undefined);
      if (denied.length)
        notes.unshift(
          `network connections to ${denied.slice(0, 5).join(', ')}: not on the allow list (${this.controls.allowedHosts})`,
        );
    }
    return notes.slice(0, 5);
  }

  private async merge(layer: WriteLayer): Promise<MergeResult> {
    const hooks = new Map<string, string[]>();
    for (const f of layer.folders) hooks.set(f.root, await hooksPathDirs(f.root));
    return mergeWriteLayer(layer, { extraControlDirs: (root) => hooks.get(root) ?? [] });
  }

  /**
   * A command's write layer (undefined when Forge's folder path cannot go into mount options). Only Forge's own
   * folders go into the overlay's options; the workspace and home paths are mount targets and bind sources, passed
   * as they are, so a space or comma in them is fine.
   */
  private async prepareLayer(roots: readonly string[], taskId: string | undefined): Promise<WriteLayer | undefined> {
    const base = await this.baseDir();
    if (!optionSafe(base)) return undefined;
    this.realHome ??= fsp.realpath(this.home).catch(() => this.home);
    const realHome = await this.realHome;
    // The home folder gets a layer of the task's own (caches, tool configs), unless it holds Forge's folder.
    const homeLayer =
      realHome !== '/' && !within(realHome, base) && !within(base, realHome) && !roots.some((r) => within(r, realHome))
        ? { path: realHome, ...this.homeLayerDirs(base, taskId) }
        : undefined;
    return createWriteLayer(base, roots, homeLayer);
  }

  private realHome: Promise<string> | undefined;

  private resolv: Promise<{ file: string; dest: string } | undefined> | undefined;
  /** The stand-in resolver configuration (written once), bound where the host's real one is. */
  private resolvConf(base: string): Promise<{ file: string; dest: string } | undefined> {
    this.resolv ??= (async () => {
      const dest = await fsp.realpath('/etc/resolv.conf').catch(() => undefined);
      if (
        !dest ||
        !(await fsp.stat(dest).then(
          (st) => st.isFile(),
          () => false,
        ))
      )
        return undefined;
      const file = path.join(base, 'resolv.conf');
      await fsp.writeFile(
        file,
        '# Forge sandbox: no network, so no resolver\nnameserver 127.0.0.1\noptions timeout:1 attempts:1\n',
        { mode: 0o644 },
      );
      return { file, dest };
    })();
    return this.resolv;
  }

  private homeLayerDirs(base: string, taskId: string | undefined): { upper: string } {
    const safe = (taskId ?? 'shared').replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 80) || 'shared';
    return { upper: path.join(base, 'homes', safe) };
  }

  /** One proxy per command, on a socket in its own folder: other commands never see it. */
  private async allowListProxy(
    allowedHosts: readonly string[],
  ): Promise<{ proxy: AllowlistProxy; script: string; netDir: string }> {
    const netDir = path.join(await this.baseDir(), 'net');
    const dir = path.join(netDir, randomBytes(4).toString('hex'));
    await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
    const script = await writeBridgeScript(path.join(netDir, 'bin'));
    const npm = allowedHosts.some((h) => /^preset:(npm|package-registries)$/i.test(h.trim()))
      ? await this.npmRegistries()
      : [];
    const proxy = await startAllowlistProxy({
      allowedHosts,
      socketPath: path.join(dir, 'p.sock'),
      dynamicPresets: { npm },
      log: this.opts.log,
    });
    return { proxy, script, netDir };
  }

  private npmHosts: Promise<string[]> | undefined;
  /** The registries the user's npm is configured with (default and scoped), read once. */
  private npmRegistries(): Promise<string[]> {
    this.npmHosts ??= new Promise((resolve) => {
      execFile('npm', ['config', 'list', '--json'], { timeout: 10_000, cwd: this.opts.roots()[0] }, (err, stdout) => {
        if (err) return resolve([]);
        try {
          const cfg = JSON.parse(String(stdout)) as Record<string, unknown>;
          const urls = Object.entries(cfg)
            .filter(([k, v]) => (k === 'registry' || k.endsWith(':registry')) && typeof v === 'string')
            .map(([, v]) => v as string);
          resolve(registryHosts(urls));
        } catch {
          resolve([]);
        }
      });
    });
    return this.npmHosts;
  }

  /**
   * A one-shot launcher script for a terminal: the visible command line stays `<launcher> '<command>'` while
   * the script holds the long sandbox invocation. It lives outside every writable folder, so a contained
   * command cannot rewrite the next command's launcher.
   */
  async launcher(plan: SandboxPlan, cwd: string, statusFile?: string): Promise<string> {
    const dir = path.join(await this.baseDir(), 'bin');
    await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
    const file = path.join(dir, `run-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`);
    const [cmd, ...args] = plan.argv.slice(0, -1); // the command itself comes as "$1"
    const envWords = Object.entries(plan.env).map(([k, v]) => shellQuote(`${k}=${v}`));
    const lines = ['#!/bin/sh', `rm -f -- ${shellQuote(file)}`];
    if (!plan.contained) lines.push(`cd -- ${shellQuote(cwd)} || exit 125`);
    if (statusFile) lines.push(`exec 3>${shellQuote(statusFile)}`);
    lines.push(`exec /usr/bin/env -i ${envWords.join(' ')} ${[cmd!, ...args].map(shellQuote).join(' ')} "$1"`);
    await fsp.writeFile(file, lines.join('\n') + '\n', { mode: 0o700 });
    return file;
  }

  /** Removes the private temp folders (task temp folders included). */
  async dispose(): Promise<void> {
    if (!this.base) return;
    const dir = await this.base.catch(() => undefined);
    if (dir && !this.opts.baseDir) await fsp.rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }

  private baseDir(): Promise<string> {
    this.base ??= this.opts.baseDir
      ? fsp.mkdir(this.opts.baseDir, { recursive: true, mode: 0o700 }).then(() => this.opts.baseDir!)
      : fsp.mkdtemp(path.join(os.tmpdir(), 'forge-sandbox-'));
    return this.base;
  }

  private async taskTmp(taskId: string | undefined): Promise<string> {
    const safe = (taskId ?? 'shared').replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 80) || 'shared';
    const dir = path.join(await this.baseDir(), 'tasks', safe);
    await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
    return fsp.realpath(dir);
  }
}

/** Workspace-relative core.hooksPath of a repository (.husky ...), read from its config without running git. */
async function hooksPathDirs(root: string): Promise<string[]> {
  // Only a regular file of a sane size: a FIFO or device put there must not hang the merge.
  const file = path.join(root, '.git', 'config');
  const st = await fsp.lstat(file).catch(() => undefined);
  const config = st?.isFile() && st.size < 1024 * 1024 ? await fsp.readFile(file, 'utf8').catch(() => '') : '';
  const out: string[] = [];
  for (const m of config.matchAll(/^\s*hookspath\s*=\s*"?([^"\n]+?)"?\s*$/gim)) {
    const p = m[1]!.trim();
    const rel = path.isAbsolute(p) ? path.relative(root, p) : p;
    if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) out.push(rel.split(path.sep).join('/'));
  }
  return out;
}

/** The merge's changes as a command's result carries them. */
export function fileChangesOf(plan: SandboxPlan): CommandFileChange[] | undefined {
  if (!plan.merged) return undefined;
  return plan.merged.changes.map((c) => ({
    path: c.path,
    kind: c.kind,
    ...(c.untracked ? {} : { before: c.before ?? null, after: c.after ?? null }),
  }));
}

/** Without a write layer: what of the control plane exists stays read-only inside the sandbox. */
async function protectedPaths(roots: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const root of roots) {
    for (const rel of ['.git', '.vscode', '.devcontainer', '.forge', '.envrc', 'AGENTS.md', '.mcp.json', '.husky']) {
      const p = path.join(root, rel);
      if (
        await fsp.lstat(p).then(
          (st) => !st.isSymbolicLink(),
          () => false,
        )
      )
        out.push(p);
    }
  }
  return out;
}
