// The shared endpoint builder both surfaces use (the extension's ModelFactory and the CLI): the image setting
// overrides what the model is known to take, and a missing key or base URL is said in the surface's words.
import assert from 'node:assert/strict';
import { buildEndpointModel, type EndpointModelDeps } from '../../../../src/node/surface/model';
import type { SurfaceSettings } from '../../../../src/node/surface/settings';
import { startLlmServer, type LlmServer } from '../../../support/llm-server';

const controls: EndpointModelDeps['controls'] = {
  setApiKey: 'run "Forge: Set API Key"',
  selectModel: 'run "Forge: Select Model" (setting forge.model)',
  setBaseUrl: 'Set forge.baseUrl to your endpoint',
  contextWindow: 'forge.contextWindow',
  toolCallFormat: 'forge.toolCallFormat',
};

function settings(
  baseUrl: string,
  extra: Omit<Partial<SurfaceSettings>, 'provider'> = {},
): SurfaceSettings & { provider: 'openai' } {
  return {
    provider: 'openai',
    model: 'gpt-4.1',
    baseUrl,
    mode: 'agent',
    maxIterations: undefined,
    costBudgetUsd: 0,
    tokenBudget: 0,
    timeBudgetMinutes: 0,
    streamIdleTimeoutSeconds: 0,
    fallbackModel: '',
    maxOutputTokens: 4096,
    temperature: undefined,
    thinkingBudgetTokens: 0,
    toolCallFormat: 'native',
    contextWindow: 0,
    ...extra,
  };
}

describe('node/surface buildEndpointModel', () => {
  let srv: LlmServer;
  before(async () => {
    srv = await startLlmServer();
  });
  after(() => srv.close());
  const deps = (): EndpointModelDeps => ({ apiKey: () => 'sk-test', controls, timeoutMs: 2000 });

  it('imageInput on / off overrides what the model takes; auto and unset leave it to the model', async () => {
    const images = async (imageInput?: SurfaceSettings['imageInput']) =>
      (await buildEndpointModel(settings(srv.openaiBaseUrl, { imageInput }), deps())).model?.info.images;
    assert.equal(await images('on'), true);
    assert.equal(await images('off'), false);
    assert.equal(await images('auto'), await images(undefined));
  });

  it("says what to do in the surface's words: no key, no base URL", async () => {
    const noKey = await buildEndpointModel(settings(srv.openaiBaseUrl), { ...deps(), apiKey: () => undefined });
    assert.equal(noKey.model, undefined);
    assert.equal(noKey.problem, 'No API key for OpenAI: run "Forge: Set API Key".');
    assert.equal(noKey.modelName, 'gpt-4.1');
    const compat = { ...settings(''), provider: 'openai-compatible' as const };
    const noUrl = await buildEndpointModel(compat, deps());
    assert.equal(noUrl.problem, 'Set forge.baseUrl to your endpoint (e.g. http://localhost:11434/v1 for Ollama).');
    const noName = await buildEndpointModel({ ...compat, model: '', baseUrl: srv.openaiBaseUrl }, deps());
    assert.equal(
      noName.problem,
      'Set the model name for the OpenAI-compatible endpoint: run "Forge: Select Model" (setting forge.model).',
    );
  });
});
