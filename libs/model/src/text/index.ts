export {
  describeUnstorableText,
  findUnstorableCharacter,
  findUnstorableText,
  toStorableText,
  unstorableCharacterIn,
  type UnstorableText,
} from './storable-text';
