// Loop-breaking tools: they end the run and hand control to the user. The loop reads their input directly.
import * as z from 'zod';
import type { Tool } from './types';

const taskCompletionInput = z.object({
  result: z.string().min(1).describe('What was done and the outcome, for the user. Markdown allowed.'),
});

const askQuestionInput = z.object({
  question: z.string().min(1).describe('One clear question for the user.'),
  choices: z.array(z.string().min(1)).optional().describe('Optional suggested answers the user can pick from.'),
});

const converseInput = z.object({
  reply: z.string().min(1).describe('Your reply to the user (no task work is needed).'),
});

export const taskCompletionTool: Tool<typeof taskCompletionInput> = {
  name: 'task_completion',
  description:
    'Call when the task is finished (and verified where possible). Ends the run and shows the result to the user.',
  input: taskCompletionInput,
  risk: 'read',
  loopControl: 'done',
  async execute(input) {
    return { content: input.result };
  },
};

export const askQuestionTool: Tool<typeof askQuestionInput> = {
  name: 'ask_question',
  description:
    'Ask the user a question when you are blocked or a decision is theirs to make. Ends the run until the user answers.',
  input: askQuestionInput,
  risk: 'read',
  loopControl: 'asked',
  async execute(input) {
    return { content: input.question };
  },
};

export const converseTool: Tool<typeof converseInput> = {
  name: 'converse',
  description: 'Reply conversationally when the message needs an answer rather than work in the workspace.',
  input: converseInput,
  risk: 'read',
  loopControl: 'converse',
  async execute(input) {
    return { content: input.reply };
  },
};

export const loopControlTools: readonly Tool[] = [
  taskCompletionTool as unknown as Tool,
  askQuestionTool as unknown as Tool,
  converseTool as unknown as Tool,
];

/** The user-facing text of a loop-control call (the result, the question with choices, the reply). */
export function loopControlText(toolName: string, input: unknown): string {
  const data = (input ?? {}) as Record<string, unknown>;
  switch (toolName) {
    case 'task_completion':
      return String(data.result ?? '');
    case 'ask_question': {
      const choices =
        Array.isArray(data.choices) && data.choices.length ? `\nChoices: ${data.choices.join(' | ')}` : '';
      return `${String(data.question ?? '')}${choices}`;
    }
    case 'converse':
      return String(data.reply ?? '');
    default:
      return '';
  }
}
