// Builders for host messages used by the webview tests.
import type { HostMessage, ItemOf, PatchOp, Snapshot, TranscriptItem } from '../../src/protocol/messages';

let seq = 0;
export function resetSeq(): void {
  seq = 0;
}

export function state(over: Partial<Snapshot> = {}): HostMessage {
  seq = over.seq ?? 1;
  return {
    type: 'state',
    snapshot: {
      seq,
      items: [],
      status: { state: 'idle' },
      provider: { configured: true, provider: 'anthropic', model: 'claude-sonnet-4' },
      history: [],
      ...over,
    },
  };
}

export function patch(...ops: PatchOp[]): HostMessage {
  return { type: 'patch', seq: ++seq, ops };
}

export const user = (id: string, text: string): ItemOf<'user'> => ({ id, ts: 1, kind: 'user', text });
export const assistant = (id: string, text: string, streaming = false): ItemOf<'assistant'> => ({
  id,
  ts: 1,
  kind: 'assistant',
  text,
  streaming,
});
export const thinking = (id: string, text: string, streaming = false): ItemOf<'thinking'> => ({
  id,
  ts: 1,
  kind: 'thinking',
  text,
  streaming,
});

export function tool(id: string, over: Partial<ItemOf<'tool'>> = {}): ItemOf<'tool'> {
  return {
    id,
    ts: 1,
    kind: 'tool',
    toolCallId: `call_${id}`,
    name: 'read_file',
    argsText: '{\n  "path": "src/app.ts"\n}',
    argsSummary: 'src/app.ts',
    status: 'done',
    durationMs: 38,
    result: 'export function main() {}\n',
    resultTruncated: false,
    ...over,
  };
}

export function approval(id: string, requestId: string, over: Partial<ItemOf<'approval'>> = {}): ItemOf<'approval'> {
  return {
    id,
    ts: 1,
    kind: 'approval',
    requestId,
    toolCallId: 'call_w',
    toolName: 'apply_diff',
    risk: 'write',
    summary: 'Edit src/app.ts',
    preview: {
      kind: 'edit',
      path: 'src/app.ts',
      isNewFile: false,
      added: 2,
      removed: 1,
      diffTruncated: false,
      diff: '@@ -1,3 +1,4 @@\n import { run } from "./run";\n-export function main() {}\n+export function main(): void {\n+  run();\n+}',
    },
    status: 'pending',
    ...over,
  };
}

export function manyItems(n: number): TranscriptItem[] {
  const items: TranscriptItem[] = [];
  for (let i = 0; i < n; i++) {
    const id = `m${i}`;
    switch (i % 4) {
      case 0:
        items.push(user(id, `Message ${i}: please look at module ${i}`));
        break;
      case 1:
        items.push(
          assistant(id, `Reply **${i}** with a list:\n\n- one\n- two\n\n\`\`\`ts\nconst x${i} = ${i};\n\`\`\``),
        );
        break;
      case 2:
        items.push(tool(id, { argsSummary: `src/file${i}.ts` }));
        break;
      default:
        items.push(thinking(id, `thinking about ${i}`));
        break;
    }
  }
  return items;
}
