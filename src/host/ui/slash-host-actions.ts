// What the panel's built-in slash commands do in VS Code (slash-commands.ts decides which one runs).
import * as vscode from 'vscode';
import type { SlashCommandRegistry } from '../../core/commands/slash';
import { getMode, MODE_NAMES, type ModeName } from '../../core/modes';
import type { ForgePanelProvider } from '../../panel/provider';
import type { TaskSession } from '../session/task-session';
import type { SlashActions } from './slash-commands';

/** The Controller's own actions the slash commands reuse. */
interface SlashHost extends Pick<SlashActions, 'stop' | 'newTask' | 'selectModel' | 'undo' | 'send'> {
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
    pickMode,
    selectModel: host.selectModel,
    compact: (signal) => session().compact(signal),
    undo: host.undo,
    send: host.send,
  };
}

/** /mode without an argument: a quick pick of the modes. */
async function pickMode(current: ModeName): Promise<ModeName | undefined> {
  const items = MODE_NAMES.map((name) => ({
    label: getMode(name).label,
    description: name === current ? 'current' : '',
    detail: getMode(name).prompt,
    name,
  }));
  const pick = await vscode.window.showQuickPick(items, {
    title: 'Forge: mode for this task',
    placeHolder: `Current: ${getMode(current).label}`,
  });
  return pick?.name as ModeName | undefined;
}
