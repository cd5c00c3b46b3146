// Syntax highlighting for code blocks: highlight.js core with a dozen common languages (not the 190-language
// default build), coloured by VS Code's own theme variables (styles.css .hljs-*). hljs escapes the code it is
// given and emits only <span class="hljs-…"> around it.
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const LANGS = { bash, css, diff, go, java, javascript, json, python, rust, typescript, xml, yaml };
for (const [name, lang] of Object.entries(LANGS)) hljs.registerLanguage(name, lang);
hljs.registerAliases(['sh', 'shell', 'zsh', 'console'], { languageName: 'bash' });
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' });

/** Above this a block stays plain: highlighting is for reading, not worth a long frame. */
const MAX_CHARS = 20_000;

/** Highlights a <code class="language-x"> in place when x is known; unknown or huge code stays plain text. */
export function highlightCode(code: Element): void {
  const lang = /language-([\w+#-]+)/.exec(code.className)?.[1]?.toLowerCase();
  const text = code.textContent ?? '';
  if (!lang || !hljs.getLanguage(lang) || text.length > MAX_CHARS) return;
  try {
    code.innerHTML = hljs.highlight(text, { language: lang, ignoreIllegals: true }).value;
    code.classList.add('hljs');
  } catch {
    /* keep the plain text */
  }
}
