// The vscode half of the panel: the sidebar WebviewView (forge.chatView) and the same UI in an editor tab.
// All logic lives in PanelBridge; this file only creates webviews, sets their HTML/CSP and wires messages.
import * as vscode from 'vscode';
import type { Action, HostMessage, ProviderStatus, TaskSummary } from '../protocol/messages';
import { PanelBridge, type PanelBridgeOptions, type PanelController, type PanelLogger } from './bridge';
import { buildWebviewHtml, makeNonce } from './html';
import type { Transcript } from './transcript';

export const CHAT_VIEW_ID = 'forge.chatView';
export const EDITOR_PANEL_TYPE = 'forge.chatEditor';
export const OPEN_IN_EDITOR_COMMAND = 'forge.openPanelInEditor';

export class ForgePanelProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewId = CHAT_VIEW_ID;
  readonly bridge: PanelBridge;
  private editorPanel: vscode.WebviewPanel | undefined;
  private view: vscode.WebviewView | undefined;
  private pendingPrefill: string | undefined;
  /** Webviews that said `ready` since they were last (re)loaded; hiding a view unloads its content. */
  private readonly readyWebviews = new Set<vscode.Webview>();
  private readonly observers = new Set<(direction: 'in' | 'out', msg: unknown) => void>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    controller: PanelController,
    logger: PanelLogger,
    options: PanelBridgeOptions = {},
  ) {
    this.bridge = new PanelBridge(controller, logger, options);
  }

  // ---- what the host wiring calls ----

  attachTranscript(transcript: Transcript): void {
    this.bridge.attachTranscript(transcript);
  }

  post(msg: HostMessage): void {
    this.bridge.post(msg);
  }

  setProviderStatus(status: ProviderStatus): void {
    this.bridge.setProviderStatus(status);
  }

  setHistory(tasks: TaskSummary[]): void {
    this.bridge.setHistory(tasks);
  }

  showError(message: string, actions?: Action[]): void {
    this.bridge.showError(message, actions);
  }

  /** Puts text in the input box (Add Selection to Chat) and reveals the panel. */
  async prefill(text: string): Promise<void> {
    const target = this.editorPanel ?? this.view;
    const loaded = !!target?.visible && this.readyWebviews.has(target.webview);
    await this.reveal();
    // A hidden webview is (re)loaded by reveal(): deliver the text once it says `ready`, or it would be lost.
    if (loaded) this.bridge.prefill(text);
    else this.pendingPrefill = text;
  }

  /** Shows the sidebar view (or the editor tab if that is open). */
  async reveal(): Promise<void> {
    if (this.editorPanel) {
      this.editorPanel.reveal();
      return;
    }
    if (this.view) {
      this.view.show(true);
      return;
    }
    await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
  }

  /** Sees every message to ('out') and from ('in') the webviews: diagnostics and integration tests. */
  observe(observer: (direction: 'in' | 'out', msg: unknown) => void): vscode.Disposable {
    this.observers.add(observer);
    return new vscode.Disposable(() => this.observers.delete(observer));
  }

  private notify(direction: 'in' | 'out', msg: unknown): void {
    for (const o of this.observers) {
      try {
        o(direction, msg);
      } catch {
        /* an observer must not break the panel */
      }
    }
  }

  // ---- webview plumbing ----

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const subs = this.wire(view.webview);
    subs.push(view.onDidChangeVisibility(() => {
      if (!view.visible) this.readyWebviews.delete(view.webview);
    }));
    subs.push(view.onDidDispose(() => {
      this.readyWebviews.delete(view.webview);
      if (this.view === view) this.view = undefined;
      vscode.Disposable.from(...subs).dispose();
    }));
  }

  /** Opens (or reveals) the chat in an editor tab; it mirrors the same transcript as the sidebar. */
  openInEditor(column: vscode.ViewColumn = vscode.ViewColumn.Beside): vscode.WebviewPanel {
    if (this.editorPanel) {
      this.editorPanel.reveal(column);
      return this.editorPanel;
    }
    const panel = vscode.window.createWebviewPanel(EDITOR_PANEL_TYPE, 'Forge', column, {
      ...this.webviewOptions(),
      retainContextWhenHidden: false,
    });
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'forge.svg');
    this.editorPanel = panel;
    const subs = this.wire(panel.webview);
    subs.push(panel.onDidChangeViewState(() => {
      if (!panel.visible) this.readyWebviews.delete(panel.webview);
    }));
    subs.push(panel.onDidDispose(() => {
      this.readyWebviews.delete(panel.webview);
      this.editorPanel = undefined;
      vscode.Disposable.from(...subs).dispose();
    }));
    return panel;
  }

  dispose(): void {
    this.editorPanel?.dispose();
    this.bridge.dispose();
  }

  private webviewOptions(): vscode.WebviewOptions {
    return {
      enableScripts: true,
      enableCommandUris: false,
      localResourceRoots: [
        vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview'),
        vscode.Uri.joinPath(this.extensionUri, 'media'),
      ],
    };
  }

  /** Sets options + HTML and connects the webview to the bridge. Returns the disposables to drop with it. */
  private wire(webview: vscode.Webview): vscode.Disposable[] {
    webview.options = this.webviewOptions();
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview');
    webview.html = buildWebviewHtml({
      cspSource: webview.cspSource,
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'main.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'main.css')).toString(),
      nonce: makeNonce(),
    });
    const conn = this.bridge.connect((msg) => {
      this.notify('out', msg);
      return webview.postMessage(msg);
    });
    const sub = webview.onDidReceiveMessage((raw: unknown) => {
      this.notify('in', raw);
      conn.receive(raw);
      if ((raw as { type?: unknown } | null)?.type !== 'ready') return;
      this.readyWebviews.add(webview);
      if (this.pendingPrefill !== undefined) {
        this.bridge.prefill(this.pendingPrefill);
        this.pendingPrefill = undefined;
      }
    });
    return [sub, { dispose: () => conn.dispose() }];
  }
}

/**
 * Registers the sidebar view provider (state is restored from the host, so no retainContextWhenHidden)
 * and, unless told not to, the `forge.openPanelInEditor` command.
 */
export function registerForgePanel(
  context: vscode.ExtensionContext,
  controller: PanelController,
  logger: PanelLogger,
  options: PanelBridgeOptions & { registerOpenInEditorCommand?: boolean } = {},
): ForgePanelProvider {
  const provider = new ForgePanelProvider(context.extensionUri, controller, logger, options);
  context.subscriptions.push(
    provider,
    vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, provider, { webviewOptions: { retainContextWhenHidden: false } }),
  );
  if (options.registerOpenInEditorCommand !== false) {
    context.subscriptions.push(vscode.commands.registerCommand(OPEN_IN_EDITOR_COMMAND, () => provider.openInEditor()));
  }
  return provider;
}
