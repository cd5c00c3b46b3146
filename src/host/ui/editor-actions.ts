// The editor actions (Explain / Fix / Refactor Selection, Fix This Problem, Add Selection to Chat): the editor's
// context they start from, and their prompts, where the selection is quoted with its file and line range so the
// model can re-read the file around it.
import * as vscode from 'vscode';
import type { RunReport } from '../../core/loop/events';
import { fixProblemArgs, type FixProblemArgs } from './code-actions';
import type { CommandHandlers } from './commands';

interface SelectionContext {
  uri: vscode.Uri;
  /** fsPath for file: URIs, else the URI string */
  path: string;
  languageId: string;
  /** The selection (or, when empty, the whole line at the cursor). */
  range: vscode.Range;
  text: string;
}

interface EditorActionDeps {
  /** Starts a run with `prompt` (`display` is what the panel shows as the user's message). */
  sendPrompt(prompt: string, display?: string): Promise<RunReport | undefined>;
  /** Puts text in the panel's input box. */
  prefill(text: string): Promise<void> | undefined;
}

export const editorCommands = (deps: EditorActionDeps) =>
  ({
    'forge.explainSelection': withSelection((sel) =>
      deps.sendPrompt(explainPrompt(sel), `Explain selection in ${selectionLabel(sel)}`),
    ),
    'forge.fixSelection': withSelection((sel) =>
      deps.sendPrompt(fixPrompt(sel), `Fix selection in ${selectionLabel(sel)}`),
    ),
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
      return deps.sendPrompt(refactorPrompt(sel, what), `Refactor ${selectionLabel(sel)}: ${what}`);
    },
    'forge.addSelectionToChat': withSelection(async (sel) => {
      await deps.prefill(`${quoteSelection(sel)}\n\n`);
    }),
    'forge.fixProblem': async (args?: unknown) => {
      const given = args as FixProblemArgs | undefined;
      const problem = given && given.uri && Array.isArray(given.diagnostics) ? given : problemsAtCursor();
      if (!problem) {
        void vscode.window.showInformationMessage('Forge: no problem at the cursor. Put the cursor on an error first.');
        return undefined;
      }
      return deps.sendPrompt(await fixProblemPrompt(problem));
    },
  }) satisfies Partial<CommandHandlers>;

function withSelection(fn: (sel: SelectionContext) => unknown) {
  return () => {
    const sel = currentSelection();
    return sel ? fn(sel) : undefined;
  };
}

/** The active editor's selection (or the cursor line), or undefined with a message when there is none. */
function currentSelection(editor = vscode.window.activeTextEditor): SelectionContext | undefined {
  if (!editor) {
    void vscode.window.showInformationMessage('Forge: open a file and select some code first.');
    return undefined;
  }
  const doc = editor.document;
  const range = editor.selection.isEmpty
    ? doc.lineAt(editor.selection.active.line).range
    : new vscode.Range(editor.selection.start, editor.selection.end);
  return {
    uri: doc.uri,
    path: doc.uri.scheme === 'file' ? doc.uri.fsPath : doc.uri.toString(),
    languageId: doc.languageId,
    range,
    text: doc.getText(range),
  };
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

/** Characters of a selection quoted into a prompt (the model can read the rest of the file with read_file). */
const MAX_QUOTE = 20_000;

function relativePath(uriOrPath: vscode.Uri | string): string {
  return vscode.workspace.asRelativePath(uriOrPath, false);
}

function fence(text: string, languageId: string): string {
  const body =
    text.length > MAX_QUOTE ? `${text.slice(0, MAX_QUOTE)}\n… (selection shortened; read the file for the rest)` : text;
  const ticks = body.includes('```') ? '````' : '```';
  return `${ticks}${languageId}\n${body}\n${ticks}`;
}

function where(sel: SelectionContext): string {
  const start = sel.range.start.line + 1;
  const end = sel.range.end.line + 1;
  return `\`${relativePath(sel.uri)}\` ${start === end ? `line ${start}` : `lines ${start}-${end}`}`;
}

/** "foo.ts:10-20": what the panel shows as the user's message for an editor action (the prompt goes to the model). */
function selectionLabel(sel: SelectionContext): string {
  const start = sel.range.start.line + 1;
  const end = sel.range.end.line + 1;
  return `${relativePath(sel.uri)}:${start === end ? start : `${start}-${end}`}`;
}

function quoteSelection(sel: SelectionContext): string {
  return `From ${where(sel)}:\n\n${fence(sel.text, sel.languageId)}`;
}

function explainPrompt(sel: SelectionContext): string {
  return [
    `Explain this code from ${where(sel)}: what it does, how, and anything surprising or risky.`,
    'Read surrounding code if you need context. Do not change any file.',
    '',
    fence(sel.text, sel.languageId),
  ].join('\n');
}

function fixPrompt(sel: SelectionContext): string {
  return [
    `Find and fix the bugs in this code from ${where(sel)}.`,
    'Read the file around it first, make the smallest correct change, and run the relevant tests if there are any.',
    '',
    fence(sel.text, sel.languageId),
  ].join('\n');
}

function refactorPrompt(sel: SelectionContext, instruction: string): string {
  return [
    `Refactor this code from ${where(sel)}: ${instruction}`,
    'Keep the behaviour the same, update callers if a signature changes, and run the relevant tests if there are any.',
    '',
    fence(sel.text, sel.languageId),
  ].join('\n');
}

async function fixProblemPrompt(args: FixProblemArgs): Promise<string> {
  const file = relativePath(args.uri);
  const problems = args.diagnostics.map((d) => {
    const tag = [d.source, d.code].filter(Boolean).join(' ');
    return `- line ${d.line} (${d.severity}${tag ? `, ${tag}` : ''}): ${d.message}`;
  });
  let code = '';
  try {
    const doc = await vscode.workspace.openTextDocument(args.uri);
    const first = Math.max(0, args.range.start.line - 3);
    const last = Math.min(doc.lineCount - 1, args.range.end.line + 3);
    const range = new vscode.Range(first, 0, last, doc.lineAt(last).text.length);
    code = `\n\nThe code (lines ${first + 1}-${last + 1}):\n\n${fence(doc.getText(range), doc.languageId)}`;
  } catch {
    /* the model can read the file itself */
  }
  return `Fix ${args.diagnostics.length === 1 ? 'this problem' : 'these problems'} in \`${file}\`:\n${problems.join('\n')}${code}\n\nMake the smallest correct change.`;
}
