// What counts as a secret, in one place: file tools refuse these names, command rules ask before touching
// them, and the OS sandbox masks these locations. No imports of our own: paths.ts and commands.ts both read it.

/** Shell, REPL and pager history files by name (kept wherever they are). */
const HISTORY_FILES = [
  '.bash_history', '.zsh_history', '.zhistory', '.histfile', '.sh_history', '.ash_history', 'fish_history',
  '.python_history', '.node_repl_history', '.ts_node_repl_history', '.irb_history', '.pry_history', '.Rhistory', '.scala_history',
  '.psql_history', '.mysql_history', '.mycli-history', '.sqlite_history', '.rediscli_history', '.dbshell', '.mongosh_repl_history',
  '.gdb_history', '.lesshst', '.viminfo',
] as const;

/** Files refused by default (gitignore syntax, matched against the path relative to its workspace folder). */
export const DEFAULT_SECRET_PATTERNS: readonly string[] = [
  '.env', '.env.*', '!.env.example', '!.env.sample', '!.env.template', '!.env.dist',
  '*.pem', '*.key', '*.p12', '*.pfx', '*.jks', '*.keystore', '*.kdbx',
  'id_rsa*', 'id_dsa*', 'id_ecdsa*', 'id_ed25519*', '!*.pub',
  '.netrc', '_netrc', '.pgpass', '.git-credentials', '.aws/credentials', '.ssh/', '.docker/config.json',
  'secrets.json', 'secrets.yaml', 'secrets.yml', '.secrets', 'credentials.json',
  // Shell and REPL histories: every token ever pasted on a command line or typed at a prompt (any folder: a home
  // folder opened as the workspace, a dotfiles repository, a container's home).
  ...HISTORY_FILES,
];

/**
 * Secret locations under the user's home folder ('/'-separated, relative to $HOME). A trailing '/' marks a
 * folder. The sandbox masks each one that exists; command rules ask before a command names one.
 */
export const HOME_SECRET_PATHS: readonly string[] = [
  '.ssh/', '.aws/', '.gnupg/', '.docker/', '.config/gh/', '.config/gcloud/', '.azure/', '.kube/', '.oci/',
  '.config/doctl/', '.config/hub', '.config/git/credentials', '.terraform.d/', '.vault-token', '.password-store/',
  '.npmrc', '.yarnrc', '.yarnrc.yml', '.pypirc', '.netrc', '.git-credentials', '.pgpass', '.my.cnf',
  '.gem/credentials', '.cargo/credentials', '.cargo/credentials.toml', '.config/composer/auth.json',
  '.m2/settings.xml', '.gradle/gradle.properties', '.nuget/NuGet/NuGet.Config', '.local/share/keyrings/',
  '.config/Code/User/globalStorage/', '.vscode-server/data/User/globalStorage/', '.local/share/code-server/User/globalStorage/',
  'Library/Keychains/', 'Library/Application Support/Code/User/globalStorage/',
  // Shell and REPL histories (a command line's tokens, a database password typed at a prompt), and the folders
  // that hold them per session or as a database.
  ...HISTORY_FILES.filter((f) => f !== 'fish_history'), '.history', '.local/share/fish/fish_history', '.config/fish/fish_history',
  '.bash_sessions/', '.zsh_sessions/', '.local/share/atuin/', '.histdb/', '.local/share/zsh/', '.local/state/zsh/',
  '.local/share/nvim/shada/', '.local/state/nvim/shada/', '.mongosh/', '.ipython/profile_default/history.sqlite',
  '.julia/logs/repl_history.jl', '.config/pgcli/history', '.local/share/mycli/', '.cache/deno/deno_history.txt',
];

/** /proc entries that expose another process's environment or memory (the extension host's API keys). */
export const PROC_SECRET = /^\/proc\/(self|thread-self|\d+)(\/task\/\d+)?\/(environ|mem|cmdline|auxv|maps|smaps|pagemap|fd(\/|$)|map_files(\/|$)|root(\/|$)|cwd(\/|$))/;
