// The team's skills and custom agents in VS Code: read at start and again when a skill or agent file changes (in
// the workspace or the user's home), each problem logged once with its reason; the models of modes and agents
// (forge.modeModels, an agent's `model:`) built ahead; what the mode picker and the ecosystem strip show.
import * as os from 'node:os';
import * as vscode from 'vscode';
import { MODES } from '../../core/modes';
import type { Model } from '../../core/model/types';
import type { ConfinedReader } from '../../core/safety/confined-read';
import type { WorkspaceFs } from '../../core/workspace/types';
import { ModeModels, modeModelSpecs } from '../../node/surface/mode-models';
import { TeamFiles } from '../../node/surface/team-files';
import type { Logger } from '../logger';

type ModelBuilder = {
  /** "<provider>:<model>" as a Model on the user's keys; { problem } when it cannot be used. */
  build(spec: string): Promise<{ model?: Model; problem?: string }>;
  /** The task's provider (a bare model id in a file or setting is one of its models). */
  provider(): string;
};

/** A mode as the panel's mode switch offers it. */
export interface ModeChoice {
  id: string;
  label: string;
  /** The model it runs on, when not the task's. */
  model?: string;
  /** What it does (a built-in mode's line, a custom agent's description). */
  description?: string;
  /** The agent file it comes from (custom agents). */
  source?: string;
}

// The folders themselves too: VS Code's recursive watcher (seen in code-server on Linux) reports a new `.claude`
// folder but nothing written inside it afterwards, so a glob on the files alone never fires for a new place.
const WORKSPACE_GLOBS = [
  '**/{.forge,.agents,.claude,.github}',
  '**/{.forge,.agents,.claude,.github}/{skills,agents}',
  '**/{.forge,.agents,.claude,.github}/{skills,agents}/**',
];
const HOME_GLOBS = ['{.forge,.agents,.claude,.copilot}', '{.forge,.agents,.claude,.copilot}/{skills,agents}/**'];

/** forge.modeModels from the user's own settings only: a workspace cannot route a mode to a model of its choosing. */
function modeModelSetting(): Record<string, string> {
  const v = vscode.workspace.getConfiguration('forge').inspect<Record<string, unknown>>('modeModels')?.globalValue;
  const out: Record<string, string> = {};
  if (v && typeof v === 'object')
    for (const [k, m] of Object.entries(v)) if (typeof m === 'string' && m.trim()) out[k.slice(0, 64)] = m.trim();
  return out;
}

export class TeamFilesService implements vscode.Disposable {
  readonly team: TeamFiles;
  readonly models = new ModeModels();
  private builder?: ModelBuilder;
  private readonly listeners = new Set<() => void>();
  private readonly subs: vscode.Disposable[] = [];
  private loading: Promise<void> = Promise.resolve();
  private timer?: ReturnType<typeof setTimeout>;

  constructor(
    fs: WorkspaceFs,
    reader: ConfinedReader,
    private readonly log: Logger,
  ) {
    const home = os.homedir();
    this.team = new TeamFiles(fs, { homeDir: home, reader, warn: (m) => log.warn(`Skills and agents: ${m}`) });
    const reload = () => this.reloadSoon();
    const homeUri = vscode.Uri.file(home);
    for (const pattern of [...WORKSPACE_GLOBS, ...HOME_GLOBS.map((g) => new vscode.RelativePattern(homeUri, g))]) {
      const w = vscode.workspace.createFileSystemWatcher(pattern);
      this.subs.push(w, w.onDidChange(reload), w.onDidCreate(reload), w.onDidDelete(reload));
    }
    this.subs.push(
      vscode.workspace.onDidChangeWorkspaceFolders(reload),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('forge.modeModels') || e.affectsConfiguration('forge.provider'))
          void this.prepareModels();
      }),
    );
    this.reload();
  }

  private reloadSoon(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.reload(), 200);
  }

  private reload(): void {
    this.loading = this.loading
      .then(async () => {
        const before = this.agentModels();
        await this.team.load();
        // Models are rebuilt only when an agent's model changed: a rebuild mid-run would drop a mode's model.
        if (!this.modelsPrepared || this.agentModels() !== before) await this.prepareModels();
        else this.changed();
      })
      .catch((err: unknown) => this.log.warn(`Could not read the skills and agents: ${String(err)}`));
  }

  private modelsPrepared = false;
  private agentModels(): string {
    return JSON.stringify(this.team.agents.map((a) => [a.name, a.model ?? '']));
  }

  /** Re-reads the files now (a task starting): what the lists show never depends on the file watcher alone. */
  refresh(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.reload();
    return this.loading;
  }

  /** The model factory arrives after the ecosystem (activate() wires the model later). */
  useModels(builder: ModelBuilder): void {
    this.builder = builder;
    void this.prepareModels();
  }

  private async prepareModels(): Promise<void> {
    const b = this.builder;
    if (b) {
      this.modelsPrepared = true;
      const specs = modeModelSpecs(modeModelSetting(), this.team.agents, b.provider());
      await this.models.prepare(
        specs,
        (spec) => b.build(spec),
        (m) => this.warnOnce(m),
      );
    }
    this.changed();
  }

  private readonly warned = new Set<string>();
  private warnOnce(m: string): void {
    if (this.warned.has(m)) return;
    this.warned.add(m);
    void vscode.window.showWarningMessage(`Forge: ${m}`);
  }

  ready(): Promise<void> {
    return this.loading;
  }

  onDidChange(listener: () => void): vscode.Disposable {
    this.listeners.add(listener);
    return new vscode.Disposable(() => this.listeners.delete(listener));
  }

  private changed(): void {
    for (const l of [...this.listeners]) l();
  }

  /** The built-in modes, then the team's agents, each with the model it runs on when that is its own. */
  modes(): ModeChoice[] {
    const label = (id: string) => this.models.label(id);
    return [
      ...Object.values(MODES).map((m) => ({
        id: m.name,
        label: m.label,
        ...(m.description ? { description: m.description } : {}),
        ...(label(m.name) ? { model: label(m.name) } : {}),
      })),
      ...this.team.agents.map((a) => ({
        id: a.name,
        label: a.label,
        ...(a.description ? { description: a.description } : {}),
        ...(label(a.name) ? { model: label(a.name) } : {}),
        ...(a.source ? { source: a.source } : {}),
      })),
    ];
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    vscode.Disposable.from(...this.subs).dispose();
    this.listeners.clear();
  }
}
