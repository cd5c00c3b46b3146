export { NodeEditApplier, NodeWorkspaceFs } from './node-fs';
export { HeadTailBuffer, NodeCommandRunner, type NodeCommandRunnerOptions } from './node-runner';
