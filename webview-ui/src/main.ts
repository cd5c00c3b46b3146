// Webview entry: validates every host message, mirrors the host transcript, and turns clicks and keys into
// protocol messages. The host is the source of truth: on load we say `ready` and get a full snapshot.
import './zodConfig';
import { provideVSCodeDesignSystem, vsCodeButton, vsCodeDropdown, vsCodeOption } from '@vscode/webview-ui-toolkit';
import { actionToMessage, ActionSchema, parseHostMessage, type HostMessage } from '../../src/protocol/messages';
import { loadUiState, newRequestId, post, saveUiState } from './api';
import { Chrome } from './chrome';
import { installCheckpointActions } from './checkpointView';
import { PlanPanel } from './planView';
import { changesAction } from './changesBlock';
import { formatDuration, isEditable } from './dom';
import { hunkAction, installHunkReview } from './hunkReview';
import { EcosystemStrip } from './ecosystem';
import { copyText } from './markdown';
import { Store } from './store';
import { TranscriptView } from './transcriptView';
import './styles.css';
import { installNested } from './nested';
import { MessageQueue } from './messageQueue';
import { installEditMessage } from './editMessage';
import { SlashMenu } from './slashMenu';
import { ComposerChips } from './composerChips';
import { MentionMenu } from './mentionMenu';
import { ComposerAttachments } from './composerAttachments';
import './attachments.css';

provideVSCodeDesignSystem().register(vsCodeButton(), vsCodeDropdown(), vsCodeOption());

const mount = document.getElementById('root') ?? document.body;
const chrome = new Chrome(mount);
// MCP servers and rules in use, just above the composer.
const ecosystem = new EcosystemStrip(post);
chrome.root.insertBefore(ecosystem.el, chrome.root.querySelector('footer.composer'));
let uiState = loadUiState();
const view = new TranscriptView(chrome.scroller, (s) => {
  uiState = { ...s, taskId: store.taskId };
  saveUiState(uiState);
});

// Slash commands (slashMenu.ts) and nested sub-agent steps (nested.ts): self-contained, hooked in here.
const stopRun = () =>
  post(store.status.requestId ? { type: 'stop', requestId: store.status.requestId } : { type: 'stop' });
const slash = new SlashMenu(chrome.input, {
  isRunning: () => store.status.state !== 'idle',
  stop: stopRun,
  send: () => send(),
  sendNow: (text) => post({ type: 'send_message', requestId: newRequestId(), text: text.slice(0, 100_000) }),
});
installNested(chrome.scroller);
// @-mentions: the picker (mentionMenu.ts) adds chips above the input (composerChips.ts); they go with the message.
const chips = new ComposerChips(chrome.root.querySelector<HTMLElement>('footer.composer') ?? chrome.root, chrome.input);
const mentions = new MentionMenu(chrome.input, { post, pick: (c) => chips.add([c]) });

// Images: paste, drop or attach into the composer (composerAttachments.ts).
const attachments = new ComposerAttachments(chrome.input, chrome.root.querySelector('footer.composer') ?? chrome.root, {
  takesImages: () => store.provider.images,
});

const store: Store = new Store({
  reset: (items) => {
    // Restore the scroll position only for the same task (a hide/show), not after switching tasks.
    const restore = uiState && uiState.taskId === store.taskId ? uiState : undefined;
    view.reset(items, restore);
    chrome.renderWelcome(items.length);
  },
  append: (item) => {
    view.append(item);
    chrome.renderWelcome(store.items.length);
  },
  update: (item) => view.update(item),
  delta: (item, field) => view.delta(item, field),
  endStream: (item) => view.endStream(item),
  chrome: () => renderChrome(),
});

// The live plan (pinned above the conversation) and "Restore to here" (checkpointView) hook in here.
const plan = new PlanPanel(() => store.taskId, post);
plan.mountBefore(chrome.scroller);
installCheckpointActions(chrome.root, () => store.taskId, post);
// Typing while a run works: steer or queue (messageQueue.ts); edit and resend an earlier message (editMessage.ts).
const queueUi = new MessageQueue(post, () => send());
queueUi.mount(chrome.root.querySelector<HTMLElement>('footer.composer') ?? chrome.root);
installEditMessage(chrome.root, { post, item: (id) => store.get(id), idle: () => store.status.state === 'idle' });

function renderChrome(): void {
  chrome.renderProvider(store.provider);
  attachments.refresh();
  chrome.renderHistory(store.history, store.taskId);
  chrome.renderModes(store.modes, store.status.mode ?? store.mode, store.status.state !== 'idle');
  chrome.renderWelcome(store.items.length);
  chrome.renderStatus(store.status, store.progress, performance.now() - store.progressAt);
  queueUi.setRunning(store.status.state !== 'idle');
  syncTicker();
}

