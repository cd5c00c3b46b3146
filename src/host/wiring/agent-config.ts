// Settings -> AgentConfig: the shared config (agent-config-base.ts) with VS Code's environment line and the live
// forge.autoApprove settings.
import * as os from 'node:os';
import * as vscode from 'vscode';
import type { AgentConfig } from '../../core/loop/config';
import { readSettings, type ForgeSettings } from '../settings';
import { extensionAgentConfig } from './agent-config-base';
import type { SwitchableModel } from './model-factory';

export function agentConfigFrom(s: ForgeSettings, model: SwitchableModel): Partial<AgentConfig> {
  return extensionAgentConfig(s, model, {
    environment: describeEnvironment,
    autoApprove: () => readSettings().autoApprove,
  });
}

/** Host facts for the prompt's dynamic environment layer. */
function describeEnvironment(): string {
  const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
  const editor = vscode.window.activeTextEditor;
  const lines = [
    `Workspace folders: ${folders.length ? folders.join(', ') : '(none)'}`,
    `OS: ${os.platform()} ${os.release()}; shell: ${vscode.env.shell || 'default'}`,
    `Workspace trusted: ${vscode.workspace.isTrusted ? 'yes' : 'no (no edits, no commands)'}`,
  ];
  if (editor?.document.uri.scheme === 'file') {
    const rel = vscode.workspace.asRelativePath(editor.document.uri, false);
    lines.push(`Active file: ${rel} (line ${editor.selection.active.line + 1})`);
  }
  return lines.join('\n');
}
