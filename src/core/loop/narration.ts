// Narration without action: a reply that announces what the model will do next ("I'll look into the failing
// tests.") but calls no tool has not finished the task. Weaker and local models often narrate first; the loop nudges
// them once instead of ending the run. A plain answer, an offer or a question to the user is never an announcement.

export const ACT_NUDGE =
  '[Forge] You said what you will do next but called no tool. Do it now with a tool call, or call task_completion ' +
  'if the task is done, ask_question if you need the user, or converse to simply reply.';

/** First person about to act: "I'll", "I will", "I'm going to", "Let me", "Let's", "Now I", "Next, I need to". */
const INTENT = String.raw`(?:i'?ll|i will|i'm going to|i am going to|i'm gonna|let me|let's|let us|i need to|i should|i'm about to|i am about to|(?:now|next|first|then),? i(?:'ll| will| need to| am going to|'m going to)?)`;

/** What a tool does: reading, searching, running, editing. Not "explain" or "summarise": those are the answer. */
const ACTION = String.raw`(?:(?:now|first|then|next|quickly|also|go ahead and|start by|begin by|proceed to|try to)\s+)*(?:check|look|read|open|run|inspect|examine|search|find|grep|list|scan|start|begin|fix|update|edit|write|create|implement|add|modify|change|investigate|explore|review|analy[sz]e|try|proceed|make|refactor|rewrite|test|verify|install|build|debug|dig|trace|locate|see what|take a look|go through|compile|execute|apply|remove|delete|rename|move|set up|configure|patch)\b`;

const ANNOUNCE = new RegExp(String.raw`(?:^|[\s("'*_])${INTENT}\s+${ACTION}`, 'i');

/** Phrases that look like intent but hand the turn to the user. */
const HANDS_BACK =
  /\b(?:let me know|if you(?:'d)? (?:like|want|prefer)|would you like|do you want|shall i|should i\b[^.]*\?|happy to|feel free)\b/i;

/** The sentence or two a reply ends with: narration announces at its end ("…. Let me check the config."). */
function tail(text: string): string {
  const trimmed = text.trim().replace(/```[\s\S]*?```/g, ' ');
  const paragraphs = trimmed.split(/\n\s*\n/);
  const last = paragraphs[paragraphs.length - 1] ?? '';
  const sentences = last.split(/(?<=[.!])\s+/);
  return sentences.slice(-2).join(' ').replace(/[’‘]/g, "'");
}

/**
 * true when `text` ends by announcing an action the model has not taken (so the run should nudge it to act),
 * false for a plain answer, an offer ("If you want, I'll add tests."), a question, or an empty reply.
 */
export function announcesAction(text: string): boolean {
  const end = tail(text);
  if (!end) return false;
  // A reply that ends with a question waits for the user.
  if (/\?\s*["')*_]*$/.test(end)) return false;
  // "Here's what I'll do:" / "Let me check:" — the action was meant to follow.
  const colon = /:\s*$/.test(end);
  const sentences = end.split(/(?<=[.!:])\s+/);
  return sentences.some(
    (s) =>
      !HANDS_BACK.test(s) &&
      (ANNOUNCE.test(s) || (colon && s === sentences.at(-1) && /\b(?:i'?ll|i will|let me|let's)\b/i.test(s))),
  );
}
