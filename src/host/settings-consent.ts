// The VS Code side of core/safety/workspace-settings.ts: reads each widening setting per scope (inspect), keeps the
// user's per-workspace answers in globalState (never in the workspace, which the repository controls), and asks once,
// naming each widened setting and its value. readSettings() takes the values in effect from here.
import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import type { Containment } from '../core/workspace/types';
import {
  consentQuestion,
  decideWorkspaceSettings,
  recordAnswer,
  sandboxOffReason,
  WIDENING_SETTINGS,
  type ConsentRecord,
  type ScopedValues,
  type WideningKey,
  type WorkspaceSettingsDecision,
} from '../core/safety/workspace-settings';
import type { CommandHandlers } from './ui/commands';
import { errorText } from '../core/error-text';

/** globalState: workspace id (a digest of its file or folders) -> the user's answers there. */
const STATE_KEY = 'forge.workspaceSettingsConsent';
const ALLOW = 'Allow for This Workspace';
const KEEP = 'Keep My Settings';

interface Store {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

let store: Store | undefined;
const listeners = new Set<() => void>();
/** Whether any API key is stored (undefined until known: counts as stored). */
let keyStored: boolean | undefined;
let keysKnown: Promise<void> = Promise.resolve();

/** Reads again whether a key is stored (before the model is resolved: a key stored a moment ago counts). */
export function refreshKeyPresence(): Promise<void> {
  if (readKeys) keysKnown = readKeys();
  return keysKnown;
}
let readKeys: (() => Promise<void>) | undefined;

function changed(): void {
  for (const l of listeners) l();
}

/** Fires when the user answered (the values in effect may have changed). */
export function onDidChangeConsent(listener: () => void): vscode.Disposable {
  listeners.add(listener);
  return new vscode.Disposable(() => listeners.delete(listener));
}

/** This workspace, as a key of the stored answers: its .code-workspace file, else its folders. */
function workspaceId(): string | undefined {
  const file = vscode.workspace.workspaceFile;
  const name =
    file && file.scheme !== 'untitled'
      ? file.toString()
      : (vscode.workspace.workspaceFolders ?? [])
          .map((f) => f.uri.toString())
          .sort()
          .join('\n');
  return name ? createHash('sha256').update(name).digest('hex').slice(0, 32) : undefined;
}

function allAnswers(): Record<string, ConsentRecord> {
  return store?.get<Record<string, ConsentRecord>>(STATE_KEY) ?? {};
}

/** The stored answers for this workspace; none in an untrusted one (its widening values never apply). */
function answers(): ConsentRecord {
  const id = workspaceId();
  if (!id || !vscode.workspace.isTrusted) return {};
  return allAnswers()[id] ?? {};
}

/** The decision for a `forge` configuration (the values in effect for the widening settings, and who set them). */
export function decideFor(c: vscode.WorkspaceConfiguration): WorkspaceSettingsDecision {
  const inspected: Partial<Record<WideningKey, ScopedValues>> = {};
  for (const key of WIDENING_SETTINGS) inspected[key] = c.inspect(key);
  return decideWorkspaceSettings(inspected, answers(), { keyStored });
}

async function answer(decision: WorkspaceSettingsDecision, allow: boolean, which = decision.toAsk): Promise<void> {
  const id = workspaceId();
  if (!store || !id) return;
  const all = allAnswers();
  await store.update(STATE_KEY, { ...all, [id]: recordAnswer(all[id] ?? {}, which, allow) });
  changed();
}

/** The questions shown in this window, by the values they asked about (a changed value asks again). */
const asked = new Set<string>();

/** Asks once about the workspace's widening values nobody answered yet (never in an untrusted workspace). */
async function askIfNeeded(log: { info(m: string): void }): Promise<void> {
  if (!store || !vscode.workspace.isTrusted) return;
  const decision = decideFor(vscode.workspace.getConfiguration('forge'));
  if (!decision.toAsk.length) return;
  const key = decision.toAsk.map((w) => `${w.key}=${w.digest}`).join(';');
  if (asked.has(key)) return;
  asked.add(key);
  const q = consentQuestion(decision.toAsk);
  const names = decision.toAsk.map((w) => `forge.${w.key} = ${JSON.stringify(w.value)}`).join(', ');
  log.info(`Workspace settings not applied until allowed: ${names}`);
  const pick = await vscode.window.showWarningMessage(
    `Forge: ${q.message} Settings: ${names}. Until you allow them for this workspace, Forge uses your own.`,
    ALLOW,
    KEEP,
  );
  if (pick === ALLOW || pick === KEEP) {
    await answer(decision, pick === ALLOW);
    log.info(`Workspace settings ${pick === ALLOW ? 'allowed' : 'refused'} for this workspace: ${names}`);
  }
}

/** "Forge: Review Workspace Settings": every widening value of this workspace, allowed or not, asked again. */
async function review(): Promise<void> {
  const decision = decideFor(vscode.workspace.getConfiguration('forge'));
  if (!decision.widened.length) {
    void vscode.window.showInformationMessage(
      "Forge: this workspace's settings widen nothing (your own settings apply).",
    );
    return;
  }
  const q = consentQuestion(decision.widened);
  const state = decision.widened
    .map(
      (w) =>
        `forge.${w.key}: ${w.consent === 'allowed' ? 'allowed' : w.consent === 'refused' ? 'kept yours' : 'not answered'}`,
    )
    .join('\n');
  const pick = await vscode.window.showWarningMessage(
    `Forge: ${q.message}`,
    { modal: true, detail: `${q.detail}\n\nNow:\n${state}` },
    ALLOW,
    KEEP,
  );
  if (pick === ALLOW || pick === KEEP) await answer(decision, pick === ALLOW, decision.widened);
}

/**
 * Wires the answers' store and the question (at start, when the settings change, when the workspace is trusted).
 * Before this runs (tests, early reads) there are no answers: workspace widening values do not apply.
 */
export function initSettingsConsent(
  context: vscode.ExtensionContext,
  keys: KeyPresence,
  log: { info(m: string): void },
): void {
  store = context.globalState;
  const ask = () => void askIfNeeded(log).catch(() => undefined);
  readKeys = () =>
    Promise.all(
      KEYED.map((p) =>
        keys.get(p).then(
          (k) => !!k,
          (err: unknown) => {
            log.info(
              `Could not read whether an API key is stored for ${p} (${errorText(err)}); counting it as stored.`,
            );
            return true;
          },
        ),
      ),
    ).then((found) => {
      const now = found.some(Boolean);
      if (now === keyStored) return;
      keyStored = now;
      changed();
      ask();
    });
  keysKnown = readKeys();
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('forge')) ask();
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      changed(); // answers given before apply again
      ask();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      changed();
      ask();
    }),
    keys.onDidChange(() => void refreshKeyPresence()),
  );
}

