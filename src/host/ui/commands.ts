// The palette surface: one table with a handler per command id (protocol/commands.ts), registered here. A
// handler's value is the command's value; an error becomes a message and a log line, never a throw into VS Code.
import * as vscode from 'vscode';
import { COMMAND_IDS, type CommandId } from '../../protocol/commands';
import type { Logger } from '../logger';
import { errorText } from '../../core/error-text';

/** Commands take whatever their caller passes (menus, keybindings, other extensions): handlers check it. */
type CommandHandler = (...args: unknown[]) => unknown;
export type CommandHandlers = Record<CommandId, CommandHandler>;

export function registerCommands(handlers: CommandHandlers, log?: Logger): vscode.Disposable {
  const subs = COMMAND_IDS.map((id) =>
    vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      try {
        return await handlers[id](...args);
      } catch (e) {
        const message = errorText(e);
        log?.error(`${id} failed: ${message}`);
        void vscode.window.showErrorMessage(`Forge: ${message}`, 'Show Logs').then((pick) => {
          if (pick) void vscode.commands.executeCommand('forge.showLogs');
        });
        return undefined;
      }
    }),
  );
  return vscode.Disposable.from(...subs);
}
