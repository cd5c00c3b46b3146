// The vscode-free half of the panel: validates webview messages and dispatches them through the host's handler
// table, maps request ids to AbortControllers (Stop crosses the boundary as a request id), and keeps every
// connected webview in sync with the transcript (full snapshot on `ready`, coalesced patches after).
import {
  parseWebviewMessage,
  RUN_REQUESTS,
  type Action,
  type EcosystemView,
  type HostMessage,
  type MentionChip,
  type ModeChoiceView,
  type PatchOp,
  type ProviderStatus,
  type Snapshot,
  type TaskSummary,
  type WebviewMessage,
} from '../protocol/messages';
import { PatchCoalescer, type Scheduler } from './coalescer';
import { Transcript } from './transcript';
import { handle, type RunRequestType, type WebviewHandlers, type WebviewMessageOf } from './webview-handlers';
import { errorText } from '../core/error-text';

const RUNS: ReadonlySet<string> = new Set(RUN_REQUESTS);
const isRunRequest = (m: WebviewMessage): m is WebviewMessageOf<RunRequestType> => RUNS.has(m.type);

/** Matches vscode.LogOutputChannel's shape so one can be passed directly. */
export interface PanelLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface PanelBridgeOptions {
  flushIntervalMs?: number;
  scheduler?: Scheduler;
}

/** One webview (sidebar view or editor tab). `send` is webview.postMessage. */
interface PanelConnection {
  receive(raw: unknown): void;
  dispose(): void;
}

interface Conn {
  send: (msg: HostMessage) => unknown;
  ready: boolean;
}

export class PanelBridge {
  private readonly conns = new Set<Conn>();
  private readonly inflight = new Map<string, AbortController>();
  private readonly coalescer: PatchCoalescer;
  private transcript = new Transcript();
  private unsubscribe: (() => void) | undefined;
  private provider: ProviderStatus = { configured: false };
  private history: TaskSummary[] = [];
  private modes: ModeChoiceView[] | undefined;
  private mode: string | undefined;
  /** The slash commands the input completes; resent to a webview when it says ready. */
  private slashCommands: Extract<HostMessage, { type: 'slash_commands' }> | undefined;
  private seq = 0;
  private ecosystem?: EcosystemView;

  constructor(
    private readonly handlers: WebviewHandlers,
    private readonly logger: PanelLogger,
    opts: PanelBridgeOptions = {},
  ) {
    this.coalescer = new PatchCoalescer((ops) => this.sendPatch(ops), {
      intervalMs: opts.flushIntervalMs,
      scheduler: opts.scheduler,
    });
    this.attachTranscript(this.transcript);
  }

  /** Mirror this transcript in every webview (replaces the previous one and resends the snapshot). */
  attachTranscript(transcript: Transcript): void {
    this.unsubscribe?.();
    this.transcript = transcript;
    this.unsubscribe = transcript.subscribe((change) => {
      if (change.kind === 'ops') this.coalescer.push(change.ops);
      else this.resync();
    });
    this.resync();
  }

  getTranscript(): Transcript {
    return this.transcript;
  }

  connect(send: (msg: HostMessage) => unknown): PanelConnection {
    const conn: Conn = { send, ready: false };
    this.conns.add(conn);
    return {
      receive: (raw) => this.receive(conn, raw),
      dispose: () => this.conns.delete(conn),
    };
  }

  /** Sends to every webview that has said `ready` (others get everything in their snapshot). */
  post(msg: HostMessage): void {
    if (msg.type === 'provider_status') this.provider = msg.provider;
    if (msg.type === 'history') this.history = msg.tasks;
    if (msg.type === 'mode') this.mode = msg.mode;
    if (msg.type === 'slash_commands') this.slashCommands = msg;
    if (msg.type === 'ecosystem') this.ecosystem = msg.ecosystem;
    for (const c of this.conns) if (c.ready) this.safeSend(c, msg);
  }

  setProviderStatus(provider: ProviderStatus): void {
    this.post({ type: 'provider_status', provider });
  }

  setHistory(tasks: TaskSummary[]): void {
    this.post({ type: 'history', tasks });
  }

  /** The mode switch's choices and the current task's mode. */
  setModes(modes: ModeChoiceView[], current?: string): void {
    const changed = this.modes !== undefined && JSON.stringify(modes) !== JSON.stringify(this.modes);
    this.modes = modes;
    // The team's agent files changed: open webviews get the new choices.
    if (changed) this.resync();
    if (current !== undefined) this.post({ type: 'mode', mode: current });
  }

  setMode(mode: string): void {
    this.post({ type: 'mode', mode });
  }

  showError(message: string, actions?: Action[]): void {
    this.post({ type: 'error', message: message.slice(0, 50_000), actions });
  }

