// Per-hunk review in the diff editor: commands to accept, reject (with a reason) or reset one hunk of a proposal
// (the hunk at the cursor of the "(proposed)" side, or one named by the panel / a CodeLens), a CodeLens row on each
// hunk (shown where the editor shows CodeLens: the proposed file on its own, or diffs with diffEditor.codeLens),
// and a decoration on each hunk's first line saying its state, which every diff editor shows.
import * as vscode from 'vscode';
import { type Hunk, type HunkState } from '../../core/review/hunks';
import type { CommandHandlers } from '../ui/commands';
import { PROPOSED_SCHEME, type DiffApproval, type HunkReview } from './diff-approval';
import { HUNK_COMMANDS, hunkHoverMarkdown, hunkNote } from './hunk-note';

/** Where a hunk sits on the proposed side (0-based line): its first added line, or the line where lines went. */
function anchorLine(h: Hunk): number {
  return Math.max(0, h.newLines > 0 ? h.newStart - 1 : h.newStart - 2);
}

/** The hunk's hover: the note's words with command links that only the hunk commands may run. */
function stateHover(id: string, h: Hunk, total: number, review: HunkReview): vscode.MarkdownString {
  const md = new vscode.MarkdownString(hunkHoverMarkdown(id, h.index, total, review.decisions.get(h.index)), true);
  md.isTrusted = { enabledCommands: Object.values(HUNK_COMMANDS) };
  return md;
}

