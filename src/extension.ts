// TEMPORARY stand-in (host helper) until the full wiring lands; replace freely.
import * as vscode from 'vscode';
export function activate(_context: vscode.ExtensionContext) {
  return {};
}
export function deactivate() {}
