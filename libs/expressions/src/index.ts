export { ExpressionError } from './lib/expression-error';
export { EXPRESSION_LIMITS } from './lib/limits';
export type { ExpressionLimits } from './lib/limits';
export type { RandomSource } from './lib/random';
export type { ExpressionContext, RenderOptions, SecretRenderOptions, SecretResolver } from './lib/render';
export {
  evaluateCondition,
  hasExpression,
  renderFinal,
  renderList,
  renderSecrets,
  renderSecretsInValue,
  renderTag,
  renderTemplate,
  renderValue,
} from './lib/render';
