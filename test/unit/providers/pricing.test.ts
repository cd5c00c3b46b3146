import assert from 'node:assert/strict';
import { costOf, priceFor } from '../../../src/core/model/pricing';
import { createModel, limitsFor, retryAfterMs } from '../../../src/providers';
import { TextModeModel } from '../../../src/core/tools/text-mode';

describe('pricing', () => {
  it('knows current OpenAI and Anthropic models, including dated snapshots', () => {
    assert.deepEqual(priceFor('openai', 'gpt-4o-2024-08-06'), { input: 2.5, output: 10, cacheRead: 1.25 });
    assert.deepEqual(priceFor('anthropic', 'claude-sonnet-4-5-20250929'), {
      input: 3,
      output: 15,
      cacheWrite: 3.75,
      cacheRead: 0.3,
    });
    assert.equal(priceFor('anthropic', 'claude-haiku-4-5')!.input, 1);
  });

  it('returns undefined for unknown models and providers (no made-up price)', () => {
    assert.equal(priceFor('openai', 'my-finetune'), undefined);
    assert.equal(priceFor('openai-compatible', 'llama3'), undefined);
    assert.equal(priceFor('anthropic', 'gpt-4o'), undefined);
  });

  it('applies user overrides by provider/model or model', () => {
    const overrides = { 'openai-compatible/llama3': { input: 0, output: 0 }, 'gpt-4o': { input: 1, output: 2 } };
    assert.deepEqual(priceFor('openai-compatible', 'llama3', overrides), { input: 0, output: 0 });
    assert.deepEqual(priceFor('openai', 'gpt-4o', overrides), { input: 1, output: 2 });
  });

  it('costs cached reads and writes at their own rates', () => {
    const price = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
    const usd = costOf(
      { inputTokens: 1_000_000, outputTokens: 100_000, cacheReadTokens: 500_000, cacheWriteTokens: 200_000 },
      price,
    );
    assert.ok(Math.abs(usd - (300_000 * 3 + 500_000 * 0.3 + 200_000 * 3.75 + 100_000 * 15) / 1e6) < 1e-9, String(usd));
    assert.equal(costOf({ inputTokens: 1000, outputTokens: 0 }, { input: 2, output: 8 }), 0.002);
  });
});

describe('createModel', () => {
  it('fills context window and output cap from the model table, with overrides and a 128k default', () => {
    assert.equal(createModel({ provider: 'openai', model: 'gpt-4.1', apiKey: 'k' }).info.contextWindow, 1_047_576);
    assert.equal(
      createModel({ provider: 'anthropic', model: 'claude-opus-4-5', apiKey: 'k' }).info.contextWindow,
      200_000,
    );
    const local = createModel({
      provider: 'openai-compatible',
      model: 'qwen2.5-coder:7b',
      baseUrl: 'http://127.0.0.1:1/v1',
    });
    assert.deepEqual(local.info, {
      provider: 'openai-compatible',
      model: 'qwen2.5-coder:7b',
      contextWindow: 128_000,
      maxOutputTokens: 8_192,
      nativeTools: true,
      images: false, // a coder model's name says nothing of vision
    });
    assert.equal(
      createModel({ provider: 'openai', model: 'x', apiKey: 'k', contextWindow: 32_000 }).info.contextWindow,
      32_000,
    );
    assert.equal(limitsFor('anthropic/claude-sonnet-4-5').contextWindow, 200_000);
  });

  it('wraps in text mode when nativeTools is false', () => {
    const m = createModel({
      provider: 'openai-compatible',
      model: 'llama3',
      baseUrl: 'http://127.0.0.1:1/v1',
      nativeTools: false,
    });
    assert.ok(m instanceof TextModeModel);
    assert.equal(m.info.nativeTools, false);
  });

  it('refuses configurations that cannot work, with a clear message', () => {
    assert.throws(() => createModel({ provider: 'openai-compatible', model: 'llama3' }), /needs a base URL/);
    assert.throws(() => createModel({ provider: 'openai', model: ' ' }), /no model name/);
  });
});

describe('retryAfterMs', () => {
  it('reads retry-after-ms, retry-after seconds and HTTP dates', () => {
    const h = (o: Record<string, string>) => new Headers(o);
    assert.equal(retryAfterMs(h({ 'retry-after-ms': '250' })), 250);
    assert.equal(retryAfterMs(h({ 'retry-after': '1.5' })), 1500);
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(
      retryAfterMs(h({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }), () => now),
      30_000,
    );
    assert.equal(retryAfterMs(h({ 'retry-after': 'soon' })), undefined);
    assert.equal(retryAfterMs(h({})), undefined);
  });
});
