import assert from 'node:assert/strict';
import { Policy } from '../../../../src/core/safety/policy';
import { isToolAllowedInMode, MODES } from '../../../../src/core/modes';

describe('core/safety policy', () => {
  it('defaults: read allow, write/execute/network ask', () => {
    const p = new Policy();
    assert.equal(p.decide({ name: 'a', risk: 'read' }).action, 'allow');
    assert.equal(p.decide({ name: 'b', risk: 'write' }).action, 'ask');
    assert.equal(p.decide({ name: 'c', risk: 'execute' }).action, 'ask');
    assert.equal(p.decide({ name: 'd', risk: 'network' }).action, 'ask');
  });

  it('per-tool overrides beat the risk class; deny beats allow-for-task', () => {
    const p = new Policy({
      byRisk: { read: 'allow', write: 'deny', execute: 'ask', network: 'ask' },
      byTool: { write_file: 'allow', rm: 'deny' },
    });
    assert.equal(p.decide({ name: 'write_file', risk: 'write' }).action, 'allow');
    assert.equal(p.decide({ name: 'other', risk: 'write' }).action, 'deny');
    assert.equal(p.decide({ name: 'rm', risk: 'execute' }, new Set(['rm'])).action, 'deny');
    assert.equal(p.decide({ name: 'sh', risk: 'execute' }, new Set(['sh'])).action, 'allow');
  });
});

describe('core/modes', () => {
  it('has the documented limits', () => {
    assert.equal(MODES.agent.maxIterations, 25);
    assert.equal(MODES.plan.maxIterations, 20);
    assert.equal(MODES.implement.maxIterations, 50);
    assert.equal(MODES.review.maxIterations, 10);
    assert.equal(MODES.test.maxIterations, 5);
    assert.equal(MODES.deploy.maxIterations, 3);
  });

  it('plan mode allows read tools and loop control only', () => {
    assert.equal(isToolAllowedInMode(MODES.plan, { name: 'read_file', risk: 'read' }), true);
    assert.equal(isToolAllowedInMode(MODES.plan, { name: 'write_file', risk: 'write' }), false);
    assert.equal(isToolAllowedInMode(MODES.plan, { name: 'task_completion', risk: 'read', loopControl: 'done' }), true);
    assert.equal(isToolAllowedInMode(MODES.test, { name: 'execute_command', risk: 'execute' }), true);
  });
});
