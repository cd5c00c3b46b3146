// The palette's pickers and confirmations (Select Model, Task History, Forget, Undo Task Changes), kept apart
// from the controller so it stays about routing.
import { countOf, formatCost } from '../../protocol/format';
import * as vscode from 'vscode';
import type { EditJournal, UndoResult } from '../../core/tasks/journal';
import type { TaskSummary } from '../../core/tasks/task-store';
import { checkEndpoint } from '../../providers/endpoint-discovery';
import type { ApiKeyStore } from '../api-key-store';
import { readSettings, type ProviderId } from '../settings';
import type { MemoryService } from '../wiring/memory-service';
import { PROVIDER_LABELS } from '../../node/surface/model';
import { ModelFactory, saveModelChoice } from '../wiring/model-factory';
import { plural } from '../../core/plural';

export async function pickModel(models: ModelFactory, keys: ApiKeyStore): Promise<boolean> {
  const s = readSettings();
  type Item = vscode.QuickPickItem & { run?: () => Promise<boolean> };
  const choices = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: 'Forge: listing models' },
    () => models.choices(s),
  );
  const current = `${s.provider}:${s.model}`;
  const items: Item[] = [];
  const lm = choices.filter((c) => c.provider === 'vscode-lm');
  items.push({ label: 'VS Code chat models', kind: vscode.QuickPickItemKind.Separator });
  if (lm.length === 0)
    items.push({
      label: '$(info) None available',
      description: 'sign in to a chat model extension (e.g. GitHub Copilot)',
    });
  for (const c of lm)
    items.push({
      label: c.label,
      description: c.id === current ? 'current' : undefined,
      run: () => save(c.provider, c.model),
    });
  for (const provider of ['openai', 'anthropic'] as const) {
    items.push({ label: PROVIDER_LABELS[provider], kind: vscode.QuickPickItemKind.Separator });
    for (const c of choices.filter((x) => x.provider === provider)) {
      items.push({
        label: c.model,
        description: c.id === current ? 'current' : undefined,
        run: () => saveWithKey(provider, c.model, keys),
      });
    }
    items.push({ label: `$(edit) Other ${PROVIDER_LABELS[provider]} model…`, run: () => askModelName(provider, keys) });
  }
  const local = choices.filter((c) => c.provider === 'openai-compatible' && c.model.includes('@http'));
  if (local.length) {
    items.push({ label: 'Found on this machine', kind: vscode.QuickPickItemKind.Separator });
    for (const c of local)
      items.push({ label: c.label, description: '$(server) no key needed', run: () => save(c.provider, c.model) });
  }
  items.push({ label: 'Local or other endpoints', kind: vscode.QuickPickItemKind.Separator });
  items.push({
    label: '$(server) OpenAI-compatible endpoint…',
    description: 'Ollama, LM Studio, vLLM, OpenRouter',
    run: () => askCompatible(keys),
  });
  const pick = await vscode.window.showQuickPick(items, {
    title: 'Forge: Select Model',
    placeHolder: `Current: ${PROVIDER_LABELS[s.provider]} ${s.model}`,
  });
  return pick?.run ? pick.run() : false;
}

async function save(provider: ProviderId, model: string): Promise<boolean> {
  await saveModelChoice(provider, model);
  return true;
}

async function saveWithKey(provider: 'openai' | 'anthropic', model: string, keys: ApiKeyStore): Promise<boolean> {
  await saveModelChoice(provider, model);
  if (!(await keys.get(provider))) await keys.prompt(provider);
  return true;
}

async function askModelName(provider: 'openai' | 'anthropic', keys: ApiKeyStore): Promise<boolean> {
  const model = await vscode.window.showInputBox({
    title: `Forge: ${PROVIDER_LABELS[provider]} model id`,
    ignoreFocusOut: true,
  });
  if (!model?.trim()) return false;
  return saveWithKey(provider, model.trim(), keys);
}

