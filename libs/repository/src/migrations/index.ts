export { applyMigrations, type AppliedMigrations, type MigrationLocation } from './apply-migrations';
export { createMigration, type CreatedMigration } from './create-migration';
