export {
  describeUnstorableText,
  findUnstorableCharacter,
  findUnstorableText,
  toStorableText,
  unstorableCharacterIn,
  type UnstorableText,
} from './storable-text';
export { RedactedSecret } from './redacted-secret';