async function askCompatible(keys: ApiKeyStore): Promise<boolean> {
  const s = readSettings();
  const baseUrl = await vscode.window.showInputBox({
    title: 'Forge: endpoint base URL',
    value: s.baseUrl || 'http://localhost:11434/v1',
    prompt: 'The OpenAI-compatible API root (ends in /v1 for most servers).',
    ignoreFocusOut: true,
  });
  if (!baseUrl?.trim()) return false;
  // List the endpoint's models now, so a wrong URL or a server that is not running shows at once.
  const check = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Forge: connecting to ${baseUrl.trim()}` },
    () => checkEndpoint({ baseUrl: baseUrl.trim(), timeoutMs: 3000 }),
  );
  let model: string | undefined;
  if (!check.ok) {
    const go = await vscode.window.showWarningMessage(
      check.message ?? 'The endpoint did not answer.',
      'Use Anyway',
      'Cancel',
    );
    if (go !== 'Use Anyway') return false;
  } else if (check.models.length) {
    const other = '$(edit) Another model name…';
    const pick = await vscode.window.showQuickPick(
      [
        ...check.models.map((m) => ({
          label: m.id,
          description: m.contextWindow ? `${m.contextWindow} tokens` : undefined,
        })),
        { label: other },
      ],
      {
        title: `Forge: models at ${baseUrl.trim()}`,
        ignoreFocusOut: true,
      },
    );
    if (!pick) return false;
    if (pick.label !== other) model = pick.label;
  }
  model ??= await vscode.window.showInputBox({
    title: 'Forge: model name',
    value: s.provider === 'openai-compatible' ? s.model : '',
    ignoreFocusOut: true,
  });
  if (!model?.trim()) return false;
  await vscode.workspace.getConfiguration('forge').update('baseUrl', baseUrl.trim(), vscode.ConfigurationTarget.Global);
  await saveModelChoice('openai-compatible', model.trim());
  const key = await vscode.window.showInformationMessage('Does this endpoint need an API key?', 'Set API Key', 'No');
  if (key === 'Set API Key') await keys.prompt('openai-compatible');
  return true;
}

export async function pickTask(tasks: TaskSummary[]): Promise<string | undefined> {
  if (tasks.length === 0) {
    void vscode.window.showInformationMessage('Forge: no saved tasks in this workspace yet.');
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    tasks.map((t) => ({
      label: t.title || 'Untitled task',
      description: t.status,
      detail: `${new Date(t.updatedAt).toLocaleString()} · ${t.mode}${t.iterations !== undefined ? ` · ${t.iterations} iterations` : ''}${t.costUsd !== undefined ? ` · ${formatCost(t.costUsd)}` : ''}`,
      id: t.id,
    })),
    { title: 'Forge: Task History', placeHolder: 'Open a task', matchOnDetail: true },
  );
  return pick?.id;
}

export async function pickMemoryToForget(memory: MemoryService): Promise<string | undefined> {
  const all = await memory.list();
  if (all.length === 0) {
    void vscode.window.showInformationMessage('Forge has no stored learnings yet.');
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    all.map((m) => ({
      label: m.content.slice(0, 200),
      description: `${m.type} · ${m.scope}`,
      detail: m.context || m.tags.join(', '),
      id: m.id,
    })),
    { title: 'Forge: Forget a Learning', placeHolder: 'Which learning should Forge forget?', matchOnDescription: true },
  );
  return pick?.id;
}

/** Undoes a task's edits after asking; reports restored files and conflicts. */
export async function undoWithReport(
  journal: EditJournal,
  taskId: string,
  fs: Parameters<EditJournal['undoTask']>[1],
  confirm: boolean,
): Promise<UndoResult | undefined> {
  // Counted from the log, not from the contents: an edit whose journal contents are missing still counts, and
  // is named per file instead of the task looking as if it had no edits.
  const { live, missing } = await journal.editSummary(taskId);
  if (live.length === 0) {
    if (confirm) void vscode.window.showInformationMessage('Forge: this task has no edits left to undo.');
    return { restored: [], deleted: [], conflicts: [] };
  }
  const files = new Set(live.map((e) => e.path));
  const lost = missing.map(
    (m) =>
      `${vscode.workspace.asRelativePath(m.path, false)}: the journal's copy of ${plural(m.seqs.length, 'edit')} is missing, so it cannot be restored automatically`,
  );
  if (confirm) {
    const ok = await vscode.window.showWarningMessage(
      `Undo ${countOf(live.length, 'edit')} Forge made to ${countOf(files.size, 'file')} in this task?${missing.length ? ` ${countOf(missing.length, 'file')} cannot be restored: their journal contents are missing.` : ''}`,
      {
        modal: true,
        detail: [
          ...[...files].map((f) => vscode.workspace.asRelativePath(f, false)),
          ...(lost.length ? ['', ...lost] : []),
        ].join('\n'),
      },
      'Undo Changes',
    );
    if (ok !== 'Undo Changes') return undefined;
  }
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Forge: undoing task changes' },
    () => journal.undoTask(taskId, fs),
  );
  const done = result.restored.length + result.deleted.length;
  if (result.conflicts.length) {
    const list = result.conflicts
      .map((c) => `${vscode.workspace.asRelativePath(c.path, false)}: ${c.reason}`)
      .join('\n');
    void vscode.window.showWarningMessage(
      `Forge restored ${countOf(done, 'file')}; ${result.conflicts.length} could not be restored (changed since Forge edited them, or their journal contents are missing) and were left as they are.`,
      { modal: confirm, detail: list },
    );
  } else if (confirm) {
    void vscode.window.showInformationMessage(`Forge restored ${countOf(done, 'file')}.`);
  }
  return result;
}
