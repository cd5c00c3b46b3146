// "Fix with Forge" quick fix on diagnostics (errors and warnings): runs forge.fixProblem with the
// document, range and the diagnostics so the task prompt can quote them.
import * as vscode from 'vscode';

export interface FixProblemArgs {
  uri: vscode.Uri;
  range: vscode.Range;
  diagnostics: { message: string; severity: string; source?: string; code?: string; line: number }[];
}

/** The document, the span of the diagnostics, and each diagnostic as plain data for the task prompt. */
export function fixProblemArgs(
  uri: vscode.Uri,
  diags: readonly vscode.Diagnostic[],
  extra?: vscode.Range,
): FixProblemArgs {
  const span = diags.reduce((r, d) => r.union(d.range), diags[0].range);
  return {
    uri,
    range: extra ? span.union(extra) : span,
    diagnostics: diags.map((d) => ({
      message: d.message,
      severity: vscode.DiagnosticSeverity[d.severity],
      source: d.source,
      code: typeof d.code === 'object' ? String(d.code.value) : d.code === undefined ? undefined : String(d.code),
      line: d.range.start.line + 1,
    })),
  };
}

class FixWithForgeProvider implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  provideCodeActions(
    document: vscode.TextDocument,
    range: vscode.Range | vscode.Selection,
    context: vscode.CodeActionContext,
  ): vscode.CodeAction[] {
    const diags = context.diagnostics.filter(
      (d) => d.severity === vscode.DiagnosticSeverity.Error || d.severity === vscode.DiagnosticSeverity.Warning,
    );
    if (diags.length === 0) return [];
    const action = new vscode.CodeAction(
      diags.length === 1 ? 'Fix with Forge' : `Fix ${diags.length} problems with Forge`,
      vscode.CodeActionKind.QuickFix,
    );
    action.diagnostics = diags;
    const args = fixProblemArgs(document.uri, diags, range);
    action.command = { command: 'forge.fixProblem', title: 'Fix with Forge', arguments: [args] };
    return [action];
  }
}

export function registerFixWithForge(): vscode.Disposable {
  return vscode.languages.registerCodeActionsProvider({ scheme: 'file' }, new FixWithForgeProvider(), {
    providedCodeActionKinds: FixWithForgeProvider.kinds,
  });
}
