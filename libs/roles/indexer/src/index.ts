export { IndexerRoleModule } from './indexer-role.module';
export { IndexerConsumer, INDEXER_GROUP_ID, type IndexerRoleOptions } from './indexer.consumer';
