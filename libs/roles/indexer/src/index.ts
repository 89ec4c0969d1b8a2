export { IndexerRoleModule } from './indexer-role.module';
