// The sandbox profile, and how each platform's sandbox is told about it: bubblewrap arguments on Linux, a
// Seatbelt (SBPL) profile on macOS. Pure functions of the profile, so the exact containment is unit-testable
// on any platform.

export interface MaskedPath {
  path: string;
  /** Folders are hidden behind an empty tmpfs; files behind an unreadable stand-in. */
  dir: boolean;
}

export interface SandboxProfile {
  /** Folders the command may write (the workspace folders), absolute and symlink-resolved. */
  writable: string[];
  /** The task's own temp folder: writable, and TMPDIR inside the sandbox. */
  tmpDir: string;
  /** Secret locations to hide (the user's keys and credentials, the workspace's .env and key files). */
  masked: MaskedPath[];
  /** 'allowlist': no network of its own; a forwarder reaches the host's allow-list proxy through a socket. */
  network: 'off' | 'allowlist' | 'on';
  /**
   * Folders hidden behind an empty private tmpfs before anything else is mounted: the shared temp folder and the
   * user's runtime folder, where other programs keep their sockets (ssh-agent, VS Code's IPC, D-Bus, X11).
   * Writable folders inside them are bound again on top.
   */
  hiddenDirs?: string[];
  /** Folders inside a hidden one that stay visible, read-only (a HOME under /tmp). */
  keepVisible?: string[];
  /**
   * Paths inside writable folders that stay read-only: what would run later outside the sandbox (.git/hooks,
   * .git/config with its hooksPath/fsmonitor/pager settings, .vscode tasks and settings).
   */
  protectedPaths?: string[];
  /**
   * Hidden folders where the task's temp folder is bound instead of an empty tmpfs (/tmp, /var/tmp): a file one
   * command of the task leaves there is there for the next one.
   */
  sharedTmp?: string[];
  /**
   * Without a network of its own: a resolver configuration bound over the host's (`dest`, its real path) that sends
   * lookups to the sandbox's own loopback, refused at once, instead of retrying a resolver nobody can reach.
   */
  resolvConf?: { file: string; dest: string };
  /** The user and group the command runs as inside its user namespace (the host's own, not root). */
  ids?: { uid: number; gid: number };
  /** Folders replaced by an empty private tmpfs (other commands' proxy sockets), mounted after the binds. */
  privateDirs?: string[];
  /** Read-only binds at the same path, after privateDirs (this command's proxy socket and forwarder). */
  roBinds?: string[];
  /** The complete environment of the command (already scrubbed). */
  env: Record<string, string>;
  cwd: string;
}

export interface BwrapFeatures {
  /** A user namespace can be created (unprivileged bubblewrap, or root with CAP_SETFCAP). */
  userns: boolean;
}

/**
 * bubblewrap arguments up to and including `--`: the whole file system read-only, the workspace folders and the
 * task temp folder writable, secrets masked, a fresh /dev and /proc (so no other process's environment is
 * readable), new pid/ipc/uts (and net when off) namespaces, no capabilities, a new session (no terminal
 * injection), and the whole tree killed when bwrap dies.
 */
export function bwrapArgs(p: SandboxProfile, features: BwrapFeatures, statusFd?: number): string[] {
  const a: string[] = [
    '--new-session',
    '--die-with-parent',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
  ];
  if (features.userns) a.push('--unshare-user');
  if (features.userns && p.ids) a.push('--uid', String(p.ids.uid), '--gid', String(p.ids.gid));
  if (p.network !== 'on') a.push('--unshare-net');
  a.push('--cap-drop', 'ALL');
  a.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc');
  if (p.resolvConf && p.network !== 'on') a.push('--ro-bind', p.resolvConf.file, p.resolvConf.dest);
  for (const d of p.hiddenDirs ?? []) a.push(...(p.sharedTmp?.includes(d) ? ['--bind', p.tmpDir, d] : ['--tmpfs', d]));
  for (const d of p.keepVisible ?? []) a.push('--ro-bind', d, d);
  const insideWritable = (m: MaskedPath) => [...p.writable, p.tmpDir].some((w) => within(w, m.path));
  // Masks outside the writable folders first: a writable bind below a masked folder stays reachable.
  for (const m of p.masked.filter((m) => !insideWritable(m))) a.push(...mask(m));
  for (const w of p.writable) a.push('--bind', w, w);
  // Under a hidden folder the task temp folder is reachable only where it is bound (/tmp), not at its own path.
  if (!(p.hiddenDirs ?? []).some((d) => within(d, p.tmpDir))) a.push('--bind', p.tmpDir, p.tmpDir);
  for (const m of p.masked.filter(insideWritable)) a.push(...mask(m));
  for (const d of p.privateDirs ?? []) a.push('--tmpfs', d);
  for (const d of p.roBinds ?? []) a.push('--ro-bind', d, d);
  for (const d of p.protectedPaths ?? []) a.push('--ro-bind', d, d);
  a.push('--clearenv');
  for (const [k, v] of Object.entries(p.env)) a.push('--setenv', k, v);
  a.push('--chdir', p.cwd);
  if (statusFd !== undefined) a.push('--json-status-fd', String(statusFd));
  a.push('--');
  return a;
}

