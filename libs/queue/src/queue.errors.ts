/** Errors the queue adapters throw; each edge maps them once. */
export class UnknownTopicError extends Error {
  override readonly name = 'UnknownTopicError';
  constructor(readonly topic: string) {
    super(`Topic "${topic}" does not exist; create it with createTopics first`);
  }
}

export class InvalidTopicNameError extends Error {
  override readonly name = 'InvalidTopicNameError';
  constructor(readonly topic: string) {
    super(`Invalid topic name "${topic}": use 1-249 characters of [a-zA-Z0-9._-], not "." or ".."`);
  }
}

export class QueueClosedError extends Error {
  override readonly name = 'QueueClosedError';
  constructor() {
    super('The queue is closed');
  }
}

/** `subscribe` was still starting when its `signal` was aborted: the member was closed instead. */
export class SubscribeAborted extends Error {
  override readonly name = 'SubscribeAborted';
  constructor(readonly groupId: string) {
    super(`The subscription of group "${groupId}" was closed while it was starting`);
  }
}

export class NotSubscribedError extends Error {
  override readonly name = 'NotSubscribedError';
  constructor(readonly topic: string) {
    super(`This subscription does not consume topic "${topic}"`);
  }
}

/** Bad adapter configuration; the message names the variable or option to fix. */
export class QueueConfigError extends Error {
  override readonly name = 'QueueConfigError';
}
