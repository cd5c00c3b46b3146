// Prompts for the editor actions (Explain / Fix / Refactor Selection, Fix This Problem, Add Selection to Chat):
// the selection is quoted with its file and line range so the model can re-read the file around it.
import * as vscode from 'vscode';
import type { FixProblemArgs } from '../code-actions';
import type { SelectionContext } from '../commands';

/** Characters of a selection quoted into a prompt (the model can read the rest of the file with read_file). */
const MAX_QUOTE = 20_000;

export function relativePath(uriOrPath: vscode.Uri | string): string {
  return vscode.workspace.asRelativePath(uriOrPath, false);
}

function fence(text: string, languageId: string): string {
  const body = text.length > MAX_QUOTE ? `${text.slice(0, MAX_QUOTE)}\n… (selection shortened; read the file for the rest)` : text;
  const ticks = body.includes('```') ? '````' : '```';
  return `${ticks}${languageId}\n${body}\n${ticks}`;
}

function where(sel: SelectionContext): string {
  const start = sel.range.start.line + 1;
  const end = sel.range.end.line + 1;
  return `\`${relativePath(sel.uri)}\` ${start === end ? `line ${start}` : `lines ${start}-${end}`}`;
}

/** "foo.ts:10-20": what the panel shows as the user's message for an editor action (the prompt goes to the model). */
export function selectionLabel(sel: SelectionContext): string {
  const start = sel.range.start.line + 1;
  const end = sel.range.end.line + 1;
  return `${relativePath(sel.uri)}:${start === end ? start : `${start}-${end}`}`;
}

export function quoteSelection(sel: SelectionContext): string {
  return `From ${where(sel)}:\n\n${fence(sel.text, sel.languageId)}`;
}

export function explainPrompt(sel: SelectionContext): string {
  return [
    `Explain this code from ${where(sel)}: what it does, how, and anything surprising or risky.`,
    'Read surrounding code if you need context. Do not change any file.',
    '',
    fence(sel.text, sel.languageId),
  ].join('\n');
}

export function fixPrompt(sel: SelectionContext): string {
  return [
    `Find and fix the bugs in this code from ${where(sel)}.`,
    'Read the file around it first, make the smallest correct change, and run the relevant tests if there are any.',
    '',
    fence(sel.text, sel.languageId),
  ].join('\n');
}

export function refactorPrompt(sel: SelectionContext, instruction: string): string {
  return [
    `Refactor this code from ${where(sel)}: ${instruction}`,
    'Keep the behaviour the same, update callers if a signature changes, and run the relevant tests if there are any.',
    '',
    fence(sel.text, sel.languageId),
  ].join('\n');
}

export async function fixProblemPrompt(args: FixProblemArgs): Promise<string> {
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
