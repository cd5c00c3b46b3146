// The vscode half of the panel: the sidebar WebviewView (forge.chatView) and the same UI in an editor tab.
// All logic lives in PanelBridge; this file only creates webviews, sets their HTML/CSP and wires messages.
import * as vscode from 'vscode';
import type { Action, HostMessage, MentionChip, ProviderStatus, TaskSummary } from '../protocol/messages';
import { PanelBridge, type PanelBridgeOptions, type PanelLogger } from './bridge';
import { buildWebviewHtml, makeNonce, parseRestoredPanelState } from './html';
import type { Transcript } from './transcript';
import type { WebviewHandlers } from './webview-handlers';

const CHAT_VIEW_ID = 'forge.chatView';
const EDITOR_PANEL_TYPE = 'forge.chatEditor';

/** Sees each message to ('out') or from ('in') a webview; `webview` says which one (sidebar or an editor tab). */
type PanelObserver = (direction: 'in' | 'out', msg: unknown, webview: vscode.Webview) => void;

export class ForgePanelProvider
  implements vscode.WebviewViewProvider, vscode.WebviewPanelSerializer, vscode.Disposable
{
  static readonly viewId = CHAT_VIEW_ID;
  readonly bridge: PanelBridge;
  /** The tab reveal()/prefill() target: the most recently opened or restored one. */
  private editorPanel: vscode.WebviewPanel | undefined;
  /** Every live editor tab (normally one; a reload could restore more than one). */
  private readonly editorPanels = new Set<vscode.WebviewPanel>();
  private view: vscode.WebviewView | undefined;
  private pendingPrefill: { text: string; chips?: MentionChip[] } | undefined;
  /** Webviews that said `ready` since they were last (re)loaded; hiding a view unloads its content. */
  private readonly readyWebviews = new Set<vscode.Webview>();
  private readonly observers = new Set<PanelObserver>();
  private readonly visibility = new vscode.EventEmitter<void>();
  /** The sidebar view or an editor tab was shown or hidden. */
  readonly onDidChangeVisible = this.visibility.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    handlers: WebviewHandlers,
    private readonly logger: PanelLogger,
    options: PanelBridgeOptions = {},
  ) {
    this.bridge = new PanelBridge(handlers, logger, options);
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

  setMode(mode: string): void {
    this.bridge.setMode(mode);
  }

  showError(message: string, actions?: Action[]): void {
    this.bridge.showError(message, actions);
  }

  /** Puts text in the input box (Add Selection to Chat) and reveals the panel. */
  async prefill(text: string, chips?: MentionChip[]): Promise<void> {
    const target = this.editorPanel ?? this.view;
    const loaded = !!target?.visible && this.readyWebviews.has(target.webview);
    await this.reveal();
    // A hidden webview is (re)loaded by reveal(): deliver the text once it says `ready`, or it would be lost.
    if (loaded) this.bridge.prefill(text, chips);
    else this.pendingPrefill = { text, chips };
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

  /** Whether the chat is on screen: the sidebar view or an editor tab is visible. */
  get visible(): boolean {
    return !!this.view?.visible || [...this.editorPanels].some((p) => p.visible);
  }

  /** The number on Forge's view (0 clears it): things that wait for the user while they look elsewhere. */
  setBadge(value: number, tooltip: string): void {
    if (this.view) this.view.badge = value > 0 ? { value, tooltip } : undefined;
  }

  /** Sees every message to ('out') and from ('in') the webviews: diagnostics and integration tests. */
  observe(observer: PanelObserver): vscode.Disposable {
    this.observers.add(observer);
    return new vscode.Disposable(() => this.observers.delete(observer));
  }

  private notify(direction: 'in' | 'out', msg: unknown, webview: vscode.Webview): void {
    for (const o of this.observers) {
      try {
        o(direction, msg, webview);
      } catch {
        /* an observer must not break the panel */
      }
    }
  }

  // ---- webview plumbing ----

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const subs = this.wire(view.webview);
    subs.push(view.onDidChangeVisibility(() => this.visibility.fire()));
    // The sidebar view keeps its content while hidden (SIDEBAR_RETAINS_CONTEXT): hiding does not unload it, so it
    // stays ready and is shown again at once, without reloading its script and re-rendering the transcript.
    if (!SIDEBAR_RETAINS_CONTEXT) {
      subs.push(
        view.onDidChangeVisibility(() => {
          if (!view.visible) this.readyWebviews.delete(view.webview);
        }),
      );
    }
    subs.push(
      view.onDidDispose(() => {
        this.readyWebviews.delete(view.webview);
        if (this.view === view) this.view = undefined;
        vscode.Disposable.from(...subs).dispose();
      }),
    );
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
    return this.adoptEditorPanel(panel);
  }

  /**
   * WebviewPanelSerializer: VS Code hands back an editor tab after a window reload. It is set up exactly like a
   * new one (fresh HTML and nonce, bridge connection); on `ready` it gets the host's snapshot. `state` is what the
   * old webview saved: untrusted, used for a log line only (the webview reads its own scroll hints itself).
   */
  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    const hint = parseRestoredPanelState(state);
    this.adoptEditorPanel(panel);
    this.logger.info(
      `panel: restored the editor tab${hint.taskId ? ` (it showed task ${hint.taskId}; the host sends its current task)` : ''}`,
    );
  }

  dispose(): void {
    for (const panel of [...this.editorPanels]) panel.dispose();
    this.bridge.dispose();
    this.visibility.dispose();
  }

  /** Wires a new or restored editor tab to the bridge and forgets it when it closes. */
  private adoptEditorPanel(panel: vscode.WebviewPanel): vscode.WebviewPanel {
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'forge.svg');
    this.editorPanels.add(panel);
    this.editorPanel = panel;
    // panel.webview throws once the panel is disposed (also inside onDidDispose): keep our own reference.
    const webview = panel.webview;
    const subs = this.wire(webview);
    subs.push(
      panel.onDidChangeViewState(() => {
        if (!panel.visible) this.readyWebviews.delete(webview);
        this.visibility.fire();
      }),
    );
    subs.push(
      panel.onDidDispose(() => {
        this.readyWebviews.delete(webview);
        this.editorPanels.delete(panel);
        if (this.editorPanel === panel) this.editorPanel = [...this.editorPanels].at(-1);
        vscode.Disposable.from(...subs).dispose();
      }),
    );
    return panel;
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
      this.notify('out', msg, webview);
      return webview.postMessage(msg);
    });
    const sub = webview.onDidReceiveMessage((raw: unknown) => {
      this.notify('in', raw, webview);
      conn.receive(raw);
      if ((raw as { type?: unknown } | null)?.type !== 'ready') return;
      this.readyWebviews.add(webview);
      if (this.pendingPrefill !== undefined) {
        this.bridge.prefill(this.pendingPrefill.text, this.pendingPrefill.chips);
        this.pendingPrefill = undefined;
      }
    });
    return [sub, { dispose: () => conn.dispose() }];
  }
}

