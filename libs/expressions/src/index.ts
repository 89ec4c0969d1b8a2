export { ExpressionError } from './lib/expression-error';
export type { ExpressionContext, RenderOptions, SecretResolver } from './lib/render';
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
