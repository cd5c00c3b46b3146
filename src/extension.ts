// TEMPORARY stand-in (host helper) until the full wiring lands; replace freely.
// Wires the host adapters with a stub controller so the integration harness can prove them in a real VS Code.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ApprovalCenter } from './host/approval-center';
import { registerFixWithForge } from './host/code-actions';
import { registerCommands, type ForgeController } from './host/commands';
import { DiffApproval } from './host/diff-approval';
import { createLogger } from './host/logger';
import { ApiKeyStore } from './host/secrets';
import { readSettings } from './host/settings';
import { ForgeStatusBar } from './host/status-bar';

export function activate(context: vscode.ExtensionContext) {
  const log = createLogger(context);
  const diffApproval = new DiffApproval();
  const approvals = new ApprovalCenter({
    diff: diffApproval,
    autoApprove: () => readSettings().autoApprove,
    showDiff: () => readSettings().showDiffOnProposal,
  });
  const keys = new ApiKeyStore(context.secrets);
  const statusBar = new ForgeStatusBar();
  const notYet = (what: string) => () => void vscode.window.showInformationMessage(`Forge: ${what} is not wired yet.`);
  const controller: ForgeController = {
    newTask: notYet('New Task'),
    openPanel: () => vscode.commands.executeCommand('workbench.view.extension.forge'),
    openPanelInEditor: notYet('Open Panel in Editor'),
    stop: notYet('Stop'),
    continueTask: notYet('Continue'),
    explainSelection: notYet('Explain Selection'),
    fixSelection: notYet('Fix Selection'),
    refactorSelection: notYet('Refactor Selection'),
    addSelectionToChat: notYet('Add Selection to Chat'),
    fixProblem: notYet('Fix This Problem'),
    acceptEdit: (target) => diffApproval.accept(target),
    rejectEdit: (target, reason) => diffApproval.reject(target, reason),
    undoTaskChanges: notYet('Undo Task Changes'),
    setApiKey: () => keys.prompt(readSettings().provider),
    selectModel: () => vscode.commands.executeCommand('workbench.action.openSettings', 'forge.provider'),
    showTaskHistory: notYet('Task History'),
    showLogs: () => log.show(),
    showMemory: notYet('Memory'),
    forget: notYet('Forget'),
  };
  context.subscriptions.push(diffApproval, statusBar, registerCommands(controller, log), registerFixWithForge());
  log.info(`Forge activated (stub wiring) from ${path.basename(context.extensionPath)}`);
  return { diffApproval, approvals, statusBar, keys };
}

export function deactivate() {}
