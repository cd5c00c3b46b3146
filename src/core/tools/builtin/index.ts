// The workspace tools, written once against small ports (WorkspaceFs, CommandRunner, EditApplier,
// SearchBackend) so they run under VS Code, headless Node and in-memory fakes alike.
import { withDefaultCommandRules } from '../../safety/commands';
import { WorkspaceSandbox, type SandboxOptions } from '../../safety/paths';
import type { CommandRunner, EditApplier, SearchBackend, WorkspaceFs } from '../../workspace/types';
import type { Tool } from '../types';
import { createApplyDiffTool } from './apply-diff-tool';
import { createExecuteCommandTool, createReadCommandOutputTool } from './execute-command';
import { createListFilesTool } from './list-files';
import { createReadFileTool } from './read-file';
import { createSearchFilesTool } from './search-files';
import { createWriteFileTool } from './write-file';

export interface WorkspaceToolDeps {
  fs: WorkspaceFs;
  runner: CommandRunner;
  applier: EditApplier;
  search?: SearchBackend;
  sandbox: SandboxOptions;
  /** execute_command's timeout when the model gives none (the user's forge.commandTimeoutSeconds). */
  commandDefaultTimeoutSeconds?: number;
  /** The user's home folder, so command rules recognise secrets under it (~/.ssh, ~/.aws ...). */
  home?: string;
}

export function createWorkspaceTools(deps: WorkspaceToolDeps): Tool[] {
  const sandbox = new WorkspaceSandbox(deps.fs, deps.sandbox);
  const tools: Tool[] = [
    createReadFileTool(sandbox),
    createWriteFileTool(sandbox, deps.applier),
    createApplyDiffTool(sandbox, deps.applier),
    createListFilesTool(sandbox),
    createSearchFilesTool(sandbox, deps.search),
    createExecuteCommandTool(sandbox, deps.runner, withDefaultCommandRules(deps.sandbox.commands), { defaultTimeoutSeconds: deps.commandDefaultTimeoutSeconds, home: deps.home }),
  ] as Tool[];
  const { runner } = deps;
  if (runner.readOutput) tools.push(createReadCommandOutputTool({ readOutput: runner.readOutput.bind(runner) }) as Tool);
  return tools;
}

export { WorkspaceSandbox };
export type { SandboxOptions };
export { createApplyDiffTool, createExecuteCommandTool, createListFilesTool, createReadCommandOutputTool, createReadFileTool, createSearchFilesTool, createWriteFileTool };
