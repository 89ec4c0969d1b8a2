export {
  describeHandlerFailure,
  handlerFailureKind,
  parkPoisonMessages,
  type ParkedMessageSubject,
  type PoisonLogger,
} from './park-poison-messages';
