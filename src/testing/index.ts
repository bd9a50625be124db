/** Model-based testing helpers for the charts (docs/ARCHITECTURE.md, "Testing from the charts"), for this project's tests and for users'. */
export {
  createServerTestModel,
  delayedEventsOf,
  serializeServerState,
  configError,
  transientError,
  timedOutError,
  SERVER_MODEL_INPUT,
  type DelayedEvent,
  type ServerActorEvent,
  type ServerModelEvent,
  type ServerTestModel,
  type ServerTestModelOptions,
} from './server-test-model.js';
export { createScriptedServer, ReplayClock, flush, type ScriptedServer, type ScriptedServerOptions } from './scripted-server.js';
export { declaredSends, describeSend } from './declared-sends.js';
export { CoverageRecorder, chartStateIds, chartTransitions, transitionKey, type CoverageReport } from './coverage.js';
export { createFakeSession, FAKE_MANIFEST, FAKE_RESOURCE_RESULT, FAKE_TOOL_RESULT } from './fake-session.js';
export {
  createRegistryTestModel,
  modelServers,
  serializeRegistryState,
  MODEL_SERVERS,
  type RegistryModelEvent,
  type RegistrySnapshot,
  type RegistryTestModel,
  type RegistryTestModelOptions,
} from './registry-test-model.js';
export {
  createChartTestModel,
  invokeOutcomesOf,
  replayPath,
  transitionTours,
  type ChartTestModelOptions,
  type InvokeOutcomeEvent,
  type ReplayOptions,
} from './chart-model.js';
export { registryReplies, type RegistryRepliesOptions } from './registry-replies.js';
export {
  createScriptedRegistry,
  type RegistryScript,
  type ScriptedLoadOutcome,
  type ScriptedManifest,
  type ScriptedOutcome,
  type ScriptedRegistry,
  type ScriptedServerScript,
} from './scripted-registry.js';
export type { ScriptedAnswer, ScriptedAsk, ScriptedProgress } from './scripted-asks.js';
export { silentRegistryLogic } from './silent-registry.js';
