export { ExpressionError } from './lib/expression-error';
export { EXPRESSION_LIMITS } from './lib/limits';
export type { ExpressionLimits } from './lib/limits';
export type { RandomSource } from './lib/random';
export type { ExpressionContext, RenderOptions, SecretRenderOptions, SecretResolver } from './lib/render';
export { FILE_FUNCTIONS } from './lib/evaluator';
export type { FileCall, FileFunction, FileLookup } from './lib/evaluator';
export {
  evaluateCondition,
  fileCallsIn,
  hasExpression,
  renderFinal,
  renderList,
  renderSecrets,
  renderSecretsInValue,
  renderTag,
  renderTemplate,
  renderValue,
} from './lib/render';
// The linear-time regex engine behind `replace(..., regexp=true)` and jq's regex functions (its bench counts its steps).
export { compileRegex, RegexError, replaceAll, THREAD_STEP_COST } from './lib/regex';
export type { CompiledRegex, RegexWork } from './lib/regex';
