// The palette and editor commands: package.json declares them (contributes.commands), this list gives their ids a
// type, and the host's command table must have a handler for each (a test keeps this list equal to package.json).
export const COMMAND_IDS = [
  'forge.newTask',
  'forge.openPanel',
  'forge.openPanelInEditor',
  'forge.stop',
  'forge.continue',
  'forge.explainSelection',
  'forge.fixSelection',
  'forge.fixProblem',
  'forge.refactorSelection',
  'forge.addSelectionToChat',
  'forge.acceptEdit',
  'forge.rejectEdit',
  'forge.undoTaskChanges',
  'forge.restoreCheckpoint',
  'forge.redoRestore',
  'forge.showAuditLog',
  'forge.showRunReport',
  'forge.reviewTaskChanges',
  'forge.setApiKey',
  'forge.selectModel',
  'forge.showTaskHistory',
  'forge.showLogs',
  'forge.showMemory',
  'forge.forget',
] as const;
export type CommandId = (typeof COMMAND_IDS)[number];
