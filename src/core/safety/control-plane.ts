// The control plane: workspace files that something outside the sandbox later runs or trusts (git, VS Code,
// dev containers, direnv, the MCP client, other agents) or that Forge reads into its prompt and configuration.
// A contained command can never change them (its writes are merged back without them), and an edit by the agent
// to one of them is always asked, on a card that says so. One definition for every layer that needs it.

/** Folders whose whole content is control plane, at any depth (a nested repository's .git is git's too). */
const CONTROL_DIRS = new Set([
  '.git', // config (fsmonitor, hooksPath, pager), hooks, commondir, info, worktrees, modules
  '.vscode', // tasks (runOn: folderOpen), settings, launch configs, mcp.json
  '.devcontainer', // built and run by the Dev Containers extension
  '.forge', // Forge's own rules, commands, agents, skills, hooks
  '.claude', // other agents' settings, hooks, skills, agents, commands
  '.agents',
  '.cursor',
  '.roo',
  '.kilocode',
  '.clinerules',
  '.husky', // the usual core.hooksPath target
  '.githooks',
]);

/** Files that are control plane wherever they are. */
const CONTROL_FILES = new Set([
  'agents.md',
  'claude.md',
  'gemini.md',
  '.envrc', // direnv runs it on cd
  '.mcp.json',
  '.forgeignore', // widens what Forge's file tools may read
  '.cursorrules',
  '.windsurfrules',
  '.gitmodules',
  '.pre-commit-config.yaml', // run by the pre-commit hook on every commit
  '.npmrc', // npm outside the sandbox reads it (node-options, script-shell, registry tokens)
  '.yarnrc',
  '.yarnrc.yml',
]);

/** Folders of installed packages. */
const DEPENDENCY_DIRS = new Set(['node_modules', 'site-packages', 'dist-packages', 'bower_components']);

/** Folders under .github that other agents and CI run or trust. */
const GITHUB_CONTROL = new Set([
  'workflows',
  'actions',
  'agents',
  'skills',
  'prompts',
  'instructions',
  'hooks',
  'chatmodes',
  'copilot-instructions.md',
  'copilot-setup-steps.yml',
]);

/** Code points HFS+ ignores in names (git's protectHFS list): '.g\u200cit' is .git there. */
const HFS_IGNORED = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/** One path segment as a case-insensitive, HFS- and NTFS-aware name ('.GIT', '.git.', '.git ' and '.g\u200cit' are .git). */
function normalizeSegment(segment: string): string {
  return segment
    .replace(HFS_IGNORED, '')
    .replace(/[. ]+$/, (m) => (m === segment ? m : ''))
    .toLowerCase();
}

interface ControlPlaneMatch {
  /** The part of the path that makes it control plane ('.git', '.vscode', 'AGENTS.md', '.github/workflows'). */
  anchor: string;
  /** For the user and the model: what runs or trusts it. */
  why: string;
}

const WHY: Record<string, string> = {
  '.git': 'git runs its hooks and reads its configuration outside the sandbox',
  '.vscode': 'VS Code runs its tasks and reads its settings',
  '.devcontainer': 'the Dev Containers extension builds and runs it',
  '.envrc': 'direnv runs it',
  '.github': 'CI and other agents run or trust it',
  '.husky': 'git runs these hooks',
  '.githooks': 'git runs these hooks',
};

/**
 * Whether a workspace-relative path ('/' separators) is control plane. `extraDirs` are more workspace-relative
 * folders to treat the same way (core.hooksPath targets read from the repository's configuration).
 */
