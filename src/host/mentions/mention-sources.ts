// Where the @ mentions' content comes from in VS Code: the editor's text of a selection (unsaved changes too), the
// Problems of a file or the workspace, the commands Forge ran in this task (its own terminal's output, kept in the
// task's history), and `git diff` of the working tree run the way review mode runs it (contained, no hooks, no
// pager, no external diff). Paths are still checked by core's resolveMentions before anything is read.
import * as vscode from 'vscode';
import type { CommandOutput, MentionSources, ProblemEntry } from '../../core/mentions/resolve';
import type { ChatMessage } from '../../core/model/types';
import type { TestRunRecord } from '../../core/modes/context';
import type { CommandRunner } from '../../core/workspace/types';

/** Commands shown for @terminal: the task's latest ones. */
const TERMINAL_COMMANDS = 3;

export interface SourceDeps {
  history(): readonly ChatMessage[];
  lastTestRun?(): TestRunRecord | undefined;
  git?: CommandRunner;
  trusted(): boolean;
}

export function vscodeMentionSources(deps: SourceDeps): Omit<MentionSources, 'reader'> {
  return {
    selection: async (path, startLine, endLine) => {
      const uri = toUri(path);
      if (!uri) return undefined;
      const doc = await Promise.resolve(vscode.workspace.openTextDocument(uri)).catch(() => undefined);
      if (!doc || startLine > doc.lineCount) return undefined;
      const last = Math.min(endLine, doc.lineCount) - 1;
      return doc.getText(new vscode.Range(startLine - 1, 0, last, doc.lineAt(last).text.length));
    },
    problems: async (path) => {
      const entries: [vscode.Uri, readonly vscode.Diagnostic[]][] = path
        ? ((u) => (u ? [[u, vscode.languages.getDiagnostics(u)] as [vscode.Uri, vscode.Diagnostic[]]] : []))(
            toUri(path),
          )
        : vscode.languages.getDiagnostics();
      const out: ProblemEntry[] = [];
      for (const [uri, diags] of entries) {
        if (uri.scheme !== 'file' || !vscode.workspace.getWorkspaceFolder(uri)) continue;
        const rel = vscode.workspace.asRelativePath(uri, (vscode.workspace.workspaceFolders?.length ?? 0) > 1);
        for (const d of diags) {
          if (d.severity === vscode.DiagnosticSeverity.Hint) continue;
          out.push({
            path: rel,
            line: d.range.start.line + 1,
            severity: vscode.DiagnosticSeverity[d.severity],
            message: d.message,
            ...(d.source ? { source: d.source } : {}),
          });
        }
      }
      return out;
    },
    terminal: async () => recentCommands(deps.history(), deps.lastTestRun?.()),
    git: deps.git ? (max) => gitDiff(deps.git!, deps.trusted(), max) : undefined,
  };
}

/** The task's latest execute_command calls and their results (what Forge's terminal showed). */
export function recentCommands(history: readonly ChatMessage[], testRun?: TestRunRecord): CommandOutput[] {
  const results = new Map<string, string>();
  for (const m of history)
    if (m.role === 'tool' && m.toolName === 'execute_command') results.set(m.toolCallId, m.content);
  const out: CommandOutput[] = [];
  for (const m of history) {
    if (m.role !== 'assistant') continue;
    for (const c of m.toolCalls ?? []) {
      const command = (c.args as { command?: unknown } | undefined)?.command;
      const output = results.get(c.id);
      if (c.name === 'execute_command' && typeof command === 'string' && output !== undefined)
        out.push({ command, output });
    }
  }
  if (out.length === 0 && testRun)
    return [{ command: testRun.command, output: testRun.output, exitCode: testRun.exitCode ?? null }];
  return out.slice(-TERMINAL_COMMANDS);
}

function toUri(path: string): vscode.Uri | undefined {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path)) return vscode.Uri.file(path);
  if (folders.length === 1) return vscode.Uri.joinPath(folders[0].uri, path);
  const [first, ...rest] = path.split('/');
  const folder = folders.find((f) => f.name === first);
  return folder ? vscode.Uri.joinPath(folder.uri, ...rest) : undefined;
}

async function gitDiff(
  runner: CommandRunner,
  trusted: boolean,
  max: number,
): Promise<{ diff: string } | { none: string }> {
  if (!trusted)
    return { none: 'Not gathered: the workspace is not trusted, so Forge runs no commands (not even git).' };
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (!cwd) return { none: 'No workspace folder is open.' };
  const git = async (args: string, maxOutputChars: number) => {
    const r = await runner.run({
      command: `git -c core.fsmonitor=false -c core.pager=cat -c diff.external= --no-pager ${args}`,
      cwd,
      timeoutMs: 10_000,
      signal: AbortSignal.timeout(15_000),
      maxOutputChars,
      env: { GIT_OPTIONAL_LOCKS: '0' },
    });
    return { ok: r.exitCode === 0, output: r.output };
  };
  const status = await git('status --porcelain=v1 --untracked-files=normal', 20_000);
  if (!status.ok) return { none: 'No git repository here (or git is not installed).' };
  const hasHead = (await git('rev-parse --verify --quiet HEAD', 200)).ok;
  const diff = await git(`${hasHead ? 'diff HEAD' : 'diff'} --no-color --no-ext-diff --unified=3`, max);
  const untracked = status.output
    .split('\n')
    .filter((l) => l.startsWith('?? '))
    .map((l) => l.slice(3));
  const extra = untracked.length
    ? `\n\n[New files not yet added to git (read them with read_file): ${untracked.slice(0, 50).join(', ')}${untracked.length > 50 ? `, and ${untracked.length - 50} more` : ''}]`
    : '';
  if (!diff.output.trim() && !extra) return { none: 'The working tree is clean: no uncommitted changes.' };
  return { diff: diff.output + extra };
}
