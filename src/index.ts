/**
 * eofd as a library: the policies (EOFD-MLogB, OFUL-MLogB, Random) for an application's own loop,
 * and the experiment machinery (configs, the runner, result readers) the CLI is a skin over.
 *
 *   const policy = createPolicy('EOFD-MLogB', policySpec({ d, K, reward: [0, 0.5, 1] }));
 *   const i = policy.select({ count, d, features }, t);   // play action i
 *   policy.update(features.subarray(i * d, (i + 1) * d), outcome);
 *   const bytes = snapshotPolicy(policy);                 // its whole state; later, anywhere:
 *   const same = restorePolicy(bytes);                     // continues bit for bit
 */
export { ConfigError, EofdError, RunError } from './base/errors.js';
export { loadConfig, loadConfigs, parseConfig, parseConfigs } from './config/load.js';
export type { ExperimentConfig, PolicyEntry } from './config/schema.js';
export type { ActionSet, Environment, EnvironmentDescriptor, Feedback } from './environments/environment.js';
export { createEnvironment, ENVIRONMENT_TYPES, ENVIRONMENTS, environmentDescriptor, type EnvironmentConfig } from './environments/registry.js';
export type { ModuleEnvironmentContext, ModuleEnvironmentDescriptor, ModuleEnvironmentInstance } from './environments/module.js';
export { LogisticInstance } from './environments/simulation.js';
export { loadTraceEnvironment, readTrace, TraceEnvironment, validateTrace, type Trace } from './environments/trace.js';
export { runGrid, type GridOptions, type GridResult } from './experiment/grid.js';
export { mergeShards, type MergeOptions, type MergeResult } from './experiment/merge.js';
export { runExperiments, type RunEvents, type RunOptions, type RunResult } from './experiment/runner.js';
export { backend, BACKENDS, setBackend, wasmAvailable, withBackend, type Backend } from './linalg/simd.js';
export { BETA_MODES, ConfidenceRadius, type BetaMode } from './model/beta.js';
export { deriveHyperparameters, HYPERPARAMETER_DEFAULTS, type HyperparameterInput, type Hyperparameters } from './model/hyperparameters.js';
export { EofdMLogB } from './policies/eofd-mlogb.js';
export type { ModuleParam, ModulePolicyDescriptor } from './config/policy-entries.js';
export { PROTOCOL_VERSION, type HelloMessage } from './policies/external/protocol.js';
export { type LinearTerm, MLE_TOLERANCE, type MleStop, RegularizedMle } from './policies/kit/mle.js';
export { OFUL_SOLVERS, ofulSolverOption, type OfulSolver } from './base/policy-catalogue.js';
export { OfulMLogB } from './policies/oful-mlogb.js';
export { type DeclaredOption, policyOption, type OptionValues } from './base/options.js';
export type { Policy, PolicyDescriptor, PolicyStats, ParamKey } from './policies/policy.js';
export { RandomPolicy } from './policies/random.js';
export { createPolicy, isPolicyName, POLICIES, POLICY_NAMES, policyDescriptor } from './policies/registry.js';
export { restorePolicy, SNAPSHOT_FORMAT, SnapshotError, snapshotInfo, snapshotPolicy, type SnapshotInfo } from './policies/snapshot.js';
export { nonNullRewards, policySpec, type PolicyOptions, type PolicySpec } from './policies/spec.js';
export { buildReport, writeReport, type Report } from './report/index.js';
export { readBestFile, readExperiment, readFinishedUnit, readManifest, readResults, ResultsError } from './results/read.js';
export type { ExperimentData, Provenance, Setting, TrialSeries } from './results/read.js';
export type { Manifest, ManifestRead } from './results/manifest.js';
export type { RoundRecord, SummaryRow, TrialSummary } from './results/records.js';
export { FrequentDirections } from './sketch/frequent-directions.js';
export { Mulberry32Stream, RandomStream, uniformOf } from './random/stream.js';
