// The built-in denials of a simple command: the dangerous forms (command-dangers.ts), device writes, elevated
// privileges, disk-destroying programs and recursive changes to the system's or the user's root folders.
import { dangerousForm, type DangerContext } from './command-dangers';
import type { CommandPart } from './command-parse';
import { basename } from './command-parts';

const PRIVILEGE = new Set(['sudo', 'su', 'doas', 'pkexec', 'runas']);
const DESTRUCTIVE = /^(mkfs(\..*)?|fdisk|sfdisk|parted|wipefs|shutdown|reboot|halt|poweroff|mkswap|diskpart|format)$/;
/** Devices a command may write to. */
export const SAFE_DEVICES = /^\/dev\/(null|stdout|stderr|stdin|tty|zero|fd\/\d+)$/;

/** Why a simple command is refused outright (deny), or undefined. */
export function builtinDanger(p: CommandPart, dangers: DangerContext): string | undefined {
  const form = dangerousForm(p, dangers);
  if (form) return form;
  for (const w of p.writes) {
    if (w !== undefined && w.startsWith('/dev/') && !SAFE_DEVICES.test(w))
      return `\`${p.text}\` writes to the device ${w}.`;
  }
  const [name, ...args] = p.words;
  if (name === undefined) return undefined;
  const base = basename(name);
  if (PRIVILEGE.has(base))
    return `\`${p.text}\` asks for elevated privileges (${base}); Forge never runs commands as another user.`;
  if (DESTRUCTIVE.test(base)) return `\`${p.text}\` can destroy disks or stop the machine.`;
  const lit = args.filter((a): a is string => a !== undefined);
  if (base === 'dd' && lit.some((a) => /^of=\/dev\//.test(a) && !SAFE_DEVICES.test(a.slice(3))))
    return `\`${p.text}\` writes raw data to a device.`;
  if (base === 'rm' || base === 'chmod' || base === 'chown' || base === 'chgrp') {
    const recursive = lit.some((a) => /^-[a-zA-Z]*[rR]/.test(a) || a === '--recursive');
    const critical = lit.find((a) => isCriticalTarget(a));
    if (lit.includes('--no-preserve-root')) return `\`${p.text}\` disables rm's root protection.`;
    if (recursive && critical) return `\`${p.text}\` recursively changes or deletes ${critical}.`;
  }
  return undefined;
}

function isCriticalTarget(a: string): boolean {
  const t = a.replace(/\/+$/, '') || '/';
  if (
    t === '/' ||
    t === '/*' ||
    t === '~' ||
    t === '~/*' ||
    t === '$HOME' ||
    t === '.' ||
    t === '..' ||
    t === '*' ||
    t === '/.'
  )
    return true;
  if (/^[A-Za-z]:[\\/]?\*?$/.test(t)) return true;
  return /^\/(bin|boot|dev|etc|home|lib|lib64|opt|proc|root|sbin|sys|usr|var|Users|System|Library)(\/\*)?$/.test(t);
}
