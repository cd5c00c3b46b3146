// The @ mentions in the host: the picker's answers (special entries, then files and folders from the index), the
// chips an editor action makes, and the resolution of a message's mentions into labelled context within the
// budget: a quarter of the model's window, at most 200,000 characters.
import * as vscode from 'vscode';
import { fuzzyScore, normalizeQuery } from '../../core/mentions/fuzzy';
import { mentionLabel, type Mention } from '../../core/mentions/mention';
import { resolveMentions, type MentionResolution, type MentionSources } from '../../core/mentions/resolve';
import { ConfinedReader } from '../../core/safety/confined-read';
import { WorkspaceSandbox, type SandboxOptions } from '../../core/safety/paths';
import type { WorkspaceFs } from '../../core/workspace/types';
import type { MentionChip, MentionOption } from '../../protocol/messages';
import type { MentionIndex } from './mention-index';

const MAX_BUDGET_CHARS = 200_000;
const OPTIONS_SHOWN = 50;

interface ServiceDeps {
  fs: WorkspaceFs;
  sandbox: SandboxOptions;
  index: MentionIndex;
  sources: Omit<MentionSources, 'reader'>;
  /** The model's context window in tokens. */
  contextWindow(): number;
}

export class MentionService {
  constructor(private readonly deps: ServiceDeps) {}

  /** The budget for one message's attachments, in characters (about 4 per token). */
  budgetChars(): number {
    return Math.min(MAX_BUDGET_CHARS, Math.floor(this.deps.contextWindow() * 0.25) * 4);
  }

  async options(query: string): Promise<MentionOption[]> {
    const q = normalizeQuery(query);
    const specials = this.specials()
      .map((o) => ({ o, s: q ? fuzzyScore(q, o.keywords.toLowerCase(), o.keywords) : 0 }))
      .filter((x) => x.s !== undefined)
      .map((x) => x.o.option);
    const hits = await this.deps.index.search(query, OPTIONS_SHOWN);
    const files = hits.map((h): MentionOption => {
      const slash = h.path.lastIndexOf('/');
      const mention: Mention = { kind: h.kind, path: h.path };
      return { mention, label: mentionLabel(mention), ...(slash > 0 ? { detail: h.path.slice(0, slash) } : {}) };
    });
    return [...specials, ...files].slice(0, OPTIONS_SHOWN + 5);
  }

  /** The chip of a mention (the label the webview shows). */
  chip(mention: Mention): MentionChip {
    return { mention, label: mentionLabel(mention) };
  }

  async resolve(mentions: readonly Mention[]): Promise<MentionResolution> {
    const reader = ConfinedReader.over(new WorkspaceSandbox(this.deps.fs, this.deps.sandbox));
    return resolveMentions(mentions, { ...this.deps.sources, reader }, this.budgetChars());
  }

  /** The entries that are not files: the selection, problems, terminal output, git changes. */
  private specials(): { keywords: string; option: MentionOption }[] {
    const out: { keywords: string; option: MentionOption }[] = [];
    const sel = selectionMention();
    if (sel)
      out.push({ keywords: 'selection', option: { mention: sel, label: mentionLabel(sel), detail: 'Selection' } });
    const editor = vscode.window.activeTextEditor;
    const file = editor && editorPath(editor.document.uri);
    if (file) {
      const m: Mention = { kind: 'problems', path: file };
      out.push({
        keywords: 'problems file',
        option: { mention: m, label: mentionLabel(m), detail: 'Problems of the open file' },
      });
    }
    const add = (keywords: string, mention: Mention, detail: string) =>
      out.push({ keywords, option: { mention, label: mentionLabel(mention), detail } });
    add('problems workspace', { kind: 'problems' }, 'Problems in the workspace');
    add('terminal output', { kind: 'terminal' }, "Forge's recent command output");
    add('git changes diff', { kind: 'git' }, 'Uncommitted changes (git diff)');
    return out;
  }
}

/** The workspace path of a file: URI ('src/a.ts'; 'folder/src/a.ts' with several folders), or undefined. */
function editorPath(uri: vscode.Uri): string | undefined {
  if (uri.scheme !== 'file' || !vscode.workspace.getWorkspaceFolder(uri)) return undefined;
  return vscode.workspace.asRelativePath(uri, (vscode.workspace.workspaceFolders?.length ?? 0) > 1);
}

/** The active editor's selection (or the cursor line when it is empty) as a mention; undefined without one. */
export function selectionMention(
  editor = vscode.window.activeTextEditor,
  wholeLineIfEmpty = false,
): Mention | undefined {
  if (!editor) return undefined;
  const path =
    editorPath(editor.document.uri) ?? (editor.document.uri.scheme === 'file' ? editor.document.uri.fsPath : undefined);
  if (!path) return undefined;
  const s = editor.selection;
  if (s.isEmpty && !wholeLineIfEmpty) return undefined;
  // A selection ending at column 0 of a line does not include that line.
  const endLine = s.end.line > s.start.line && s.end.character === 0 ? s.end.line : s.end.line + 1;
  return { kind: 'selection', path, startLine: s.start.line + 1, endLine };
}
