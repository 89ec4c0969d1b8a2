import { DatabaseUnavailable } from './errors';
import { databaseNameOf, describeConnectionFailure, parseDatabaseUrl, redactDatabaseUrl, withDatabaseName } from './database-url';

describe('database URL handling', () => {
  const url = 'postgresql://lanner:s3cr3t-pw@db.internal:5432/lanner?sslmode=require';

  it('hides the password when the URL is shown', () => {
    expect(redactDatabaseUrl(url)).toBe('postgresql://lanner:***@db.internal:5432/lanner?sslmode=require');
    expect(redactDatabaseUrl('postgresql://u:p@h/d?password=other')).not.toContain('other');
  });

  it('shows nothing of a URL it cannot parse', () => {
    expect(redactDatabaseUrl('not a url with pw s3cr3t')).toBe('<unparseable URL>');
  });

  it.each([
    [undefined, 'DATABASE_URL is not set'],
    ['', 'DATABASE_URL is not set'],
    ['s3cr3t-pw', 'DATABASE_URL is not a valid URL'],
    ['mysql://u:s3cr3t-pw@h/d', "DATABASE_URL must use the postgresql:// scheme, got 'mysql'"],
    ['postgresql://u:s3cr3t-pw@h/', 'DATABASE_URL must name a host and a database'],
  ])('refuses %p with a message naming DATABASE_URL and without the password', (input, message) => {
    let thrown: unknown;
    try {
      parseDatabaseUrl(input);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DatabaseUnavailable);
    expect((thrown as Error).message).toContain(message);
    expect((thrown as Error).message).not.toContain('s3cr3t-pw');
  });

  it('accepts postgres:// and postgresql:// URLs', () => {
    expect(parseDatabaseUrl('postgres://u@h/d').hostname).toBe('h');
    expect(parseDatabaseUrl(url).pathname).toBe('/lanner');
  });

  it('points the same server at another database', () => {
    const other = withDatabaseName(url, 'lanner_test_1');
    expect(databaseNameOf(other)).toBe('lanner_test_1');
    expect(other).toContain('db.internal:5432');
    expect(other).toContain('sslmode=require');
  });

  it('explains connection failures by cause, never with the driver message', () => {
    const refused = describeConnectionFailure(url, Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    expect(refused.message).toBe(
      'cannot reach the database at postgresql://lanner:***@db.internal:5432/lanner?sslmode=require (ECONNREFUSED); check DATABASE_URL',
    );
    const badPassword = describeConnectionFailure(url, { code: '28P01', message: 'password authentication failed: s3cr3t-pw' });
    expect(badPassword.message).toContain('refused the credentials');
    expect(badPassword.message).not.toContain('s3cr3t-pw');
    expect(describeConnectionFailure(url, { code: '3D000' }).message).toContain('does not exist');
  });
});
