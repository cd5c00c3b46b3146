// Registers the palette commands (DESIGN §6). Handlers gather editor context (selection, diagnostics) and
// delegate to a ForgeController that the extension wiring supplies; errors become a message, never a throw
// into VS Code's command service.
import * as vscode from 'vscode';
import { fixProblemArgs, type FixProblemArgs } from './code-actions';
import type { Logger } from './logger';

export interface SelectionContext {
  uri: vscode.Uri;
  /** fsPath for file: URIs, else the URI string */
  path: string;
  languageId: string;
  /** The selection (or, when empty, the whole line at the cursor). */
  range: vscode.Range;
  text: string;
}

/** What the commands call. Every method may return a promise; its value is returned by the command. */
export interface ForgeController {
  newTask(prompt?: string): unknown;
  openPanel(): unknown;
  openPanelInEditor(): unknown;
  stop(): unknown;
  continueTask(): unknown;
  explainSelection(sel: SelectionContext): unknown;
  fixSelection(sel: SelectionContext): unknown;
  refactorSelection(sel: SelectionContext, instruction: string): unknown;
  addSelectionToChat(sel: SelectionContext): unknown;
  fixProblem(args: FixProblemArgs): unknown;
  /** target: proposal/approval id, or the proposal's URI (editor title button), or undefined (active/oldest). */
  acceptEdit(target?: string | vscode.Uri): unknown;
  rejectEdit(target?: string | vscode.Uri, reason?: string): unknown;
  undoTaskChanges(taskId?: string): unknown;
  /** Every file the task changed, against its start, in the multi-file diff editor. */
  reviewTaskChanges(taskId?: string): unknown;
  setApiKey(): unknown;
  selectModel(): unknown;
  showTaskHistory(): unknown;
  showLogs(): unknown;
  showMemory(): unknown;
  forget(learningId?: string): unknown;
}

export const COMMAND_IDS = [
  'forge.newTask',
  'forge.openPanel',
  'forge.openPanelInEditor',
  'forge.stop',
  'forge.continue',
  'forge.explainSelection',
  'forge.fixSelection',
  'forge.fixProblem',
  'forge.refactorSelection',
  'forge.addSelectionToChat',
  'forge.acceptEdit',
  'forge.rejectEdit',
  'forge.undoTaskChanges',
  'forge.reviewTaskChanges',
  'forge.setApiKey',
  'forge.selectModel',
  'forge.showTaskHistory',
  'forge.showLogs',
  'forge.showMemory',
  'forge.forget',
] as const;
export type CommandId = (typeof COMMAND_IDS)[number];

/** The active editor's selection (or the cursor line), or undefined with a message when there is none. */
export function currentSelection(editor = vscode.window.activeTextEditor): SelectionContext | undefined {
  if (!editor) {
    void vscode.window.showInformationMessage('Forge: open a file and select some code first.');
    return undefined;
  }
  const doc = editor.document;
  const range = editor.selection.isEmpty ? doc.lineAt(editor.selection.active.line).range : new vscode.Range(editor.selection.start, editor.selection.end);
  return {
    uri: doc.uri,
    path: doc.uri.scheme === 'file' ? doc.uri.fsPath : doc.uri.toString(),
    languageId: doc.languageId,
    range,
    text: doc.getText(range),
  };
}

/** Problems at the cursor when "Fix This Problem" runs from the palette (not from a code action). */
export function problemsAtCursor(editor = vscode.window.activeTextEditor): FixProblemArgs | undefined {
  if (!editor) return undefined;
  const pos = editor.selection.active;
  const all = vscode.languages.getDiagnostics(editor.document.uri);
  const here = all.filter((d) => d.range.contains(pos) || d.range.start.line === pos.line);
  const diags = here.length ? here : all.filter((d) => d.severity === vscode.DiagnosticSeverity.Error).slice(0, 5);
  if (diags.length === 0) return undefined;
  return fixProblemArgs(editor.document.uri, diags);
}

export function registerCommands(controller: ForgeController, log?: Logger): vscode.Disposable {
  const withSelection = (fn: (sel: SelectionContext) => unknown) => () => {
    const sel = currentSelection();
    return sel ? fn(sel) : undefined;
  };
  const handlers: Record<CommandId, (...args: any[]) => unknown> = {
    'forge.newTask': (prompt?: unknown) => controller.newTask(typeof prompt === 'string' ? prompt : undefined),
    'forge.openPanel': () => controller.openPanel(),
    'forge.openPanelInEditor': () => controller.openPanelInEditor(),
    'forge.stop': () => controller.stop(),
    'forge.continue': () => controller.continueTask(),
    'forge.explainSelection': withSelection((s) => controller.explainSelection(s)),
    'forge.fixSelection': withSelection((s) => controller.fixSelection(s)),
    'forge.refactorSelection': async () => {
      const sel = currentSelection();
      if (!sel) return undefined;
      const instruction = await vscode.window.showInputBox({
        title: 'Forge: Refactor Selection',
        prompt: 'How should the selection be refactored? (empty = improve readability without changing behaviour)',
        ignoreFocusOut: true,
      });
      if (instruction === undefined) return undefined;
      return controller.refactorSelection(sel, instruction.trim() || 'Improve readability without changing behaviour.');
    },
    'forge.addSelectionToChat': withSelection((s) => controller.addSelectionToChat(s)),
    'forge.fixProblem': (args?: FixProblemArgs) => {
      const problem = args && args.uri && Array.isArray(args.diagnostics) ? args : problemsAtCursor();
      if (!problem) {
        void vscode.window.showInformationMessage('Forge: no problem at the cursor. Put the cursor on an error first.');
        return undefined;
      }
      return controller.fixProblem(problem);
    },
    // The editor title button passes the resource URI; the panel passes an id.
    'forge.acceptEdit': (target?: unknown) => controller.acceptEdit(asTarget(target)),
    'forge.rejectEdit': (target?: unknown, reason?: unknown) =>
      controller.rejectEdit(asTarget(target), typeof reason === 'string' ? reason : undefined),
    'forge.undoTaskChanges': (taskId?: unknown) => controller.undoTaskChanges(typeof taskId === 'string' ? taskId : undefined),
    'forge.reviewTaskChanges': (taskId?: unknown) => controller.reviewTaskChanges(typeof taskId === 'string' ? taskId : undefined),
    'forge.setApiKey': () => controller.setApiKey(),
    'forge.selectModel': () => controller.selectModel(),
    'forge.showTaskHistory': () => controller.showTaskHistory(),
    'forge.showLogs': () => controller.showLogs(),
    'forge.showMemory': () => controller.showMemory(),
    'forge.forget': (id?: unknown) => controller.forget(typeof id === 'string' ? id : undefined),
  };
  const subs = COMMAND_IDS.map((id) =>
    vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      try {
        return await handlers[id](...args);
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        log?.error(`${id} failed: ${message}`);
        void vscode.window.showErrorMessage(`Forge: ${message}`, 'Show Logs').then((pick) => {
          if (pick) void vscode.commands.executeCommand('forge.showLogs');
        });
        return undefined;
      }
    }),
  );
  return vscode.Disposable.from(...subs);
}

function asTarget(target: unknown): string | vscode.Uri | undefined {
  if (typeof target === 'string' || target instanceof vscode.Uri) return target;
  return undefined;
}
