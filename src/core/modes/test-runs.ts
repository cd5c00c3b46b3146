// Remembers the last test run the agent made (an execute_command whose command runs tests), for test mode's
// context. Fed the loop's events; keeps the tail of the output only.
import { isTestCommand, type TestRunRecord } from './context';

const KEEP_CHARS = 8000;

/** The loop events it reads (structurally AgentEvent's; typed here so modes/ does not import loop/). */
type ObservedEvent =
  | { type: 'tool_call_end'; id: string; name: string; args: unknown }
  | { type: 'tool_result'; id: string; content: string; isError: boolean }
  | { type: 'sub_agent'; event: ObservedEvent | { type: string } }
  | { type: 'run_end' }
  | { type: string };

export class TestRunTracker {
  private readonly pending = new Map<string, string>();
  private lastRun: TestRunRecord | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  observe(ev: ObservedEvent): void {
    const e = ev as Extract<ObservedEvent, { type: 'tool_call_end' | 'tool_result' | 'sub_agent' | 'run_end' }>;
    if (e.type === 'sub_agent') return this.observe(e.event);
    if (e.type === 'tool_call_end' && e.name === 'execute_command') {
      const command = (e.args as { command?: unknown } | undefined)?.command;
      if (typeof command === 'string' && isTestCommand(command)) this.pending.set(e.id, command);
    } else if (e.type === 'tool_result' && this.pending.has(e.id)) {
      const command = this.pending.get(e.id)!;
      this.pending.delete(e.id);
      const m = /Exit code: (-?\d+)/.exec(e.content);
      const output = e.content.length > KEEP_CHARS ? e.content.slice(-KEEP_CHARS) : e.content;
      this.lastRun = { command, exitCode: m ? Number(m[1]) : e.isError ? null : 0, output, at: this.now() };
    } else if (e.type === 'run_end') {
      this.pending.clear();
    }
  }

  last(): TestRunRecord | undefined {
    return this.lastRun;
  }
}