export const consentCommands = {
  'forge.reviewWorkspaceSettings': () => review(),
} satisfies Partial<CommandHandlers>;

const KEYED = ['openai', 'anthropic', 'openai-compatible'] as const;

/** The bit of ApiKeyStore the question needs: whether a key is stored, and when that changes. */
interface KeyPresence {
  get(provider: (typeof KEYED)[number]): Promise<string | undefined>;
  onDidChange(listener: () => void): vscode.Disposable;
}

/**
 * A command runner whose containment() says who turned the sandbox off (the approval card shows it): the user's
 * settings, or this workspace's, allowed by the user. Everything else goes to the runner itself.
 */
export function withSandboxAttribution<R extends { containment?(): Containment }>(
  runner: R,
  offBy: () => 'user' | 'workspace' | undefined,
): R {
  return new Proxy(runner, {
    get(target, prop, receiver) {
      if (prop === 'containment' && target.containment) {
        return () => {
          const c = target.containment!();
          const by = c.kind === 'none' ? offBy() : undefined;
          return by
            ? {
                ...c,
                reason: sandboxOffReason(by),
                summary:
                  by === 'workspace'
                    ? "no sandbox (turned off by this workspace's settings)"
                    : 'no sandbox (turned off in your user settings)',
              }
            : c;
        };
      }
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
