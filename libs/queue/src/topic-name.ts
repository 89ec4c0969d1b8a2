import { InvalidTopicNameError } from './queue.errors';

// Kafka's own rule, enforced by the in-process adapter too so that a name that
// works in standalone also works in production.
const legalTopicName = /^[a-zA-Z0-9._-]{1,249}$/;

export function assertTopicName(topic: string): void {
  if (!legalTopicName.test(topic) || topic === '.' || topic === '..') {
    throw new InvalidTopicNameError(topic);
  }
}
