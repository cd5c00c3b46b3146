// What the panel's built-in slash commands do in VS Code (slash-commands.ts decides which one runs).
import * as vscode from 'vscode';
import type { SlashCommandRegistry } from '../../core/commands/slash';
import { getMode, MODE_NAMES, type ModeDefinition, type ModeName } from '../../core/modes';
import type { ForgePanelProvider } from '../../panel/provider';
import type { TaskSession } from '../session/task-session';
import type { SlashActions } from './slash-commands';

/** The Controller's own actions the slash commands reuse. */
interface SlashHost extends Pick<SlashActions, 'stop' | 'newTask' | 'selectModel' | 'undo' | 'send' | 'customModes'> {
  session(): TaskSession;
  panel(): ForgePanelProvider | undefined;
}

export function hostSlashActions(registry: SlashCommandRegistry, host: SlashHost): SlashActions {
  const { session } = host;
  return {
    registry,
    notice: (text, level) => host.panel()?.post({ type: 'command_notice', text: text.slice(0, 50_000), level }),
    running: () => session().running,
    stop: host.stop,
    newTask: host.newTask,
    mode: () => session().mode,
    setMode: (mode) => {
      session().setMode(mode);
      void session().save();
    },
    pickMode: (current) => pickMode(current, host.customModes?.() ?? []),
    ...(host.customModes ? { customModes: host.customModes } : {}),
    selectModel: host.selectModel,
    compact: (signal) => session().compact(signal),
    contextUsage: () => session().contextUsage(),
    undo: host.undo,
    send: host.send,
  };
}

/** /mode without an argument: a quick pick of the modes. */
async function pickMode(current: ModeName, custom: readonly ModeDefinition[]): Promise<ModeName | undefined> {
  const modes = [...MODE_NAMES.map((n) => getMode(n)), ...custom];
  const items = modes.map((m) => ({
    label: m.label,
    description: [m.name === current ? 'current' : '', m.source ?? ''].filter(Boolean).join(' · '),
    detail: m.description ?? m.prompt,
    name: m.name,
  }));
  const pick = await vscode.window.showQuickPick(items, {
    title: 'Forge: mode for this task',
    placeHolder: `Current: ${modes.find((m) => m.name === current)?.label ?? current}`,
  });
  return pick?.name as ModeName | undefined;
}
