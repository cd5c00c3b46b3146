export {
  ConcurrentChangeError,
  DiskEditApplier,
  NotPlainTextError,
  OutsideWorkspaceError,
  ReadOnlyFileError,
} from './disk-edit-applier';
export { NodeWorkspaceFs } from './node-fs';
export { HeadTailBuffer, NodeCommandRunner, processGroupAlive, type NodeCommandRunnerOptions } from './node-runner';
export { NodeMemoryFileIO } from './memory-file-io';
export { workerRegexScan } from './regex-scanner';
export { NodeTasksIO } from './tasks-io';
