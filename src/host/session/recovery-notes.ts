// The words the panel uses for durability events: a damaged task kept aside, old tasks archived, a task open in
// another window, what a restore found after a crash. One place, so the messages stay consistent and testable.
import type { LeaseInfo } from '../../node/lease';
import type { StoreNotice } from '../../core/tasks/task-store';
import { plural } from '../../core/plural';

export function describeNotice(n: StoreNotice): string {
  if (n.kind === 'archived') {
    const names = n.titles
      .slice(0, 5)
      .map((t) => `"${t}"`)
      .join(', ');
    const more = n.titles.length > 5 ? ` and ${n.titles.length - 5} more` : '';
    return (
      `Forge archived ${plural(n.ids.length, 'old task')} to keep the history at ${n.limit} (setting forge.history.maxTasks): ${names}${more}. ` +
      `Nothing was deleted: they are in ${n.dir}.`
    );
  }
  const name = n.title ? `"${n.title}"` : `task ${n.id}`;
  const kept = n.keptAt
    ? ` The damaged file was kept as ${n.keptAt}.`
    : ' The damaged file could not be moved aside (see the Forge log).';
  const what = !n.recovered
    ? ' Nothing of it could be recovered, so it left the history.'
    : n.recovered.rebuilt
      ? ` Forge recovered everything up to the damage: ${plural(n.recovered.messages, 'message')} of the conversation; the panel's own items could not be read, so this task's view was rebuilt from the saved conversation (tool rows show only the results it saved). Anything after the damage is lost.`
      : ` Forge recovered everything up to the damage: ${plural(n.recovered.messages, 'message')} of the conversation and ${plural(n.recovered.transcriptItems, 'panel item')}; anything after it is lost.`;
  return `The saved state of ${name} is damaged (${n.reason}).${what}${kept}`;
}

export function openElsewhere(holder: LeaseInfo, asError: boolean): string {
  const since =
    Number.isFinite(holder.at) && holder.at > 0 ? ` (active ${new Date(holder.at).toLocaleTimeString()})` : '';
  const who = holder.label ? `another VS Code window (${holder.label})${since}` : `another VS Code window${since}`;
  return asError
    ? `This task is open in ${who}. Continue it there, or close it there (open another task or a new one) and try again; if that window crashed, Forge takes the task over within 30 seconds.`
    : `It stays with ${who}; open it from History once that window let go of it.`;
}

/**
 * What a restore found, for the panel (one notice with Continue when the run was cut off; see TaskSession.restore).
 * `running` false: no run was cut off (a checkpoint restore was, say), so the note does not say one was.
 */
export function reloadNote(notes: readonly string[], running = true): string {
  const when = running ? ' while this task was running' : '';
  return `Forge was reloaded${when}. It checked the disk and the journal:\n- ${notes.join('\n- ')}`;
}
