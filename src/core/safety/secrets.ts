// What counts as a secret, in one place: file tools refuse these names, command rules ask before touching
// them, and the OS sandbox masks these locations. No imports of our own: paths.ts and commands.ts both read it.

/** Files refused by default (gitignore syntax, matched against the path relative to its workspace folder). */
export const DEFAULT_SECRET_PATTERNS: readonly string[] = [
  '.env', '.env.*', '!.env.example', '!.env.sample', '!.env.template', '!.env.dist',
  '*.pem', '*.key', '*.p12', '*.pfx', '*.jks', '*.keystore', '*.kdbx',
  'id_rsa*', 'id_dsa*', 'id_ecdsa*', 'id_ed25519*', '!*.pub',
  '.netrc', '_netrc', '.pgpass', '.git-credentials', '.aws/credentials', '.ssh/', '.docker/config.json',
  'secrets.json', 'secrets.yaml', 'secrets.yml', '.secrets', 'credentials.json',
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
];

/** /proc entries that expose another process's environment or memory (the extension host's API keys). */
export const PROC_SECRET = /^\/proc\/(self|thread-self|\d+)(\/task\/\d+)?\/(environ|mem|cmdline|auxv|maps|smaps|pagemap|fd(\/|$)|map_files(\/|$)|root(\/|$)|cwd(\/|$))/;
