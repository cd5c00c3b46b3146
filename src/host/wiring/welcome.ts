// The first start in a VS Code profile: one notification that Forge is installed and where to open it. A flag in
// globalState (per profile, across windows and workspaces) keeps it to that once.
import type * as vscode from 'vscode';

export const WELCOME_SHOWN_KEY = 'forge.welcomeShown';
export const WELCOME_MESSAGE = 'Forge is installed. Open it from the Forge icon in the activity bar.';
export const WELCOME_ACTION = 'Open Forge';

/** Whether to show the welcome: only while the profile's flag is unset. */
export function shouldShowWelcome(alreadyShown: unknown): boolean {
  return alreadyShown !== true;
}

export interface WelcomeDeps {
  globalState: Pick<vscode.Memento, 'get' | 'update'>;
  showInformationMessage: (message: string, ...items: string[]) => Thenable<string | undefined>;
  executeCommand: (command: string) => Thenable<unknown>;
}

/** Shows the welcome once per profile (the flag is set before the user answers). Resolves when it is answered. */
export async function welcomeOnFirstStart(deps: WelcomeDeps): Promise<void> {
  if (!shouldShowWelcome(deps.globalState.get(WELCOME_SHOWN_KEY))) return;
  await deps.globalState.update(WELCOME_SHOWN_KEY, true);
  const choice = await deps.showInformationMessage(WELCOME_MESSAGE, WELCOME_ACTION);
  if (choice === WELCOME_ACTION) await deps.executeCommand('forge.openPanel');
}
