// Storage failures are loud and safe (docs/DESIGN-durability.md): the first failure of a save or a journal write
// since the last success puts a warning in the panel (not just the log); the first success after that says that
// everything is saved again. Repeats stay in the log, so a full disk does not flood the conversation.
import type { Logger } from '../logger';
import { errorText } from '../../core/error-text';

interface StorageHealthOptions {
  /** Shows a message in the panel (the current task's transcript); `resolved` when nothing fails any more. */
  show(message: string, resolved?: boolean): void;
  log: Logger;
  /** Where Forge stores its data, named in the warning. */
  storageDir?: string;
}

/** What a failure of this record means for the user, where it is not "the conversation waits in memory". */
const CONSEQUENCE: Record<string, string> = {
  'the edit journal': 'Edits are not applied until it can (Undo could not revert them). ',
  'the audit log': 'Audit lines wait in memory and are written, in order, as soon as it can. ',
};

export class StorageHealth {
  /** What is failing now, with the first error. */
  private readonly failing = new Map<string, string>();

  constructor(private readonly opts: StorageHealthOptions) {}

  get ok(): boolean {
    return this.failing.size === 0;
  }

  failed(what: string, err: unknown, consequence?: string): void {
    const reason = errorText(err);
    this.opts.log.error(`Forge could not write ${what}: ${reason}`);
    if (this.failing.has(what)) return;
    this.failing.set(what, reason);
    const where = this.opts.storageDir ? ` (${this.opts.storageDir})` : '';
    this.opts.show(
      `Forge cannot write ${what} to its storage folder${where}: ${reason}. ` +
        (consequence ??
          CONSEQUENCE[what] ??
          'Your conversation is kept in memory and saved as soon as writing works again; do not close VS Code until then. ') +
        "Free some disk space or check the folder's permissions.",
    );
  }

  succeeded(what: string): void {
    if (!this.failing.delete(what)) return;
    this.opts.log.info(`Forge can write ${what} again.`);
    // "Everything is saved" only while nothing else fails: the audit log can recover before the task history.
    const still = [...this.failing.keys()];
    if (still.length) this.opts.show(`Forge can write ${what} again, but still not ${still.join(' or ')}.`);
    else this.opts.show(`Forge can write ${what} again; everything is saved.`, true);
  }
}
