// The workspace tools, written once against small ports (WorkspaceFs, CommandRunner, EditApplier,
// SearchBackend) so they run under VS Code, headless Node and in-memory fakes alike.
import { withDefaultCommandRules } from '../../safety/commands';
import { WorkspaceSandbox, type SandboxOptions } from '../../safety/paths';
import type { CommandRunner, EditApplier, SearchBackend, WorkspaceFs } from '../../workspace/types';
import type { RegexScanFactory } from '../regex-scan';
import type { Tool } from '../types';
import { createApplyDiffTool } from './apply-diff-tool';
import { COMMAND_DEFAULT_TIMEOUT_S, createExecuteCommandTool, createReadCommandOutputTool } from './execute-command';
import { createListFilesTool } from './list-files';
import { createReadFileTool } from './read-file';
import { createSearchFilesTool } from './search-files';
import { createWriteFileTool } from './write-file';

interface WorkspaceToolDeps {
  fs: WorkspaceFs;
  runner: CommandRunner;
  applier: EditApplier;
  search?: SearchBackend;
  /** Where search_files runs a regex when there is no search backend: a worker in Node (src/node/regex-scanner.ts). */
  regexScan?: RegexScanFactory;
  sandbox: SandboxOptions;
  /** execute_command's timeout when the model gives none (the user's forge.commandTimeoutSeconds). */
  commandDefaultTimeoutSeconds?: number;
  /** The user's home folder, so command rules recognise secrets under it (~/.ssh, ~/.aws ...). */
  home?: string;
  /**
   * The user's forge.toolTimeoutSeconds: one number for every file tool, or per tool name ("*" for the rest).
   * execute_command keeps its own timeout (the call's timeoutSeconds or forge.commandTimeoutSeconds).
   */
  toolTimeoutSeconds?: ToolTimeoutSetting;
}

type ToolTimeoutSetting = number | Readonly<Record<string, number>>;

/** Default time limits (seconds) of the workspace tools; the loop aborts and abandons a call past its limit. */
const TOOL_TIMEOUT_DEFAULTS_S: Readonly<Record<string, number>> = {
  read_file: 30,
  write_file: 30,
  apply_diff: 30,
  list_files: 60,
  search_files: 60,
  read_command_output: 30,
};

/** What execute_command's loop-level limit adds to the command's own timeout (the runner kills and reports first). */
const COMMAND_LIMIT_GRACE_S = 15;

/** A tool's limit in seconds: the setting (per tool, then "*", or one number), else the default. */
export function toolTimeoutSeconds(name: string, setting: ToolTimeoutSetting | undefined): number {
  const fallback = TOOL_TIMEOUT_DEFAULTS_S[name] ?? 60;
  const v = typeof setting === 'number' ? setting : (setting?.[name] ?? setting?.['*']);
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : fallback;
}

export function createWorkspaceTools(deps: WorkspaceToolDeps): Tool[] {
  const sandbox = new WorkspaceSandbox(deps.fs, deps.sandbox);
  const tools: Tool[] = [
    createReadFileTool(sandbox),
    createWriteFileTool(sandbox, deps.applier),
    createApplyDiffTool(sandbox, deps.applier),
    createListFilesTool(sandbox),
    createSearchFilesTool(sandbox, deps.search, deps.regexScan ? { regexScan: deps.regexScan } : {}),
    createExecuteCommandTool(sandbox, deps.runner, withDefaultCommandRules(deps.sandbox.commands), {
      defaultTimeoutSeconds: deps.commandDefaultTimeoutSeconds,
      home: deps.home,
    }),
  ] as Tool[];
  const { runner } = deps;
  if (runner.readOutput)
    tools.push(createReadCommandOutputTool({ readOutput: runner.readOutput.bind(runner) }) as Tool);
  const commandDefaultS = deps.commandDefaultTimeoutSeconds ?? COMMAND_DEFAULT_TIMEOUT_S;
  for (const tool of tools) {
    if (tool.name === 'execute_command') {
      tool.timeoutMs = (input: unknown) =>
        (((input as { timeoutSeconds?: number } | undefined)?.timeoutSeconds ?? commandDefaultS) +
          COMMAND_LIMIT_GRACE_S) *
        1000;
    } else {
      tool.timeoutMs = toolTimeoutSeconds(tool.name, deps.toolTimeoutSeconds) * 1000;
    }
  }
  return tools;
}

export { WorkspaceSandbox };
export { createListFilesTool, createSearchFilesTool };
