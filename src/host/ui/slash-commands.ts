// What a slash command typed in the panel does. Built-ins act on the host (stop, new task, mode, model picker,
// compaction, undo, help); custom and MCP commands expand into a prompt that is sent like a message; anything
// else is answered with a notice and never reaches the model. No vscode import: the host passes its actions in.
import { helpText, type SlashCommandRegistry } from '../../core/commands/slash';
import { formatContextUsage, type ContextUsage } from '../../core/context/usage-report';
import { getMode, isModeName, MODE_NAMES, type ModeDefinition, type ModeName } from '../../core/modes';
import { errorText } from '../../core/error-text';

export interface SlashActions {
  registry: SlashCommandRegistry;
  /** Shown under the input (not part of the transcript). */
  notice(text: string, level: 'info' | 'error'): void;
  running(): boolean;
  stop(): void;
  newTask(): void;
  mode(): ModeName;
  setMode(mode: ModeName): void;
  /** The team's custom agents, offered beside the built-in modes. */
  customModes?(): readonly ModeDefinition[];
  /** A picker for /mode without an argument; undefined = cancelled. */
  pickMode?(current: ModeName): Promise<ModeName | undefined>;
  selectModel(): Promise<void>;
  /** undefined: nothing to compact yet. */
  compact(signal: AbortSignal): Promise<{ beforeTokens: number; afterTokens: number } | undefined>;
  /** /context: what fills the model's window now. */
  contextUsage?(): ContextUsage;
  undo(): Promise<unknown>;
  /** Sends a prompt as the user's message (a run). */
  send(prompt: string, signal: AbortSignal): Promise<unknown>;
}

const BUSY = 'Forge is working on this task: /stop it first (or press Escape), or wait for it to finish.';

/** Handles `text` when it is a slash command; false when it is an ordinary message. */
export async function runSlashCommand(text: string, a: SlashActions, signal: AbortSignal): Promise<boolean> {
  const r = await a.registry.resolve(text, signal);
  if (!r) return false;
  if (r.kind === 'unknown') {
    a.notice(r.message, 'error');
    return true;
  }
  if (r.kind === 'prompt') {
    if (a.running()) a.notice(BUSY, 'error');
    else await a.send(r.prompt, signal);
    return true;
  }
  const arg = r.args.argv[0]?.toLowerCase();
  switch (r.name) {
    case 'stop':
      if (a.running()) a.stop();
      else a.notice('Nothing is running.', 'info');
      return true;
    case 'new':
      if (a.running()) a.stop();
      a.newTask();
      return true;
    case 'help':
      a.notice(helpText(await a.registry.list(signal)), 'info');
      return true;
    case 'model':
      await a.selectModel();
      return true;
    case 'undo':
      if (a.running()) a.notice(BUSY, 'error');
      else await a.undo();
      return true;
    case 'compact': {
      if (a.running()) {
        a.notice(BUSY, 'error');
        return true;
      }
      a.notice('Compacting the conversation…', 'info');
      try {
        const c = await a.compact(signal);
        a.notice(
          c
            ? `Compacted: ${c.beforeTokens} → ${c.afterTokens} tokens (estimated).`
            : 'Nothing to compact yet: the conversation is short.',
          'info',
        );
      } catch (err) {
        a.notice(`Compaction failed: ${errorText(err)}`, 'error');
      }
      return true;
    }
    case 'context': {
      const usage = a.contextUsage?.();
      a.notice(usage ? formatContextUsage(usage) : 'The context view is not available here.', 'info');
      return true;
    }
    case 'mode': {
      let mode: ModeName | undefined;
      const custom = a.customModes?.() ?? [];
      const names = [...MODE_NAMES, ...custom.map((c) => c.name)].join(', ');
      if (!arg) mode = await a.pickMode?.(a.mode());
      else if (isModeName(arg)) mode = arg;
      else if (arg === 'code') mode = 'implement';
      else if (custom.some((c) => c.name === r.args.argv[0])) mode = r.args.argv[0];
      else {
        a.notice(`Unknown mode "${r.args.argv[0]}". Modes: ${names}.`, 'error');
        return true;
      }
      if (!mode) {
        if (!a.pickMode) a.notice(`Mode: ${a.mode()}. Switch with /mode <name> (${names}).`, 'info');
        return true;
      }
      a.setMode(mode);
      const m = getMode(mode, custom);
      a.notice(
        `Mode: ${m.label} — ${m.prompt} (up to ${m.maxIterations} iterations${a.running() ? '; from the next step' : ''}).`,
        'info',
      );
      return true;
    }
  }
}
