// Small ports the workspace tools are written against. The VS Code host, the Node host (headless runner,
// benchmarks, tests) and in-memory fakes all implement them. Paths are absolute, in the host's native form.

export type EntryType = 'file' | 'dir' | 'symlink' | 'other';

export interface FileStat {
  /** Type after following symlinks (a dangling link reports 'symlink'). */
  type: EntryType;
  size: number;
  mtimeMs: number;
}

export interface DirEntry {
  name: string;
  /** Type of the entry itself (a symlink reports 'symlink'). */
  type: EntryType;
}

export interface WorkspaceFs {
  /** Absolute paths of the workspace folders; the first is the default for relative paths. */
  roots(): string[];
  /** Follows symlinks. Resolves undefined when nothing exists at the path. */
  stat(path: string): Promise<FileStat | undefined>;
  readFile(path: string, signal?: AbortSignal): Promise<Uint8Array>;
  /** Creates parent directories as needed. */
  writeFile(path: string, data: Uint8Array): Promise<void>;
  readDir(path: string, signal?: AbortSignal): Promise<DirEntry[]>;
  /**
   * Optional: the first `maxBytes` bytes of a file in one open/read/close, without a separate stat.
   * `truncated` is true when the file holds more. Lets scanners (search) skip big files and binaries cheaply;
   * callers fall back to stat() + readFile() when a host does not provide it.
   */
  readFileHead?(
    path: string,
    maxBytes: number,
    signal?: AbortSignal,
  ): Promise<{ data: Uint8Array; truncated: boolean }>;
  /** Canonical path with every symlink resolved; rejects when the path does not exist. */
  realpath(path: string): Promise<string>;
  /**
   * Optional: the first `maxBytes` bytes of a regular file, judged by the opened handle itself. The file is opened
   * without blocking and without following a symlink in its last component, so a FIFO, device, socket or link put
   * there after the caller's stat cannot hang the host or lead elsewhere: it rejects (code 'ENOTREG' or 'ELOOP').
   * Readers of the control plane (rules, prompt files, configuration) use it; without it they stat, then read.
   */
  readRegularFile?(
    path: string,
    maxBytes: number,
    signal?: AbortSignal,
  ): Promise<{ data: Uint8Array; truncated: boolean; size: number }>;
}

export interface RunRequest {
  command: string;
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  /** Raw output chunks (stdout and stderr interleaved) as they arrive. */
  onOutput?: (chunk: string) => void;
  /** Characters of output kept in memory (head + tail); the rest is spooled for paging when the runner can. */
  maxOutputChars?: number;
  env?: Record<string, string>;
  /** The task the command belongs to: a contained command gets that task's own temp folder. */
  taskId?: string;
  /** The tool call that runs it (recorded before it starts so a restore can report a command a crash cut off; files it changed are reported against it). */
  toolCallId?: string;
  /**
   * The user pressed Ctrl+C in the terminal that shows the command: the process gets SIGINT, as in a terminal,
   * and the run goes on (unlike `signal`, which stops the tool).
   */
  userInterrupt?: AbortSignal;
  /** The process started (its id leads its process group): recorded so a restore can tell whether it outlived a crash. */
  onStarted?: (info: { pid: number }) => void;
}

/** How commands are contained on this host, for the approval card, the tool result and the rules. */
export interface Containment {
  /** 'none': commands run with the user's full rights (no sandbox on this platform, or it is turned off). */
  kind: 'bubblewrap' | 'seatbelt' | 'none';
  /** One line for people, e.g. "bubblewrap sandbox: writes only in the workspace and a task temp folder, network off". */
  summary: string;
  /** Network inside the sandbox. */
  network: 'off' | 'allowlist' | 'on';
  /** Why there is no sandbox (kind 'none'). */
  reason?: string;
  /** Commands write into a layer of their own, merged into the workspace without the control plane when they end. */
  writeLayer?: boolean;
  /**
   * The scan for the workspace's secrets to hide did not finish (too many files) or has not run yet: a secret may be
   * readable, so every command asks, auto-allowed ones included.
   */
  secretScan?: 'incomplete' | 'pending';
}

