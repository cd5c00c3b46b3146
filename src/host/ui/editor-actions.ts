// The editor actions (Explain / Fix / Refactor Selection, Fix This Problem, Add Selection to Chat): the selection
// (or the problem's lines) becomes a chip, "greet.js:3-14", and the user sees it with a short instruction line; the
// host attaches the code as labelled context (core/mentions), and the model gets the fuller instruction.
import * as vscode from 'vscode';
import type { Mention } from '../../core/mentions/mention';
import type { RunReport } from '../../core/loop/events';
import { selectionMention } from '../mentions/mention-service';
import { fixProblemArgs, type FixProblemArgs } from './code-actions';
import type { CommandHandlers } from './commands';

interface EditorActionDeps {
  /** Starts a run with `prompt` (`display` is what the panel shows as the user's message, with the chips). */
  sendPrompt(prompt: string, display: string, mentions: Mention[]): Promise<RunReport | undefined>;
  /** Puts text and chips in the panel's input box. */
  prefill(text: string, mentions: Mention[]): Promise<void> | undefined;
}

const EXPLAIN = [
  'Explain the attached code: what it does, how, and anything surprising or risky.',
  'Read surrounding code if you need context. Do not change any file.',
].join('\n');
const FIX = [
  'Find and fix the bugs in the attached code.',
  'Read the file around it first, make the smallest correct change, and run the relevant tests if there are any.',
].join('\n');
const REFACTOR_RULES =
  'Keep the behaviour the same, update callers if a signature changes, and run the relevant tests if there are any.';

export const editorCommands = (deps: EditorActionDeps) =>
  ({
    'forge.explainSelection': withSelection((sel) => deps.sendPrompt(EXPLAIN, 'Explain this code.', [sel])),
    'forge.fixSelection': withSelection((sel) => deps.sendPrompt(FIX, 'Fix the bugs in this code.', [sel])),
    'forge.refactorSelection': async () => {
      const sel = currentSelection();
      if (!sel) return undefined;
      const instruction = await vscode.window.showInputBox({
        title: 'Forge: Refactor Selection',
        prompt: 'How should the selection be refactored? (empty = improve readability without changing behaviour)',
        ignoreFocusOut: true,
      });
      if (instruction === undefined) return undefined;
      const what = instruction.trim() || 'Improve readability without changing behaviour.';
      return deps.sendPrompt(`Refactor the attached code: ${what}\n${REFACTOR_RULES}`, `Refactor: ${what}`, [sel]);
    },
    'forge.addSelectionToChat': withSelection(async (sel) => {
      await deps.prefill('', [sel]);
    }),
    'forge.fixProblem': async (args?: unknown) => {
      const given = args as FixProblemArgs | undefined;
      const problem = given && given.uri && Array.isArray(given.diagnostics) ? given : problemsAtCursor();
      if (!problem) {
        void vscode.window.showInformationMessage('Forge: no problem at the cursor. Put the cursor on an error first.');
        return undefined;
      }
      const n = problem.diagnostics.length;
      return deps.sendPrompt(fixProblemPrompt(problem), n === 1 ? 'Fix this problem.' : `Fix these ${n} problems.`, [
        await problemLines(problem),
      ]);
    },
  }) satisfies Partial<CommandHandlers>;

function withSelection(fn: (sel: Mention) => unknown) {
  return () => {
    const sel = currentSelection();
    return sel ? fn(sel) : undefined;
  };
}

/** The active editor's selection (or the cursor line) as a mention, or undefined with a message when there is none. */
function currentSelection(editor = vscode.window.activeTextEditor): Mention | undefined {
  if (!editor) {
    void vscode.window.showInformationMessage('Forge: open a file and select some code first.');
    return undefined;
  }
  const sel = selectionMention(editor, true);
  if (!sel) void vscode.window.showInformationMessage('Forge: save the file first; only files can be attached.');
  return sel;
}

/** Problems at the cursor when "Fix This Problem" runs from the palette (not from a code action). */
function problemsAtCursor(editor = vscode.window.activeTextEditor): FixProblemArgs | undefined {
  if (!editor) return undefined;
  const pos = editor.selection.active;
  const all = vscode.languages.getDiagnostics(editor.document.uri);
  const here = all.filter((d) => d.range.contains(pos) || d.range.start.line === pos.line);
  const diags = here.length ? here : all.filter((d) => d.severity === vscode.DiagnosticSeverity.Error).slice(0, 5);
  if (diags.length === 0) return undefined;
  return fixProblemArgs(editor.document.uri, diags);
}

/** The lines around the problems (three either side) as a selection chip. */
async function problemLines(args: FixProblemArgs): Promise<Mention> {
  const folders = vscode.workspace.workspaceFolders?.length ?? 0;
  const path = vscode.workspace.getWorkspaceFolder(args.uri)
    ? vscode.workspace.asRelativePath(args.uri, folders > 1)
    : args.uri.fsPath;
  let lineCount = args.range.end.line + 4;
  try {
    lineCount = (await vscode.workspace.openTextDocument(args.uri)).lineCount;
  } catch {
    /* the range as it is */
  }
  const startLine = Math.max(1, args.range.start.line + 1 - 3);
  const endLine = Math.max(startLine, Math.min(lineCount, args.range.end.line + 1 + 3));
  return { kind: 'selection', path, startLine, endLine };
}

function fixProblemPrompt(args: FixProblemArgs): string {
  const file = vscode.workspace.asRelativePath(args.uri, false);
  const problems = args.diagnostics.map((d) => {
    const tag = [d.source, d.code].filter(Boolean).join(' ');
    return `- line ${d.line} (${d.severity}${tag ? `, ${tag}` : ''}): ${d.message}`;
  });
  return `Fix ${args.diagnostics.length === 1 ? 'this problem' : 'these problems'} in \`${file}\` (the attached lines are around it):\n${problems.join('\n')}\n\nMake the smallest correct change.`;
}
