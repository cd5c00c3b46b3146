// The inline model setup: pick a provider, then only the fields it needs (base URL for an OpenAI-compatible
// server, an API key where one is needed, the model from the endpoint's own list), Check connection, Save.
// A local Ollama / LM Studio the host finds is offered with one click. The key goes to the host, which stores it
// in SecretStorage; the panel never keeps it.
import type { HostMessage, PanelProviderId, ProviderStatus } from '../../src/protocol/messages';
import { post } from './api';
import { button, h } from './dom';
import { icon } from './icons';

type CheckResult = Extract<HostMessage, { type: 'provider_check' }>;

const PROVIDERS: [PanelProviderId, string, string][] = [
  // Short enough for a 300 px side bar; the examples show under the select.
  ['openai-compatible', 'OpenAI-compatible server', 'Local: Ollama, LM Studio, vLLM, llama.cpp; or OpenRouter…'],
  ['vscode-lm', 'VS Code chat model', 'A model another extension provides, e.g. GitHub Copilot'],
  ['openai', 'OpenAI', 'Your OpenAI API key'],
  ['anthropic', 'Anthropic', 'Your Anthropic API key'],
];

/** The provider a status label stands for (the host sends labels such as "OpenAI-compatible endpoint"). */
function providerIdOf(label: string | undefined): PanelProviderId | undefined {
  if (!label) return undefined;
  if (/compatible|ollama|lm studio/i.test(label)) return 'openai-compatible';
  if (/vs ?code|copilot/i.test(label)) return 'vscode-lm';
  if (/anthropic/i.test(label)) return 'anthropic';
  if (/openai/i.test(label)) return 'openai';
  return undefined;
}

/**
 * The host's problem as the form says it: the form is the way to fix it, so no pointer to the palette's "Forge: Select
 * Model"; and "no VS Code chat model" once, as the reason the form opened on another provider.
 */
function formProblem(problem: string, noChatModel: boolean): string {
  if (noChatModel) return 'VS Code has no chat model to lend Forge: connect one below instead.';
  return problem
    .replace(/,? or run "Forge: Select Model"[^.]*\./i, '.')
    .replace(/\s*Run "Forge: Select Model"[^.]*\./i, '')
    .trim();
}

let uid = 0;

export class SetupForm {
  readonly el: HTMLElement;
  private provider: PanelProviderId = 'openai-compatible';
  private readonly select: HTMLSelectElement;
  private readonly fields: HTMLElement;
  private readonly result: HTMLElement;
  private readonly found: HTMLElement;
  private readonly intro: HTMLElement;
  private readonly cancel: HTMLElement;
  private baseUrl!: HTMLInputElement;
  private apiKey!: HTMLInputElement;
  private model!: HTMLInputElement;
  private models!: HTMLDataListElement;
  private checking = false;
  private checkingKey = '';
  /** The last Check connection's answer, for the endpoint it checked (Save does not keep one it just rejected). */
  private lastCheck: { key: string; ok: boolean; message: string } | undefined;
  /** The endpoint the user chose to save although its check failed (a second Save). */
  private saveAnyway: string | undefined;

  constructor() {
    const id = `setup-${++uid}`;
    this.select = h(
      'select',
      { id: `${id}-provider`, class: 'field-input' },
      ...PROVIDERS.map(([v, label]) => h('option', { value: v }, label)),
    ) as HTMLSelectElement;
    this.select.addEventListener('change', () => this.setProvider(this.select.value as PanelProviderId, true));
    this.fields = h('div', { class: 'setup-fields' });
    this.result = h('div', { class: 'check-result', role: 'status', 'aria-live': 'polite' });
    this.found = h('div', { class: 'local-found' });
    this.intro = h('p', { class: 'muted' });
    this.cancel = button('Cancel', { 'data-act': 'close_setup' });
    this.el = h(
      'section',
      { class: 'setup-card', hidden: true, 'aria-label': 'Set up a model' },
      h('h2', {}, icon('plug'), ' Connect a model'),
      this.intro,
      this.found,
      h(
        'label',
        { class: 'field', for: `${id}-provider` },
        h('span', { class: 'field-label' }, 'Provider'),
        this.select,
      ),
      this.fields,
      h(
        'div',
        { class: 'actions' },
        button('Save', { 'data-act': 'setup_save' }, 'primary'),
        button('Check connection', { 'data-act': 'setup_check' }),
        this.cancel,
      ),
      this.result,
    );
    this.setProvider(this.provider, false);
  }

  get open(): boolean {
    return !this.el.hidden;
  }

  /** Shows the form; `p` fills in what is known (the provider in use, why it is not usable). */
  show(p: ProviderStatus, canCancel: boolean): void {
    const wasOpen = this.open;
    this.el.hidden = false;
    this.cancel.hidden = !canCancel;
    const known = providerIdOf(p.provider);
    // The VS Code chat model is the default provider; with none installed the form opens on a local server.
    const noChatModel = known === 'vscode-lm' && !!p.problem;
    this.intro.replaceChildren(
      'Forge needs a language model: a local server, a VS Code chat model, or an API key.',
      p.problem ? h('span', { class: 'setup-problem' }, icon('info'), ' ', formProblem(p.problem, noChatModel)) : '',
    );
    if (!wasOpen) {
      if (known) this.setProvider(noChatModel ? 'openai-compatible' : known, false);
      // Look for a local server and list what the endpoint has, without waiting for a click.
      this.check();
    }
  }

  hide(): void {
    this.el.hidden = true;
  }

  focus(): void {
    this.select.focus();
  }

