export { freePort } from './free-port';
export { requiredEnv } from './required-env';
export { eventually, pause } from './eventually';
export type { EventuallyOptions } from './eventually';
export { CorpusHeaderError, parseCorpusHeader, valueAtPath } from './kestra-corpus';
export type {
  CorpusHeader,
  ExpectedAttempts,
  ExpectedEnd,
  ExpectedLabel,
  ExpectedOutput,
  ExpectedTaskRunStates,
} from './kestra-corpus';
