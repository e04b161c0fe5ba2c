/**
 * The order in which reports, figures and `eofd list` show the policies; the registry
 * (src/policies/registry.ts) orders its descriptors by it and refuses a policy missing here. It lives
 * in base, not in the registry, because report may not import policies (test/architecture.test.ts).
 */
export const POLICY_ORDER: readonly string[] = [
  'EOFD-MLogB',
  'OFUL-MLogB',
  'Random',
  'MNL-UCB',
  'OL2M',
  'ada-OFU-ECOLog',
  'SOFUL',
  'TS-MLogB',
  'EOFD-TS',
  'GLM-UCB',
  'GLOC',
  'Logistic-UCB-1',
  'OFULog-r',
  'OFULog+',
  'RS-GLinCB',
  'RS-MNL',
  'DBSLinUCB',
];
