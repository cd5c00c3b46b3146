// Pure helpers that turn loop data into what the panel shows: one-line arg summaries, capped previews,
// diff summaries, and the buttons a run end offers. Everything here fits the protocol's size limits.
import { createPatch } from 'diff';
import type { TerminationReason } from '../core/loop/events';
import { hunkViews, splitHunks } from '../core/review/hunks';
import type { ApprovalPreview } from '../core/tools/types';
import { LIMITS, type Action, type ApprovalPreviewView, type HunkView } from '../protocol/messages';

export function cap(text: string, max: number): { text: string; truncated: boolean } {
  return text.length <= max ? { text, truncated: false } : { text: text.slice(0, max), truncated: true };
}

/** Keeps the end of a growing text (terminal output): the latest lines matter most. */
export function tail(text: string, max: number): string {
  return text.length <= max ? text : '…' + text.slice(text.length - max + 1);
}

/** Protocol ids are printable ASCII without spaces; model-made ids may not be. */
export function safeId(id: string): string {
  const cleaned = id.replace(/[^\x21-\x7e]/g, '_').slice(0, LIMITS.id);
  return cleaned.length > 0 ? cleaned : '_';
}

const SUMMARY_KEYS = [
  'path',
  'file',
  'filePath',
  'command',
  'query',
  'regex',
  'pattern',
  'url',
  'question',
  'result',
  'reply',
  'goal',
  'task',
];

export function summarizeArgs(args: unknown, max = 160): string {
  if (args === undefined) return '';
  if (args !== null && typeof args === 'object' && !Array.isArray(args)) {
    const rec = args as Record<string, unknown>;
    for (const k of SUMMARY_KEYS) {
      const v = rec[k];
      if (typeof v === 'string' && v.length > 0) return oneLine(v, max);
    }
  }
  let json: string;
  try {
    json = JSON.stringify(args) ?? '';
  } catch {
    json = String(args);
  }
  return oneLine(json, max);
}

function oneLine(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : flat.slice(0, max - 1) + '…';
}

export function prettyArgs(args: unknown, max: number): string {
  let text: string;
  try {
    text = args === undefined ? '' : (JSON.stringify(args, null, 2) ?? String(args));
  } catch {
    text = String(args);
  }
  return cap(text, max).text;
}

/** The panel's view of an approval preview: the diff editor shows the whole thing, the card a capped diff. */
export function previewView(preview: ApprovalPreview | undefined, diffChars: number): ApprovalPreviewView | undefined {
  if (!preview) return undefined;
  switch (preview.kind) {
    case 'command':
      return {
        kind: 'command',
        command: cap(preview.command, LIMITS.preview).text,
        cwd: preview.cwd?.slice(0, LIMITS.path),
        ...(preview.grant ? { grant: preview.grant.slice(0, LIMITS.path) } : {}),
        ...(preview.containment ? { containment: preview.containment.slice(0, LIMITS.path) } : {}),
      };
    case 'generic':
      return { kind: 'generic', summary: cap(preview.summary, LIMITS.preview).text };
    case 'edit': {
      // A timeout keeps a pathological diff from blocking the extension host; counts are then unknown (0).
      const patch = createPatch(preview.displayPath ?? preview.path, preview.original, preview.proposed, '', '', {
        context: 3,
        timeout: 250,
      });
      let added = 0;
      let removed = 0;
      let body = '';
      if (patch !== undefined) {
        const lines = patch.split('\n');
        const start = lines.findIndex((l) => l.startsWith('@@'));
        const hunks = start >= 0 ? lines.slice(start) : [];
        for (const l of hunks) {
          if (l.startsWith('+')) added++;
          else if (l.startsWith('-')) removed++;
        }
        body = hunks.join('\n');
      }
      const { text, truncated } = cap(body, Math.min(diffChars, LIMITS.preview));
      return {
        kind: 'edit',
        path: preview.path.slice(0, LIMITS.path),
        displayPath: preview.displayPath?.slice(0, LIMITS.path),
        isNewFile: preview.isNewFile,
        added,
        removed,
        diff: text,
        diffTruncated: truncated || patch === undefined,
        ...editHunks(preview),
      };
    }
  }
}

export function approvalSummary(toolName: string, args: unknown, preview: ApprovalPreview | undefined): string {
  if (preview?.kind === 'edit')
    return `${preview.isNewFile ? 'Create' : 'Edit'} ${preview.displayPath ?? preview.path}`;
  if (preview?.kind === 'command') return `Run: ${oneLine(preview.command, 200)}`;
  if (preview?.kind === 'generic') return oneLine(preview.summary, 200);
  const s = summarizeArgs(args, 200);
  return s ? `${toolName}: ${s}` : toolName;
}

/** What the user can do next after a run ends, by reason. */
export function runEndActions(reason: TerminationReason, detail: string): Action[] {
  switch (reason) {
    case 'done':
    case 'asked':
    case 'converse':
      return [];
    case 'stopped':
    case 'max_iterations':
      return ['continue'];
    case 'breaker':
    case 'stagnation':
    case 'guardrail':
      return ['continue', 'new_task'];
    case 'error':
      if (/api[ _-]?key|unauthori[sz]ed|\b401\b|\b403\b|authentication/i.test(detail))
        return ['set_api_key', 'select_model', 'show_logs'];
      if (/model.*(not found|unknown|unavailable)|\b404\b|Select Model/i.test(detail))
        return ['select_model', 'retry', 'show_logs'];
      // Unreachable endpoint, timeouts, server errors: try again, or fix the setting that points at it.
      if (/^Model error/.test(detail)) return ['retry', 'open_settings', 'show_logs'];
      return ['retry', 'show_logs'];
  }
}

/** The per-hunk review list of an edit (all pending at first); one hunk needs no list. */
function editHunks(preview: Extract<ApprovalPreview, { kind: 'edit' }>): { hunks?: HunkView[] } {
  const original = preview.isNewFile ? '' : preview.original;
  const hunks = splitHunks(original, preview.proposed);
  return hunks.length > 1 ? { hunks: hunkViews(original, hunks) } : {};
}
