import { createInProcessQueue } from './in-process/in-process-queue';
import { describeQueueContract } from './testing/queue-contract';

describeQueueContract('in-process', () => createInProcessQueue({ partitions: 4 }));
