// Read-only documents (the audit log, run reports): a content provider under the `forge-view` scheme, so the
// editor shows the text but cannot save it. Each show() re-reads the content (the provider fires a change).
import * as vscode from 'vscode';

const READONLY_SCHEME = 'forge-view';

const contents = new Map<string, () => Promise<string>>();
const changed = new vscode.EventEmitter<vscode.Uri>();
let registered: vscode.Disposable | undefined;

function registerReadOnlyDocs(): vscode.Disposable {
  registered ??= vscode.workspace.registerTextDocumentContentProvider(READONLY_SCHEME, {
    onDidChange: changed.event,
    provideTextDocumentContent: async (uri) => {
      const get = contents.get(uri.path);
      return get ? get() : '';
    },
  });
  return {
    dispose: () => {
      registered?.dispose();
      registered = undefined;
    },
  };
}

/** Opens (or refreshes) a read-only document named `name`; returns it. */
export async function showReadOnly(
  name: string,
  content: () => Promise<string>,
  languageId?: string,
): Promise<vscode.TextDocument> {
  registerReadOnlyDocs();
  const uri = vscode.Uri.from({ scheme: READONLY_SCHEME, path: `/${name.replace(/[^A-Za-z0-9._-]/g, '_')}` });
  contents.set(uri.path, content);
  changed.fire(uri);
  let doc = await vscode.workspace.openTextDocument(uri);
  if (languageId && doc.languageId !== languageId) {
    doc = await vscode.languages.setTextDocumentLanguage(doc, languageId).then(
      (d) => d,
      () => doc,
    );
  }
  await vscode.window.showTextDocument(doc, { preview: false });
  return doc;
}
