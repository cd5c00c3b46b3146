// vsce makes the README's relative links absolute; it only guesses the base for GitHub/GitLab remotes, so give it
// the repository from package.json (as it would for GitHub). Shared by `npm run package` and the VSIX benchmark.
export function vsceBaseArgs(pkg) {
  const base = `${String(pkg.repository?.url ?? pkg.repository ?? '').replace(/\.git$/, '')}/blob/HEAD/`;
  return /^https?:\/\//.test(base) ? ['--baseContentUrl', base, '--baseImagesUrl', base] : [];
}
