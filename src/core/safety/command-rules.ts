// The shape of the user's command rules and of what the command checker is told about where commands run.
// Types only, so paths.ts (sandbox options) and commands.ts (the checker) can both take them without a circle.

export interface CommandRules {
  /** Prefix rules on command words; each rule word is a glob (`*`, `?`). E.g. "git status", "npm run *". */
  allow?: string[];
  /** Same syntax; a match denies. Built-in dangerous patterns are always denied as well. */
  deny?: string[];
  /** What an unparseable command gets. Default 'ask'. */
  onParseError?: 'ask' | 'deny';
}

export interface CommandCheckOptions {
  /**
   * Commands run inside an OS sandbox (writes confined to the workspace, secrets masked, network off, scrubbed
   * environment). Then allow-listed programs that run the workspace's own code (npm test) may run unasked;
   * without it only forms known to be read-only do, and everything else asks.
   */
  sandboxed?: boolean;
  /** Program + subcommand keys the user granted with "Always for this task" (e.g. "git commit", "make"). */
  grants?: ReadonlySet<string>;
  /** Absolute workspace folders, to judge redirections and file arguments. */
  roots?: readonly string[];
  /** The user's home folder, to recognise `~/...` and secret locations under it. */
  home?: string;
}