  private setProvider(p: PanelProviderId, check: boolean): void {
    this.provider = p;
    this.select.value = p;
    const id = `setup-${++uid}`;
    const field = (label: string, input: HTMLElement, hint?: string) =>
      h(
        'label',
        { class: 'field', for: input.id },
        h('span', { class: 'field-label' }, label),
        input,
        hint ? h('span', { class: 'field-hint muted' }, hint) : null,
      );
    this.baseUrl = h('input', {
      id: `${id}-url`,
      class: 'field-input',
      type: 'url',
      placeholder: 'http://127.0.0.1:11434/v1',
      spellcheck: 'false',
    }) as HTMLInputElement;
    this.apiKey = h('input', {
      id: `${id}-key`,
      class: 'field-input',
      type: 'password',
      autocomplete: 'off',
      placeholder: p === 'openai-compatible' ? 'Only if the server needs one' : "Stored in VS Code's secret storage",
    }) as HTMLInputElement;
    this.models = h('datalist', { id: `${id}-models` }) as HTMLDataListElement;
    this.model = h('input', {
      id: `${id}-model`,
      class: 'field-input',
      list: `${id}-models`,
      placeholder: 'Check connection lists the models',
      spellcheck: 'false',
    }) as HTMLInputElement;
    const rows: (HTMLElement | null)[] = [];
    if (p === 'openai-compatible')
      rows.push(
        h('p', { class: 'field-hint muted' }, PROVIDERS.find(([v]) => v === p)![2]),
        field('Base URL', this.baseUrl, 'Ends in /v1'),
        field('API key (optional)', this.apiKey),
      );
    if (p === 'openai' || p === 'anthropic') rows.push(field('API key', this.apiKey));
    if (p !== 'vscode-lm') rows.push(field('Model', this.model), this.models);
    else
      rows.push(
        h(
          'p',
          { class: 'muted' },
          PROVIDERS.find(([v]) => v === p)![2],
          '. ',
          h(
            'a',
            { 'data-act': 'action', 'data-action': 'select_model', role: 'button', tabindex: '0' },
            'Choose a model…',
          ),
        ),
      );
    this.fields.replaceChildren(...rows.filter((r): r is HTMLElement => r !== null));
    this.result.textContent = '';
    this.result.className = 'check-result';
    if (check) this.check();
  }

  /** What a check is about: the provider and its base URL. */
  private endpointKey(): string {
    return `${this.provider} ${this.baseUrl.value.trim()}`;
  }

  check(): void {
    // One check at a time per endpoint; a changed endpoint is checked at once (its answer is the one kept).
    if (this.checking && this.checkingKey === this.endpointKey()) return;
    this.checking = true;
    this.checkingKey = this.endpointKey();
    this.result.className = 'check-result';
    this.result.replaceChildren(icon('loading', undefined, 'codicon-modifier-spin'), ' Checking…');
    const baseUrl = this.baseUrl.value.trim();
    const apiKey = this.apiKey.value.trim();
    post({
      type: 'check_provider',
      provider: this.provider,
      ...(baseUrl ? { baseUrl } : {}),
      ...(apiKey ? { apiKey } : {}),
    });
  }

  save(): void {
    const baseUrl = this.baseUrl.value.trim();
    const apiKey = this.apiKey.value.trim();
    const model = this.model.value.trim();
    if (this.provider !== 'vscode-lm' && !model) {
      this.result.className = 'check-result bad';
      this.result.replaceChildren(icon('warning'), ' Pick a model first (Check connection lists them).');
      this.model.focus();
      return;
    }
    // An endpoint Check connection has just rejected is not saved on the first click: the user sees why first.
    const key = this.endpointKey();
    if (this.lastCheck?.key === key && !this.lastCheck.ok && this.saveAnyway !== key) {
      this.saveAnyway = key;
      this.result.className = 'check-result bad';
      this.result.replaceChildren(
        icon('warning'),
        ` Check connection failed for this endpoint (${this.lastCheck.message}). Fix it, or press Save again to keep it anyway.`,
      );
      return;
    }
    this.result.className = 'check-result';
    this.result.replaceChildren(icon('loading', undefined, 'codicon-modifier-spin'), ' Saving…');
    post({
      type: 'save_provider',
      provider: this.provider,
      ...(baseUrl ? { baseUrl } : {}),
      ...(model ? { model } : {}),
      ...(apiKey ? { apiKey } : {}),
    });
  }

  /** Uses a local server the host found: fills in its URL and first model. */
  useLocal(baseUrl: string, model: string | undefined): void {
    if (this.provider !== 'openai-compatible') this.setProvider('openai-compatible', false);
    this.baseUrl.value = baseUrl;
    if (model) this.model.value = model;
    this.check();
  }

  onCheck(r: CheckResult): void {
    this.checking = false;
    this.lastCheck = { key: this.checkingKey, ok: r.ok, message: r.message ?? (r.ok ? 'Connected' : 'Not reachable') };
    this.result.className = `check-result ${r.ok ? 'good' : 'bad'}`;
    this.result.replaceChildren(
      icon(r.ok ? 'pass' : 'warning'),
      ' ',
      r.message ?? (r.ok ? 'Connected.' : 'Not reachable.'),
    );
    if (r.models) {
      this.models.replaceChildren(...r.models.map((m) => h('option', { value: m })));
      if (!this.model.value && r.models.length) this.model.value = r.models[0]!;
    }
    if (r.local) {
      this.found.replaceChildren(
        ...r.local.map((s) =>
          h(
            'div',
            { class: 'found-row' },
            icon('vm'),
            h('span', {}, `${s.label} · ${s.models.length} model${s.models.length === 1 ? '' : 's'}`),
            button(
              'Use',
              { 'data-act': 'setup_use_local', 'data-base-url': s.baseUrl, 'data-model': s.models[0] ?? '' },
              'secondary',
            ),
          ),
        ),
      );
    }
  }
}
