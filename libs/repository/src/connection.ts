import { Client } from 'pg';
import { describeConnectionFailure } from './database-url';

/**
 * A connected pg client, or a DatabaseUnavailable naming DATABASE_URL (never
 * the driver's own message, which may carry the password).
 */
export async function connectClient(databaseUrl: string): Promise<Client> {
  const client = new Client({ connectionString: databaseUrl });
  // A dropped connection surfaces as a failed query; without a listener it would crash the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    return client;
  } catch (error) {
    await client.end().catch(() => undefined);
    throw describeConnectionFailure(databaseUrl, error);
  }
}
