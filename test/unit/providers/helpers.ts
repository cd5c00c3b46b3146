import type { Model, ModelEvent, ModelRequest } from '../../../src/core/model/types';
import { createModel, type ProviderConfig } from '../../../src/providers';
import type { LlmServer } from '../../support/llm-server';

export async function collect(model: Model, request: Partial<ModelRequest> = {}): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const ev of model.stream(baseRequest(request))) events.push(ev);
  return events;
}

export async function collectError(
  model: Model,
  request: Partial<ModelRequest> = {},
): Promise<{ events: ModelEvent[]; error: any }> {
  const events: ModelEvent[] = [];
  try {
    for await (const ev of model.stream(baseRequest(request))) events.push(ev);
  } catch (error) {
    return { events, error };
  }
  throw new Error(`expected the stream to throw; got ${JSON.stringify(events)}`);
}

export function baseRequest(request: Partial<ModelRequest>): ModelRequest {
  return {
    system: [{ id: 'role', text: 'You are Forge.', stable: true }],
    messages: [{ role: 'user', content: 'hi' }],
    tools: [],
    signal: new AbortController().signal,
    ...request,
  };
}

export const PROVIDERS = ['openai', 'anthropic'] as const;

export function modelFor(srv: LlmServer, provider: 'openai' | 'anthropic', extra: Partial<ProviderConfig> = {}): Model {
  return createModel({
    provider,
    model: provider === 'openai' ? 'gpt-4o' : 'claude-sonnet-4-6',
    apiKey: 'test-key',
    baseUrl: provider === 'openai' ? srv.openaiBaseUrl : srv.anthropicBaseUrl,
    ...extra,
  });
}

export const text = (events: ModelEvent[]) => events.flatMap((e) => (e.type === 'text' ? [e.delta] : [])).join('');
export const thinking = (events: ModelEvent[]) =>
  events.flatMap((e) => (e.type === 'thinking' ? [e.delta] : [])).join('');
export const ofType = <T extends ModelEvent['type']>(events: ModelEvent[], type: T) =>
  events.filter((e): e is Extract<ModelEvent, { type: T }> => e.type === type);
