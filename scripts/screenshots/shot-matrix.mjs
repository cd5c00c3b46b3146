// The themes and side-bar widths a screenshot script walks through, narrowed by FORGE_SHOTS_THEMES (light, dark,
// hc-dark, hc-light) and FORGE_SHOTS_WIDTHS (300,600). Themes are picked from the palette by label, with their
// kind: a settings id such as "Default High Contrast" came up as High Contrast Light.
const ALL = {
  light: ['Light Modern', 'vs'],
  dark: ['Dark Modern', 'vs-dark'],
  'hc-dark': ['Dark High Contrast', 'hc-black'],
  'hc-light': ['Light High Contrast', 'hc-light'],
};

/** [name, [palette label, theme kind]] for each theme asked for. */
export const THEMES = Object.entries(ALL).filter(
  ([k]) => !process.env.FORGE_SHOTS_THEMES || process.env.FORGE_SHOTS_THEMES.split(',').includes(k),
);

/** Side-bar widths in px, or `fallback` when FORGE_SHOTS_WIDTHS is unset. */
export function widths(env = 'FORGE_SHOTS_WIDTHS', fallback = '300,600') {
  return (process.env[env] ?? fallback).split(',').map(Number);
}