export function controlPlaneMatch(rel: string, extraDirs: readonly string[] = []): ControlPlaneMatch | undefined {
  const segments = rel.split(/[\\/]+/).filter((s) => s && s !== '.');
  const norm = segments.map(normalizeSegment);
  let inDependencies = false;
  for (let i = 0; i < norm.length; i++) {
    const s = norm[i];
    // Installed packages ship their own .github, .npmrc or AGENTS.md, which nothing runs or reads from there;
    // a repository inside them (.git) is still git's.
    if (DEPENDENCY_DIRS.has(s)) inDependencies = true;
    if (inDependencies && s !== '.git') continue;
    if (CONTROL_DIRS.has(s))
      return {
        anchor: segments.slice(0, i + 1).join('/'),
        why: WHY[s] ?? 'Forge or another agent reads it into its prompt or configuration',
      };
    if (s === '.github' && i + 1 < norm.length && GITHUB_CONTROL.has(norm[i + 1])) {
      return { anchor: segments.slice(0, i + 2).join('/'), why: WHY['.github'] };
    }
    if (i === norm.length - 1 && CONTROL_FILES.has(s))
      return {
        anchor: segments.join('/'),
        why:
          WHY[s] ??
          'Forge or another agent reads it into its prompt or configuration, or a tool outside the sandbox runs it',
      };
  }
  const lower = norm.join('/');
  for (const extra of extraDirs) {
    const e = extra
      .split(/[\\/]+/)
      .filter((s) => s && s !== '.')
      .map(normalizeSegment)
      .join('/');
    if (e && (lower === e || lower.startsWith(e + '/')))
      return { anchor: extra, why: 'git runs the hooks there (core.hooksPath)' };
  }
  return undefined;
}

export function isControlPlane(rel: string, extraDirs: readonly string[] = []): boolean {
  return controlPlaneMatch(rel, extraDirs) !== undefined;
}

/**
 * Inside a .git folder, the repository's data: what git commands write and never run or take configuration
 * from (objects, refs, HEAD, the index, reflogs). A contained `git commit` or `git checkout` may change these, so a
 * command's work is not half applied (files checked out, HEAD not moved). Hooks, config, info, commondir, worktrees,
 * modules, alternates and in-progress rebase scripts stay sealed.
 */
export function isGitData(rel: string): boolean {
  const segments = rel
    .split(/[\\/]+/)
    .filter((s) => s && s !== '.')
    .map(normalizeSegment);
  const at = segments.indexOf('.git');
  if (at < 0) return false;
  const inner = segments.slice(at + 1);
  if (inner.includes('.git')) return isGitData(inner.slice(inner.indexOf('.git')).join('/'));
  const [first, second] = inner;
  if (first === undefined) return true; // the folder itself (its entries are judged one by one)
  if (inner.length === 1 && GIT_DATA_FILES.has(first)) return true;
  if (first === 'refs' || first === 'logs') return true;
  if (first === 'objects') return second !== 'info' || inner.length === 2 || !/alternates$/.test(inner[2] ?? '');
  if (first === 'lfs') return true;
  return /\.lock$/.test(first) && inner.length === 1;
}

const GIT_DATA_FILES = new Set([
  'head',
  'orig_head',
  'fetch_head',
  'merge_head',
  'cherry_pick_head',
  'revert_head',
  'bisect_log',
  'auto_merge',
  'merge_msg',
  'merge_mode',
  'squash_msg',
  'commit_editmsg',
  'tag_editmsg',
  'index',
  'packed-refs',
  'shallow',
  'description',
  'gitk.cache',
]);

const GIT_TRANSIENT = new Set([
  'orig_head',
  'fetch_head',
  'merge_head',
  'cherry_pick_head',
  'revert_head',
  'bisect_log',
  'auto_merge',
  'merge_msg',
  'merge_mode',
  'squash_msg',
]);

/**
 * Of the repository's data, what a command may delete: lock files, the transient heads of a merge or pick, and refs
 * and reflogs (git branch -d). Never objects, the index, HEAD or the folder itself: `rm -rf .git` loses nothing.
 */
export function isDeletableGitData(rel: string): boolean {
  if (!isGitData(rel)) return false;
  const segments = rel
    .split(/[\\/]+/)
    .filter((s) => s && s !== '.')
    .map(normalizeSegment);
  const inner = segments.slice(segments.lastIndexOf('.git') + 1);
  const [first] = inner;
  if (first === undefined) return false;
  if (inner.length === 1) return GIT_TRANSIENT.has(first) || /\.lock$/.test(first);
  return first === 'refs' || first === 'logs';
}