/**
 * The sidebar view keeps its webview alive while hidden: showing the side bar again then costs a repaint instead
 * of reloading a 600 KB script and re-rendering the transcript from the host's snapshot (0.3-1 s). The price is
 * the hidden webview's memory (measured by bench/latency.bench.mjs as latency.chromium_rss_panel_hidden). The
 * editor tab does not: it is opened on demand and restored by its serializer.
 */
const SIDEBAR_RETAINS_CONTEXT = true;

/**
 * Registers the sidebar view provider (kept alive while hidden: SIDEBAR_RETAINS_CONTEXT; state still comes from the
 * host) and the serializer that brings the editor tab back after a reload (activation event
 * onWebviewPanel:forge.chatEditor). The `forge.openPanelInEditor` command is in the host's command table.
 */
export function registerForgePanel(
  context: vscode.ExtensionContext,
  handlers: WebviewHandlers,
  logger: PanelLogger,
  options: PanelBridgeOptions = {},
): ForgePanelProvider {
  const provider = new ForgePanelProvider(context.extensionUri, handlers, logger, options);
  context.subscriptions.push(
    provider,
    vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, provider, {
      webviewOptions: { retainContextWhenHidden: SIDEBAR_RETAINS_CONTEXT },
    }),
    vscode.window.registerWebviewPanelSerializer(EDITOR_PANEL_TYPE, provider),
  );
  return provider;
}