function mask(m: MaskedPath): string[] {
  // /dev/null on bubblewrap's nodev mount cannot be opened: reads and writes fail with EACCES.
  return m.dir ? ['--tmpfs', m.path, '--remount-ro', m.path] : ['--ro-bind', '/dev/null', m.path];
}

export function within(folder: string, p: string): boolean {
  const f = folder.endsWith('/') ? folder : folder + '/';
  return p === folder || p.startsWith(f);
}

/** SBPL string literal. */
function sbpl(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * A Seatbelt profile for `sandbox-exec -p`: everything allowed but writes outside the workspace and the task
 * temp folder, reads and writes of masked secrets, and (when off) the network. Later rules win in SBPL.
 */
export function seatbeltProfile(p: SandboxProfile): string {
  const lines = ['(version 1)', '(allow default)', '(deny file-write*)'];
  const writable = [...p.writable, p.tmpDir].map((w) => `(subpath ${sbpl(w)})`);
  lines.push(
    `(allow file-write* ${writable.join(' ')} (literal "/dev/null") (literal "/dev/tty") (regex #"^/dev/fd/[0-9]+$") (regex #"^/dev/ttys[0-9]+$"))`,
  );
  if (p.protectedPaths?.length)
    lines.push(`(deny file-write* ${p.protectedPaths.map((d) => `(subpath ${sbpl(d)})`).join(' ')})`);
  // No write layer under Seatbelt: the control plane is denied by pattern, so a path that does not exist yet
  // (.vscode/tasks.json, .git/hooks) cannot be created either. The repository's data under .git stays writable.
  const roots = p.writable.map(regexEscape).join('|');
  if (roots) {
    const dirs =
      '\\.vscode|\\.devcontainer|\\.forge|\\.claude|\\.agents|\\.cursor|\\.roo|\\.kilocode|\\.clinerules|\\.husky|\\.githooks|\\.github/(workflows|actions|agents|skills|prompts|instructions|hooks)';
    const files =
      'AGENTS\\.md|CLAUDE\\.md|GEMINI\\.md|\\.envrc|\\.mcp\\.json|\\.forgeignore|\\.gitmodules|\\.npmrc|\\.pre-commit-config\\.yaml|\\.github/copilot-instructions\\.md';
    const git = '\\.git(/(config|hooks|info|commondir|worktrees|modules|objects/info/alternates)(/.*)?)?';
    // No case-insensitive flag in SBPL's regex: each letter is a class ([gG]), as the default macOS disk ignores case.
    const anyCase = (re: string) => re.replace(/[a-zA-Z]/g, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`);
    lines.push(
      `(deny file-write* (regex #"^(${roots})/(.*/)?(${anyCase(git)}|(${anyCase(dirs)})(/.*)?|(${anyCase(files)}))$"))`,
    );
  }
  if (p.masked.length > 0) {
    const masked = p.masked.map((m) => (m.dir ? `(subpath ${sbpl(m.path)})` : `(literal ${sbpl(m.path)})`));
    lines.push(`(deny file-read* file-write* ${masked.join(' ')})`);
  }
  // No allow-list proxy under Seatbelt yet: 'allowlist' means off there.
  if (p.network !== 'on') lines.push('(deny network*)');
  return lines.join('\n');
}

/** A literal for an SBPL regex (POSIX extended). */
function regexEscape(s: string): string {
  return s.replace(/[\\^$.|?*+()[\]{}"]/g, (c) => `\\${c}`);
}

/** POSIX shell quoting of one word. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