export function registerHunkReview(diff: DiffApproval): vscode.Disposable {
  const lensEmitter = new vscode.EventEmitter<void>();
  const muted = new vscode.ThemeColor('editorCodeLens.foreground');
  const pendingDeco = vscode.window.createTextEditorDecorationType({
    after: { color: muted, margin: '0 0 0 2em', fontStyle: 'italic' },
  });
  const acceptedDeco = vscode.window.createTextEditorDecorationType({
    after: { color: new vscode.ThemeColor('gitDecoration.addedResourceForeground'), margin: '0 0 0 2em' },
    overviewRulerColor: new vscode.ThemeColor('gitDecoration.addedResourceForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  const rejectedDeco = vscode.window.createTextEditorDecorationType({
    after: { color: new vscode.ThemeColor('gitDecoration.deletedResourceForeground'), margin: '0 0 0 2em' },
    textDecoration: 'line-through',
    opacity: '0.6',
    overviewRulerColor: new vscode.ThemeColor('gitDecoration.deletedResourceForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });

  const decorate = (editor: vscode.TextEditor) => {
    if (editor.document.uri.scheme !== PROPOSED_SCHEME) return;
    const id = diff.resolveTarget(editor.document.uri);
    const review = id === undefined ? undefined : diff.hunkReview(id);
    const sets: Record<HunkState, vscode.DecorationOptions[]> = { pending: [], accepted: [], rejected: [] };
    for (const h of review?.hunks ?? []) {
      const state = review!.decisions.get(h.index)?.state ?? 'pending';
      const line = Math.min(anchorLine(h), Math.max(0, editor.document.lineCount - 1));
      const end =
        state === 'rejected' && h.newLines > 0
          ? Math.min(editor.document.lineCount - 1, h.newStart - 2 + h.newLines)
          : line;
      const range = new vscode.Range(line, 0, end, editor.document.lineAt(end).text.length);
      sets[state].push({
        range,
        hoverMessage: stateHover(id!, h, review!.hunks.length, review!),
        renderOptions: {
          after: { contentText: hunkNote(h.index, review!.hunks.length, review!.decisions.get(h.index)) },
        },
      });
    }
    editor.setDecorations(pendingDeco, sets.pending);
    editor.setDecorations(acceptedDeco, sets.accepted);
    editor.setDecorations(rejectedDeco, sets.rejected);
  };
  const decorateAll = () => vscode.window.visibleTextEditors.forEach(decorate);

  const lenses: vscode.CodeLensProvider = {
    onDidChangeCodeLenses: lensEmitter.event,
    provideCodeLenses(doc) {
      const id = diff.resolveTarget(doc.uri);
      const review = id === undefined ? undefined : diff.hunkReview(id);
      if (!review) return [];
      return review.hunks.flatMap((h) => {
        const range = new vscode.Range(anchorLine(h), 0, anchorLine(h), 0);
        const state = review.decisions.get(h.index)?.state ?? 'pending';
        const mark = state === 'accepted' ? '$(check) ' : state === 'rejected' ? '$(close) ' : '';
        return [
          new vscode.CodeLens(range, { title: `${mark}Hunk ${h.index + 1}/${review.hunks.length}`, command: '' }),
          new vscode.CodeLens(range, { title: 'Accept', command: HUNK_COMMANDS.accept, arguments: [id, h.index] }),
          new vscode.CodeLens(range, { title: 'Reject…', command: HUNK_COMMANDS.reject, arguments: [id, h.index] }),
          ...(state === 'pending'
            ? []
            : [new vscode.CodeLens(range, { title: 'Reset', command: HUNK_COMMANDS.reset, arguments: [id, h.index] })]),
        ];
      });
    },
  };

  return vscode.Disposable.from(
    lensEmitter,
    pendingDeco,
    acceptedDeco,
    rejectedDeco,
    vscode.languages.registerCodeLensProvider({ scheme: PROPOSED_SCHEME }, lenses),
    diff.onDidChangeHunks(() => {
      lensEmitter.fire();
      decorateAll();
    }),
    diff.onDidChange(() => lensEmitter.fire()),
    vscode.window.onDidChangeVisibleTextEditors(decorateAll),
  );
}

/** Accept, reject (with a reason) or reset one hunk: named by the panel or a CodeLens, else the one at the cursor. */
export const hunkCommands = (diff: DiffApproval) =>
  ({
    [HUNK_COMMANDS.accept]: setHunkState(diff, 'accepted'),
    [HUNK_COMMANDS.reject]: setHunkState(diff, 'rejected'),
    [HUNK_COMMANDS.reset]: setHunkState(diff, 'pending'),
  }) satisfies Partial<CommandHandlers>;

/** The hunk a command means: explicit (panel, CodeLens) or the one at the cursor of the active proposed side. */
function targetOf(
  diff: DiffApproval,
  target: unknown,
  index: unknown,
): { target: string | vscode.Uri; index: number } | undefined {
  if ((typeof target === 'string' || target instanceof vscode.Uri) && typeof index === 'number') {
    return { target, index };
  }
  const active = vscode.window.activeTextEditor;
  const uri = target instanceof vscode.Uri ? target : active?.document.uri;
  if (!uri || uri.scheme !== PROPOSED_SCHEME) return undefined;
  // The context menu passes the editor's URI: its cursor (the active editor first, else the visible one) says which hunk.
  const editor = [active, ...vscode.window.visibleTextEditors].find(
    (e) => e?.document.uri.toString() === uri.toString(),
  );
  const line = editor ? editor.selection.active.line : 0;
  const at = diff.hunkAt(uri, line);
  return at ? { target: at.id, index: at.index } : undefined;
}

function setHunkState(diff: DiffApproval, state: HunkState) {
  return async (target?: unknown, index?: unknown, reason?: unknown): Promise<boolean> => {
    const t = targetOf(diff, target, index);
    if (!t) {
      void vscode.window.showInformationMessage(
        'Forge: put the cursor on a change in the "(proposed)" side of a Forge diff.',
      );
      return false;
    }
    let why = typeof reason === 'string' ? reason : undefined;
    if (state === 'rejected' && why === undefined) {
      why = await vscode.window.showInputBox({
        title: `Reject hunk ${t.index + 1}`,
        prompt: 'Why? Forge tells the model (optional; Enter to reject, Escape to cancel)',
      });
      if (why === undefined) return false;
    }
    return diff.setHunk(t.target, t.index, state, why);
  };
}