  prefill(text: string, chips?: MentionChip[]): void {
    this.post({
      type: 'prefill',
      text: text.slice(0, 100_000),
      ...(chips?.length ? { chips: chips.slice(0, 20) } : {}),
    });
  }

  /** Aborts the signal handed out for a panel request; undefined aborts all of them. */
  abort(requestId?: string): void {
    for (const [id, ac] of this.inflight) {
      if (requestId === undefined || id === requestId) ac.abort(new Error('Stopped by the user'));
    }
  }

  snapshot(): Snapshot {
    const t = this.transcript.snapshot();
    return {
      seq: this.seq,
      taskId: t.taskId,
      items: t.items,
      status: t.status,
      progress: t.progress,
      provider: this.provider,
      history: this.history,
      ...(this.modes ? { modes: this.modes } : {}),
      ...(this.mode ? { mode: this.mode } : {}),
      ...(t.plan ? { plan: t.plan } : {}),
      ...(t.queue ? { queue: t.queue } : {}),
    };
  }

  dispose(): void {
    this.unsubscribe?.();
    this.coalescer.dispose();
    this.abort();
    this.conns.clear();
  }

  // ---------- internals ----------

  private resync(): void {
    // Pending ops are contained in the snapshot; bump seq so a stale patch in flight is seen as a gap.
    this.coalescer.discard();
    this.seq++;
    const snap = this.snapshot();
    for (const c of this.conns) if (c.ready) this.safeSend(c, { type: 'state', snapshot: snap });
  }

  private sendPatch(ops: PatchOp[]): void {
    this.seq++;
    const msg: HostMessage = { type: 'patch', seq: this.seq, ops };
    for (const c of this.conns) if (c.ready) this.safeSend(c, msg);
  }

  private safeSend(c: Conn, msg: HostMessage): void {
    try {
      const r = c.send(msg);
      if (r && typeof (r as Promise<unknown>).then === 'function') {
        (r as Promise<unknown>).then(undefined, (err: unknown) =>
          this.logger.warn(`panel: postMessage failed: ${String(err)}`),
        );
      }
    } catch (err) {
      this.logger.warn(`panel: postMessage failed: ${String(err)}`);
    }
  }

  private receive(conn: Conn, raw: unknown): void {
    const parsed = parseWebviewMessage(raw);
    if (!parsed.ok) {
      this.logger.warn(`panel: dropped webview message: ${parsed.error}`);
      return;
    }
    try {
      this.dispatch(conn, parsed.message);
    } catch (err) {
      this.logger.error(
        `panel: handling '${parsed.message.type}' failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
      );
    }
  }

  private dispatch(conn: Conn, m: WebviewMessage): void {
    if (m.type === 'ready') return this.greet(conn);
    // Stop reaches the runs this panel started at once, whatever the host's handler then does.
    if (m.type === 'stop') this.abort(m.requestId);
    if (isRunRequest(m)) {
      return this.track(m.requestId, (signal) => {
        this.transcript.beginRequest(m.requestId);
        return handle(this.handlers, m, signal);
      });
    }
    const result = handle(this.handlers, m);
    if (result && typeof result.then === 'function') {
      result.then(undefined, (err: unknown) =>
        this.logger.error(`panel: handling '${m.type}' failed: ${errorText(err)}`),
      );
    }
  }

  /** `ready`: the webview (re)loaded; it gets the whole state, then patches. */
  private greet(conn: Conn): void {
    this.coalescer.flush();
    conn.ready = true;
    this.safeSend(conn, { type: 'state', snapshot: this.snapshot() });
    if (this.slashCommands) this.safeSend(conn, this.slashCommands);
    if (this.ecosystem) this.safeSend(conn, { type: 'ecosystem', ecosystem: this.ecosystem });
  }

  private track(requestId: string, start: (signal: AbortSignal) => void | Promise<void>): void {
    if (this.inflight.has(requestId)) {
      this.logger.warn(`panel: duplicate request id ${requestId} ignored`);
      return;
    }
    const ac = new AbortController();
    this.inflight.set(requestId, ac);
    const done = () => this.inflight.delete(requestId);
    let result: void | Promise<void>;
    try {
      result = start(ac.signal);
    } catch (err) {
      done();
      throw err;
    }
    if (result && typeof result.then === 'function') {
      result.then(done, (err: unknown) => {
        done();
        const msg = errorText(err);
        this.logger.error(`panel: request ${requestId} failed: ${msg}`);
        // The host did not handle it: show it rather than leave the user with a silent panel.
        this.transcript.addError(`Forge could not run this request: ${msg}`, ['show_logs']);
      });
    } else {
      done();
    }
  }
}
