// Checked values for forge.* settings: settings.json can hold anything, and a value Forge cannot use as written is
// replaced (clamped into its range, or the default) and recorded, so the user is told what is in effect instead of
// finding out later. The bounds are package.json's (a unit test keeps the two equal).

/** A setting whose written value is not the value in effect, and why. */
export interface SettingAdjustment {
  key: string;
  given: unknown;
  used: unknown;
  why: string;
}

export interface NumberSpec {
  fallback: number;
  minimum?: number;
  maximum?: number;
  integer?: boolean;
}

/** The bounds of the numeric forge.* settings read by readSettings (keys without the "forge." prefix). */
export const NUMBER_SETTINGS = {
  costBudgetUsd: { fallback: 2, minimum: 0 },
  tokenBudget: { fallback: 2_000_000, minimum: 0, integer: true },
  streamIdleTimeoutSeconds: { fallback: 90, minimum: 0 },
  timeBudgetMinutes: { fallback: 30, minimum: 0 },
  maxOutputTokens: { fallback: 8192, minimum: 256, integer: true },
  thinkingBudgetTokens: { fallback: 0, minimum: 0, integer: true },
  commandTimeoutSeconds: { fallback: 120, minimum: 1 },
  commandOutputCapChars: { fallback: 20_000, minimum: 1000, integer: true },
  'reflection.budgetUsd': { fallback: 0.05, minimum: 0 },
  'history.maxTasks': { fallback: 1000, minimum: 10, integer: true },
  contextWindow: { fallback: 0, minimum: 0, integer: true },
} satisfies Record<string, NumberSpec>;

const show = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v) : String(v));

/**
 * The number in effect for a setting: unset -> the default, silently; not a number -> the default; out of range ->
 * the nearest bound (what the user most likely meant); each replacement recorded in `adjusted`.
 */
export function checkedNumber(key: string, raw: unknown, spec: NumberSpec, adjusted: SettingAdjustment[]): number {
  if (raw === undefined || raw === null) return spec.fallback;
  if (typeof raw !== 'number' || !Number.isFinite(raw)) {
    adjusted.push({ key, given: raw, used: spec.fallback, why: `${show(raw)} is not a number` });
    return spec.fallback;
  }
  let value = spec.integer ? Math.floor(raw) : raw;
  if (spec.minimum !== undefined && value < spec.minimum) {
    adjusted.push({ key, given: raw, used: spec.minimum, why: `${show(raw)} is below its minimum of ${spec.minimum}` });
    value = spec.minimum;
  } else if (spec.maximum !== undefined && value > spec.maximum) {
    adjusted.push({ key, given: raw, used: spec.maximum, why: `${show(raw)} is above its maximum of ${spec.maximum}` });
    value = spec.maximum;
  }
  return value;
}

/** One of `allowed`; anything else (unset is silent) -> `fallback`, recorded. */
export function checkedChoice<T extends string>(
  key: string,
  raw: unknown,
  allowed: readonly T[],
  fallback: T,
  adjusted: SettingAdjustment[],
): T {
  if (allowed.includes(raw as T)) return raw as T;
  if (raw !== undefined && raw !== null && raw !== '')
    adjusted.push({ key, given: raw, used: fallback, why: `${show(raw)} is not one of ${allowed.join(', ')}` });
  return fallback;
}

/** What to tell the user about one adjustment: the setting, why, and the value Forge uses instead. */
export function describeAdjustment(a: SettingAdjustment): string {
  return `Setting forge.${a.key}: ${a.why}, so Forge uses ${show(a.used)}.`;
}
