// What the panel's links open: a file named in model text (only where the sandbox lets Forge read), and the
// full output of a tool whose card shows a shortened one.
import * as vscode from 'vscode';
import type { OutputStore } from '../../core/context/output-store';
import { WorkspaceSandbox } from '../../core/safety/paths';
import type { ForgePanelProvider } from '../../panel/provider';
import type { WebviewHandlers } from '../../panel/webview-handlers';
import type { Toolkit } from '../wiring/toolkit';

interface PanelLinksDeps {
  toolkit: Pick<Toolkit, 'fs' | 'sandbox'>;
  outputs: OutputStore;
}

export class PanelLinks {
  constructor(
    private readonly deps: () => PanelLinksDeps,
    private readonly panel: () => ForgePanelProvider | undefined,
  ) {}

  /** Links in the panel come from model text: they open only files the sandbox would let Forge read. */
  async openFile(file: string, line?: number): Promise<void> {
    const { fs, sandbox } = this.deps().toolkit;
    const resolved = await new WorkspaceSandbox(fs, sandbox).resolve(file, 'read');
    if (!resolved.ok) {
      this.panel()?.showError(`Forge will not open ${file}: ${resolved.reason}`);
      return;
    }
    const pos = new vscode.Position(Math.max(0, (line ?? 1) - 1), 0);
    await vscode.window
      .showTextDocument(vscode.Uri.file(resolved.abs), { selection: new vscode.Range(pos, pos), preview: true })
      .then(undefined, () => this.panel()?.showError(`Forge could not open ${file}.`));
  }

  async openToolOutput(ref: string): Promise<void> {
    const text = await this.deps().outputs.get(ref);
    if (text === undefined) {
      this.panel()?.showError(
        'That output is no longer available (full outputs are kept in memory for the session only).',
      );
      return;
    }
    const doc = await vscode.workspace.openTextDocument({ content: text, language: 'log' });
    await vscode.window.showTextDocument(doc, { preview: true });
  }
}

export const linkMessages = (links: PanelLinks) =>
  ({
    open_file: (m) => void links.openFile(m.path, m.line),
    open_tool_output: (m) => void links.openToolOutput(m.ref),
  }) satisfies Partial<WebviewHandlers>;