// Elapsed time and running tool durations tick locally between host updates.
let ticker: ReturnType<typeof setInterval> | undefined;
function syncTicker(): void {
  const running = store.status.state !== 'idle';
  if (running && !ticker) ticker = setInterval(tick, 1000);
  if (!running && ticker) {
    clearInterval(ticker);
    ticker = undefined;
  }
}
function tick(): void {
  chrome.renderStatus(store.status, store.progress, performance.now() - store.progressAt);
  for (const el of Array.from(chrome.scroller.querySelectorAll<HTMLElement>('.tool-duration[data-started]'))) {
    el.textContent = formatDuration(Math.max(0, Date.now() - Number(el.dataset.started)));
  }
}

// ---------- host -> webview ----------

let lastResync = -Infinity;
function resync(): void {
  // Rate-limited so a persistently bad message cannot turn into a ready/state loop.
  const now = performance.now();
  if (now - lastResync < 2000) return;
  lastResync = now;
  post({ type: 'ready' });
}

function handle(msg: HostMessage): void {
  switch (msg.type) {
    case 'state':
      store.applySnapshot(msg.snapshot);
      plan.render(msg.snapshot.plan);
      queueUi.render(msg.snapshot.queue);
      return;
    case 'patch':
      if (!store.applyPatch(msg.seq, msg.ops)) resync();
      else {
        plan.applyOps(msg.ops);
        queueUi.applyOps(msg.ops);
      }
      return;
    case 'provider_status':
      store.setProvider(msg.provider);
      return;
    case 'history':
      store.setHistory(msg.tasks);
      return;
    case 'error':
      chrome.showBanner(msg.message, msg.actions);
      return;
    case 'prefill':
      if (msg.text || !msg.chips?.length) chrome.input.value = msg.text;
      if (msg.chips) chips.add(msg.chips);
      chrome.autosize();
      chrome.input.focus();
      return;
    case 'mode':
      store.setMode(msg.mode);
      return;
    case 'show':
      if (msg.view === 'history') chrome.toggleHistory(true);
      else chrome.openSetup(store.provider);
      return;
    case 'provider_check':
      chrome.setup.onCheck(msg);
      if (msg.ok && msg.message === 'Saved.') chrome.closeSetup();
      return;
    case 'slash_commands':
      slash.setCommands(msg.commands);
      return;
    case 'command_notice':
      slash.showNotice(msg.text, msg.level);
      return;
    case 'ecosystem':
      ecosystem.render(msg.ecosystem);
      return;
    case 'mention_results':
      mentions.setResults(msg);
      return;
  }
}

window.addEventListener('message', (event: MessageEvent) => {
  const parsed = parseHostMessage(event.data);
  if (!parsed.ok) {
    console.warn(`[forge] ignored host message: ${parsed.error}`);
    return;
  }
  try {
    handle(parsed.message);
  } catch (err) {
    console.error('[forge] failed to apply host message', err);
    resync();
  }
});

// ---------- user -> host ----------

function send(other = false): void {
  const text = chrome.input.value.trim();
  if (text && slash.intercept(text)) {
    chrome.input.value = '';
    chrome.autosize();
    return;
  }
  if ((text || attachments.count) && store.status.state !== 'idle') {
    // A run works: the text steers it or waits in the queue (Alt+Enter: the other one), with its images and chips.
    if (attachments.count && !attachments.canSend()) return;
    const parts = { count: attachments.count, images: () => attachments.take(), mentions: () => chips.take() };
    void queueUi.submitWith(text.slice(0, 100_000), other, parts);
    chrome.input.value = '';
    chrome.autosize();
    return;
  }
  if (attachments.count && store.status.state === 'idle') {
    if (!attachments.canSend()) return;
    void attachments.send(text, newRequestId(), (m) => post(chips.withChips(m)));
  } else {
    if (!text || store.status.state !== 'idle') return;
    post(chips.withChips({ type: 'send_message', requestId: newRequestId(), text: text.slice(0, 100_000) }));
  }
  chrome.input.value = '';
  chrome.autosize();
  view.scrollToBottom();
}

function decide(requestId: string | undefined, kind: 'approve' | 'approve_task' | 'reject'): void {
  if (!requestId) return;
  if (kind === 'reject') {
    const reasonEl = Array.from(chrome.scroller.querySelectorAll<HTMLInputElement>('input.reject-reason')).find(
      (i) => i.dataset.requestId === requestId,
    );
    const reason = reasonEl?.value.trim().slice(0, 2000);
    post({ type: 'approval_decision', requestId, decision: reason ? { kind: 'reject', reason } : { kind: 'reject' } });
  } else {
    post({
      type: 'approval_decision',
      requestId,
      decision: { kind: 'approve', scope: kind === 'approve_task' ? 'task' : 'once' },
    });
  }
  // Disable the card's buttons until the host confirms (approval item update), so a double press does nothing.
  const card = Array.from(chrome.scroller.querySelectorAll<HTMLElement>('[data-request-id]'))
    .find((e) => e.dataset.requestId === requestId)
    ?.closest('.approval-card');
  card?.classList.add('deciding');
  card?.querySelectorAll('vscode-button').forEach((b) => b.setAttribute('disabled', ''));
}

