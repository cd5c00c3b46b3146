// Status bar item for the running task: "$(sync~spin) Forge 3/25"; click focuses the panel.
import * as vscode from 'vscode';

interface TaskProgress {
  iteration: number;
  maxIterations: number;
  /** e.g. "12.4k tokens · $0.03" */
  detail?: string;
}

export class ForgeStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;

  constructor(focusCommand = 'forge.openPanel') {
    this.item = vscode.window.createStatusBarItem('forge.status', vscode.StatusBarAlignment.Left, 50);
    this.item.name = 'Forge';
    this.item.command = focusCommand;
    this.idle();
  }

  /** Shows the running task's progress. */
  running(p: TaskProgress): void {
    this.item.text = `$(sync~spin) Forge ${p.iteration}/${p.maxIterations}`;
    this.item.tooltip = `Forge is working: iteration ${p.iteration} of ${p.maxIterations}${p.detail ? ` — ${p.detail}` : ''}. Click to open the panel.`;
    this.item.backgroundColor = undefined;
    this.item.show();
    void vscode.commands.executeCommand('setContext', 'forge.taskRunning', true);
  }

  /** Waiting for the user (approval, question). */
  waiting(message: string): void {
    this.item.text = `$(bell-dot) Forge`;
    this.item.tooltip = `${message} Click to open the panel.`;
    this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    this.item.show();
  }

  /** No task running: a quiet entry point to the panel. */
  idle(): void {
    this.item.text = '$(tools) Forge';
    this.item.tooltip = 'Open Forge';
    this.item.backgroundColor = undefined;
    this.item.show();
    void vscode.commands.executeCommand('setContext', 'forge.taskRunning', false);
  }

  get text(): string {
    return this.item.text;
  }

  dispose(): void {
    this.item.dispose();
  }
}
