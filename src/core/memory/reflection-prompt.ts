// What the reflecting model sees: a dedicated system prompt and a condensed transcript of the run.
import type { ChatMessage } from '../model/types';
import type { RunReport } from '../loop/events';
import type { MemoryItem, ReflectionInput } from './port';
import { plural } from '../plural';

export const REFLECTION_SYSTEM_PROMPT = `You are the reflection step of Forge, an autonomous coding agent.
You review a run of the agent (finished, failed, or just hit a tool error) and extract at most 3 durable
learnings that will make FUTURE runs better. Most runs teach nothing new: then answer [].

Learning types:
- "procedural": how to do something here. Example: "In this repo, run tests with \`pnpm test\`, not npm."
- "semantic": a fact about the project or environment. Example: "HTTP handlers live in src/server/routes/."
- "episodic": what happened in this run that is worth knowing later. Example: "Upgrading eslint to v9 broke the
  lint config; reverted."

Rules:
- Be specific and actionable: name the exact command, file, flag or API. No generic advice ("write tests").
- Learn from errors: if something failed and the cause is visible, record what to do instead.
- "context" says when the learning applies. "confidence" (0 to 1) is how sure you are it holds in general.
- "tags": 1-5 short lowercase keywords (tool names, areas, languages).
- "scope": "global" only for lessons about tools or languages that hold in any project; otherwise "workspace".
- Do not repeat a learning listed as already known.

Answer with ONLY a JSON array, no prose, in this exact shape:
[{"type": "procedural", "content": "...", "context": "...", "confidence": 0.8, "tags": ["..."], "scope": "workspace"}]`;

interface PromptParts {
  trigger: ReflectionInput['trigger'];
  report?: RunReport;
  history: readonly ChatMessage[];
  episodic?: readonly MemoryItem[];
  known?: readonly MemoryItem[];
  maxTranscriptChars: number;
}

export function buildReflectionPrompt(p: PromptParts): string {
  const users = p.history.filter((m): m is Extract<ChatMessage, { role: 'user' }> => m.role === 'user');
  const out: string[] = [];
  out.push(
    p.trigger === 'tool_error'
      ? 'Trigger: a tool call just failed during the run (the run continues).'
      : `Trigger: the run ended${p.report ? ` (reason: ${p.report.reason})` : ''}.`,
  );
  if (users.length) out.push(`Task: ${clip(users[0].content, 2000)}`);
  if (users.length > 1) out.push(`Latest user message: ${clip(users[users.length - 1].content, 1000)}`);
  if (p.report) {
    const r = p.report;
    const errors = r.steps.flatMap((s) => [
      ...(s.error ? [`step ${s.iteration}: ${s.error}`] : []),
      ...s.toolCalls.filter((c) => c.error).map((c) => `${c.name}: ${c.error}`),
    ]);
    out.push(`Run: ${plural(r.iterations, 'iteration')}, ended "${r.reason}": ${clip(r.detail, 600)}`);
    if (errors.length)
      out.push(
        `Errors:\n${errors
          .slice(-8)
          .map((e) => `- ${clip(e, 300)}`)
          .join('\n')}`,
      );
  }
  out.push(`Transcript (oldest first, shortened):\n${transcript(p.history, p.maxTranscriptChars)}`);
  if (p.episodic?.length) {
    out.push(`Earlier episodes in this workspace:\n${p.episodic.map((m) => `- ${m.content}`).join('\n')}`);
  }
  if (p.known?.length) out.push(`Already known (do not repeat):\n${p.known.map((m) => `- ${m.content}`).join('\n')}`);
  out.push('Reply with the JSON array only.');
  return out.join('\n\n');
}

/** Newest messages win: the end of a run is where its lessons usually are. */
function transcript(history: readonly ChatMessage[], maxChars: number): string {
  const lines: string[] = [];
  let total = 0;
  for (let i = history.length - 1; i >= 0 && total < maxChars; i--) {
    const line = describe(history[i]);
    lines.unshift(line);
    total += line.length + 1;
  }
  const text = lines.join('\n');
  return text.length > maxChars ? `…${text.slice(text.length - maxChars)}` : text;
}

function describe(m: ChatMessage): string {
  switch (m.role) {
    case 'user':
      return `[user] ${clip(m.content, 1500)}`;
    case 'assistant': {
      const calls = (m.toolCalls ?? []).map((c) => `[assistant calls ${c.name}] ${clip(c.rawArgs, 600)}`);
      return [m.content ? `[assistant] ${clip(m.content, 1500)}` : '', ...calls].filter(Boolean).join('\n');
    }
    case 'tool':
      return `[${m.toolName} ${m.isError ? 'ERROR' : 'result'}] ${clip(m.content, 1500)}`;
  }
}

/** Keeps head and tail: errors often sit at the end of long outputs. */
function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  const half = Math.floor((max - 5) / 2);
  return `${s.slice(0, half)} … ${s.slice(s.length - half)}`;
}