function act(target: HTMLElement): void {
  const d = target.dataset;
  switch (d.act) {
    case 'send':
      return send();
    case 'stop':
      return post(store.status.requestId ? { type: 'stop', requestId: store.status.requestId } : { type: 'stop' });
    case 'approve':
    case 'approve_task':
    case 'reject':
      if (target.hasAttribute('disabled')) return;
      return decide(d.requestId, d.act);
    case 'open_diff':
      return d.requestId ? post({ type: 'open_diff', requestId: d.requestId }) : undefined;
    case 'hunk':
      return hunkAction(target, post);
    case 'changes':
      return changesAction(target, post);
    case 'open_file':
      return d.path
        ? post({ type: 'open_file', path: d.path.replace(/#L?\d+$/, ''), line: lineOf(d.path) })
        : undefined;
    case 'open_output':
      return d.ref ? post({ type: 'open_tool_output', ref: d.ref }) : undefined;
    case 'load_task':
      chrome.toggleHistory(false);
      return d.taskId ? post({ type: 'load_task', id: d.taskId }) : undefined;
    case 'toggle_history':
      return chrome.toggleHistory();
    case 'delete_task':
      return d.taskId ? post({ type: 'delete_task', id: d.taskId }) : undefined;
    case 'open_setup':
      return chrome.openSetup(store.provider);
    case 'close_setup':
      return chrome.closeSetup();
    case 'setup_check':
      return chrome.setup.check();
    case 'setup_save':
      return chrome.setup.save();
    case 'setup_use_local':
      return chrome.setup.useLocal(d.baseUrl ?? '', d.model || undefined);
    case 'example':
      chrome.input.value = d.text ?? '';
      chrome.autosize();
      chrome.input.focus();
      return;
    case 'dismiss_banner':
      return chrome.hideBanner();
    case 'copy': {
      const code = target.closest('.code-block')?.querySelector('code')?.textContent ?? '';
      void copyText(code).then((ok) => {
        target.textContent = ok ? 'Copied' : 'Copy failed';
        setTimeout(() => (target.textContent = 'Copy'), 1500);
      });
      return;
    }
    case 'action': {
      const a = ActionSchema.safeParse(d.action);
      if (!a.success) return;
      chrome.hideBanner();
      if (a.data === 'setup_model') return chrome.openSetup(store.provider);
      return post(actionToMessage(a.data, newRequestId));
    }
  }
}

function lineOf(path: string): number | undefined {
  const m = /#L?(\d+)$/.exec(path);
  const n = m ? Number(m[1]) : NaN;
  return n > 0 ? n : undefined;
}

chrome.root.addEventListener('click', (e) => {
  const t = e.target as HTMLElement;
  const summary = t.closest('summary');
  if (summary?.parentElement instanceof HTMLDetailsElement) summary.parentElement.setAttribute('data-user-toggled', '');
  const el = t.closest<HTMLElement>('[data-act]');
  if (el && chrome.root.contains(el)) {
    if (el.tagName === 'A') e.preventDefault();
    act(el);
  }
});

chrome.root.addEventListener('forge-set-mode', (e) => {
  const mode = (e as CustomEvent<string>).detail;
  if (typeof mode === 'string' && mode) post({ type: 'set_mode', mode });
});

installHunkReview(chrome.root, post);

chrome.root.addEventListener('forge-select-model', (e) => {
  const id = (e as CustomEvent<string>).detail;
  if (typeof id === 'string' && id) post({ type: 'select_model', modelId: id });
});

// Keyboard. Composer: Enter sends, Shift+Enter newline. Approvals (see webview-ui/README.md):
// Ctrl/Cmd+Enter approve once, Ctrl/Cmd+Shift+Enter approve for this task, Ctrl/Cmd+Backspace reject
// (outside a non-empty text field, so word-delete keeps working), Enter in the reason field rejects with it.
document.addEventListener('keydown', (e) => {
  const mod = e.ctrlKey || e.metaKey;
  const target = e.target as HTMLElement;
  const pending = store.pendingApproval();
  if (mod && e.key === 'Enter' && pending) {
    e.preventDefault();
    // No "always" for a control-plane edit: the shortcut approves it once, like its only Approve button.
    return decide(pending.requestId, e.shiftKey && !pending.sensitive ? 'approve_task' : 'approve');
  }
  if (mod && e.key === 'Backspace' && pending && !(isEditable(target) && target.value.length > 0)) {
    e.preventDefault();
    return decide(pending.requestId, 'reject');
  }
  if (e.key === 'Enter' && target instanceof HTMLInputElement && target.classList.contains('reject-reason')) {
    e.preventDefault();
    return decide(target.dataset.requestId, 'reject');
  }
  if (target === chrome.input && e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    return send(e.altKey);
  }
  if (e.key === 'Escape' && chrome.historyView.open) {
    chrome.toggleHistory(false);
    return chrome.input.focus();
  }
  if ((e.key === 'Enter' || e.key === ' ') && target.matches('a[data-act][tabindex], [role="button"][data-act]')) {
    e.preventDefault();
    act(target);
  }
});

post({ type: 'ready' });
