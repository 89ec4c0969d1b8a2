export { describeUnstorableText, findUnstorableText, toStorableText, unstorableCharacterIn, type UnstorableText } from './storable-text';
