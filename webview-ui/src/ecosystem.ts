// The compact ecosystem strip: MCP servers with their state and tool count ("Show MCP Servers" to manage them),
// the project rules in use (click to open, "Edit" for AGENTS.md), and MCP resources queued for the next message.
import type { EcosystemAction, EcosystemView, WebviewMessage } from '../../src/protocol/messages';
import { h } from './dom';
import './ecosystem.css';

/** The state the host gives a server that waits for the user's permission to start. */
const PERMISSION = 'needs_permission';

export class EcosystemStrip {
  readonly el: HTMLElement;
  private readonly open = new Set<string>();

  constructor(private readonly post: (m: WebviewMessage) => void) {
    this.el = h('div', { class: 'eco-strip', hidden: true, 'aria-label': 'MCP servers and project rules' });
    this.el.addEventListener('click', (e) => {
      const a = (e.target as HTMLElement).closest<HTMLElement>('[data-eco]');
      if (!a || !this.el.contains(a)) return;
      e.preventDefault();
      const action = a.dataset.eco as EcosystemAction;
      this.post({ type: 'ecosystem_action', action, ...(a.dataset.display ? { display: a.dataset.display } : {}) });
    });
    this.el.addEventListener(
      'toggle',
      (e) => {
        const d = e.target as HTMLDetailsElement;
        if (!d.dataset.key) return;
        if (d.open) this.open.add(d.dataset.key);
        else this.open.delete(d.dataset.key);
      },
      true,
    );
  }

  private link(label: string, action: EcosystemAction, display?: string): HTMLElement {
    return h(
      'a',
      { 'data-eco': action, ...(display ? { 'data-display': display } : {}), role: 'button', tabindex: '0' },
      label,
    );
  }

  private section(key: string, summary: string, rows: HTMLElement[]): HTMLElement {
    const d = h(
      'details',
      { 'data-key': key, open: this.open.has(key) },
      h('summary', {}, summary),
      h('ul', {}, ...rows),
    );
    return d;
  }

  render(view: EcosystemView): void {
    const parts: HTMLElement[] = [];
    if (view.mcp.length) {
      const running = view.mcp.filter((s) => s.state === 'running').length;
      const failing = view.mcp.filter((s) => s.state === 'error' || s.state === 'crashed').length;
      // A server waiting for the user's permission is a question, not a failure: amber, and the way to answer it.
      const waiting = view.mcp.filter((s) => s.state === PERMISSION);
      const summary = `MCP: ${view.mcp.length} server${view.mcp.length === 1 ? '' : 's'}${running ? `, ${running} running` : ''}${waiting.length ? `, ${waiting.length} waiting for you` : ''}${failing ? `, ${failing} failing` : ''}`;
      const rows = view.mcp.map((s) =>
        h(
          'li',
          { title: s.state === PERMISSION ? 'Waiting for your permission to start' : (s.error ?? s.state) },
          h('span', { class: `eco-dot eco-${s.state}` }),
          h('span', {}, s.name),
          h(
            'span',
            { class: 'muted' },
            `${s.state === PERMISSION ? 'waiting for your permission' : s.state}${s.tools !== undefined ? ` · ${s.tools} tools` : ''}`,
          ),
          s.error && s.state !== PERMISSION ? h('span', { class: 'eco-error-text' }, s.error) : null,
        ),
      );
      rows.push(
        h('li', {}, this.link('Manage…', 'show_mcp_servers'), this.link('Attach resource…', 'attach_resource')),
      );
      parts.push(this.section('mcp', summary, rows));
      for (const w of waiting)
        parts.push(h('span', { class: 'eco-ask' }, this.link(`Allow MCP server “${w.name}”…`, 'show_mcp_servers')));
    }
    const rules = view.rules;
    const ruleRows = rules.map((r) =>
      h(
        'li',
        {},
        this.link(r.display, 'open_rule', r.display),
        r.kind === 'nested' ? h('span', { class: 'muted' }, 'folder') : null,
        r.truncated ? h('span', { class: 'muted' }, 'truncated') : null,
      ),
    );
    // No rules is the usual case, not news: the strip says nothing (Forge: Edit Project Rules adds AGENTS.md).
    if (rules.length) {
      ruleRows.push(h('li', {}, this.link('Edit AGENTS.md', 'edit_rules')));
      parts.push(this.section('rules', `Rules in use: ${rules.length}`, ruleRows));
    }
    parts.push(...this.teamSections(view));
    if (view.attachments.length) {
      parts.push(
        h(
          'span',
          { class: 'muted', title: view.attachments.join('\n') },
          `Attached to next message: ${view.attachments.length}`,
        ),
      );
    }
    this.el.replaceChildren(...parts);
    this.el.hidden =
      !view.mcp.length && !rules.length && !view.attachments.length && !view.skills?.length && !view.agents?.length;
  }

  /** Skills (the ones this task loaded marked), custom agents, and the team's files that could not be used. */
  private teamSections(view: EcosystemView): HTMLElement[] {
    const out: HTMLElement[] = [];
    const skills = view.skills ?? [];
    const problems = view.teamProblems ?? [];
    if (skills.length || problems.length) {
      const loaded = skills.filter((s) => s.loaded);
      const rows = skills.map((s) =>
        h(
          'li',
          { class: s.loaded ? 'eco-loaded' : '' },
          h('span', { class: `codicon ${s.loaded ? 'codicon-pass-filled' : 'codicon-book'}`, 'aria-hidden': 'true' }),
          this.link(s.name, 'open_team_file', s.display),
          s.loaded ? h('span', { class: 'eco-badge' }, 'loaded') : null,
        ),
      );
      for (const p of problems)
        rows.push(
          h(
            'li',
            { title: p.reason },
            h('span', { class: 'eco-dot eco-error' }),
            h('span', {}, p.display),
            h('span', { class: 'eco-error-text' }, p.reason),
          ),
        );
      const summary = `Skills: ${skills.length}${loaded.length ? `, loaded: ${loaded.map((s) => s.name).join(', ')}` : ''}${problems.length ? `, ${problems.length} not used` : ''}`;
      out.push(this.section('skills', summary, rows));
    }
    const agents = view.agents ?? [];
    if (agents.length) {
      const rows = agents.map((a) =>
        h(
          'li',
          {},
          this.link(a.name, 'open_team_file', a.display),
          a.model ? h('span', { class: 'muted' }, a.model) : null,
        ),
      );
      out.push(this.section('agents', `Agents: ${agents.length}`, rows));
    }
    return out;
  }
}
