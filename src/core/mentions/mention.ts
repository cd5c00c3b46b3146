// What the user can attach to a message with "@": a file, a folder, an editor selection, problems (of a file or the
// workspace), Forge's recent terminal output, or the working-tree changes. Plain data: the webview sends it, the
// host resolves it (resolve.ts), the transcript shows it as a chip with mentionLabel().

export type Mention =
  | { kind: 'file'; path: string }
  | { kind: 'folder'; path: string }
  | { kind: 'selection'; path: string; startLine: number; endLine: number }
  | { kind: 'problems'; path?: string }
  | { kind: 'terminal' }
  | { kind: 'git' };

export type MentionKind = Mention['kind'];

function baseName(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1) || trimmed;
}

/** The chip's text: "greet.js", "src/", "greet.js:3-14", "Problems", "Terminal", "Git changes". */
export function mentionLabel(m: Mention): string {
  switch (m.kind) {
    case 'file':
      return baseName(m.path);
    case 'folder':
      return `${baseName(m.path)}/`;
    case 'selection':
      return `${baseName(m.path)}:${m.startLine === m.endLine ? m.startLine : `${m.startLine}-${m.endLine}`}`;
    case 'problems':
      return m.path ? `Problems in ${baseName(m.path)}` : 'Problems';
    case 'terminal':
      return 'Terminal output';
    case 'git':
      return 'Git changes';
  }
}

/** A stable key: the same mention twice in one message is attached once. */
export function mentionKey(m: Mention): string {
  switch (m.kind) {
    case 'file':
    case 'folder':
      return `${m.kind}:${m.path}`;
    case 'selection':
      return `selection:${m.path}:${m.startLine}-${m.endLine}`;
    case 'problems':
      return `problems:${m.path ?? ''}`;
    default:
      return m.kind;
  }
}
