// The @ picker's panel message, and the MentionService made from the host's pieces: the workspace fs and sandbox
// of the file tools, the task's history (its commands), the last test run, a contained git, the model's window.
import type { Mention } from '../../core/mentions/mention';
import type { TestRunRecord } from '../../core/modes/context';
import type { ChatMessage } from '../../core/model/types';
import type { ForgePanelProvider } from '../../panel/provider';
import type { WebviewHandlers } from '../../panel/webview-handlers';
import type { MentionView } from '../../protocol/messages';
import { NodeCommandRunner } from '../../node';
import type { Toolkit } from '../wiring/toolkit';
import { MentionIndex } from './mention-index';
import { MentionService } from './mention-service';
import { vscodeMentionSources } from './mention-sources';

interface MentionWiring {
  toolkit: Pick<Toolkit, 'fs' | 'sandbox' | 'commandSandbox'>;
  contextWindow(): number;
  history(): readonly ChatMessage[];
  lastTestRun?(): TestRunRecord | undefined;
  log(message: string): void;
}

export function createMentionService(w: MentionWiring): MentionService {
  const { fs, sandbox, commandSandbox } = w.toolkit;
  return new MentionService({
    fs,
    sandbox,
    index: new MentionIndex(fs, sandbox, w.log),
    contextWindow: w.contextWindow,
    sources: vscodeMentionSources({
      history: w.history,
      lastTestRun: w.lastTestRun,
      // git runs as a child process (never the visible terminal), contained like every command.
      git: new NodeCommandRunner({ sandbox: commandSandbox }),
      trusted: () => sandbox.trusted,
    }),
  });
}

export function mentionMessages(service: () => MentionService, panel: () => ForgePanelProvider | undefined) {
  return {
    mention_query: async (m) => {
      const options = await service().options(m.query);
      panel()?.post({ type: 'mention_results', seq: m.seq, options });
    },
  } satisfies Partial<WebviewHandlers>;
}

/** The protocol's mention is core's (the schema mirrors the type); a copy so nothing aliases the message. */
export function toMention(m: MentionView): Mention {
  return structuredClone(m) as Mention;
}