/** One change a command made to the workspace, as merged from its write layer. */
export interface CommandFileChange {
  /** Absolute path. */
  path: string;
  kind: 'created' | 'modified' | 'deleted';
  /** Texts for a checkpoint (null: absent); missing when not kept (binary, too large, a folder or a link). */
  before?: string | null;
  after?: string | null;
}

/** What a runner built without a sandbox reports (its commands run with the user's full rights). */
export const RUNNER_WITHOUT_SANDBOX: Containment = {
  kind: 'none',
  network: 'on',
  summary: 'no sandbox',
  reason: 'This runner has no sandbox.',
};

export interface RunResult {
  /** null when the process was killed (timeout, abort) or died by a signal. */
  exitCode: number | null;
  /** Output, capped: head + a marker line + tail when truncated. */
  output: string;
  timedOut: boolean;
  aborted?: boolean;
  /** Ended after the user's Ctrl+C in the terminal (RunRequest.userInterrupt). */
  interrupted?: boolean;
  truncated?: boolean;
  /** Total characters the command printed. */
  totalChars?: number;
  /** Reference for readOutput() when the full output was kept. */
  fullOutputRef?: string;
  /** Signal that ended the process, if any. */
  signal?: string;
  /** How the command ran: contained or not, and what the sandbox stopped (writes outside, network). */
  containment?: { contained: boolean; summary: string; blocked?: string[] };
  /**
   * What the command changed in the workspace, exactly (from its write layer): set when the runner has one. Changes
   * to the control plane are not among them: they were refused (containment.blocked says so).
   */
  fileChanges?: CommandFileChange[];
  /**
   * The command was not run because its sandbox could not be set up (never silently run unsandboxed).
   * The output says why.
   */
  sandboxFailed?: boolean;
  /**
   * How long the command ran, as the runner measured it (ms). The terminal's end line, the tool's result and the
   * panel's row all show this one figure when it is set.
   */
  elapsedMs?: number;
}

export interface CommandRunner {
  run(req: RunRequest): Promise<RunResult>;
  /** How commands are contained; runners without it run uncontained. */
  containment?(): Containment;
  /** Lines [startLine, endLine] (1-based, inclusive) of a spooled full output. */
  readOutput?(ref: string, startLine: number, endLine: number): Promise<{ lines: string[]; totalLines: number }>;
}

export interface SearchQuery {
  /** Regular expression (JavaScript / ripgrep common subset). */
  pattern: string;
  caseSensitive: boolean;
  /** Absolute directories or files to search. */
  paths: string[];
  /** Glob filter on file paths relative to the searched root (e.g. "*.ts", "src/** /*.js"). */
  glob?: string;
  /** Extra ignore files (e.g. .forgeignore) a backend should honour besides .gitignore. */
  ignoreFiles?: string[];
  contextLines: number;
  maxResults: number;
  signal: AbortSignal;
  /**
   * Asked once per file with a match, before any of that file's matches, context lines or counts are taken:
   * false drops the file (read_file would refuse it). The tool filters what comes back as well, so a backend
   * that ignores this still returns no refused text (but its total may then count refused files).
   */
  admit?: (absPath: string) => Promise<boolean>;
}

export interface SearchMatch {
  /** Absolute path. */
  path: string;
  /** 1-based line number. */
  line: number;
  text: string;
  before?: string[];
  after?: string[];
}

export interface SearchResult {
  matches: SearchMatch[];
  /** Matches seen in total, including those beyond maxResults (may be a lower bound). */
  totalMatches: number;
  /** True when the backend stopped counting early. */
  incomplete?: boolean;
}

/** Optional fast search (the VS Code host passes its bundled ripgrep). */
export interface SearchBackend {
  search(query: SearchQuery): Promise<SearchResult>;
}

export interface FileEdit {
  path: string;
  /** Full new content. */
  content: string;
  isNewFile: boolean;
  /** Content the proposal was computed from, so an applier can detect a concurrent change. */
  original?: string;
  /** The task whose run made the edit (journals record it there even if the user switched tasks meanwhile). */
  taskId?: string;
  /** The tool call that made it (the journal's intent names it; checkpoints group edits by it). */
  toolCallId?: string;
}

/** Writes an accepted edit. The VS Code host applies a WorkspaceEdit (undoable); Node writes atomically. */
export interface EditApplier {
  apply(edit: FileEdit, signal?: AbortSignal): Promise<void>;
}
