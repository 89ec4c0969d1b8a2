import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError } from './cli-error';
import { profilePath, resolveConnection } from './connection';

describe('resolveConnection', () => {
  let dir: string;
  let file: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lanner-profile-'));
    file = join(dir, 'profile.json');
    writeFileSync(
      file,
      JSON.stringify({
        profiles: { default: { url: 'http://profile:1/', token: 'p-token' }, ops: { url: 'http://ops:2', tenant: 'ops' } },
      }),
    );
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('takes the default profile when nothing else is given, without a trailing slash', () => {
    expect(resolveConnection({}, { LANNER_CONFIG: file })).toEqual({ url: 'http://profile:1', token: 'p-token', tenant: 'main' });
  });

  it('lets the variables win over the profile, and the flags over both', () => {
    const env = { LANNER_CONFIG: file, LANNER_URL: 'http://env:3', LANNER_TOKEN: 'e-token' };
    expect(resolveConnection({}, env)).toEqual({ url: 'http://env:3', token: 'e-token', tenant: 'main' });
    expect(resolveConnection({ server: 'http://flag:4', token: 'f-token', tenant: 't' }, env)).toEqual({
      url: 'http://flag:4',
      token: 'f-token',
      tenant: 't',
    });
  });

  it('picks the profile named by --profile or LANNER_PROFILE, and names a missing one', () => {
    expect(resolveConnection({}, { LANNER_CONFIG: file, LANNER_PROFILE: 'ops' })).toEqual({
      url: 'http://ops:2',
      token: undefined,
      tenant: 'ops',
    });
    expect(() => resolveConnection({ profile: 'nope' }, { LANNER_CONFIG: file })).toThrow(
      new CliError(`no profile 'nope' in ${file}`),
    );
  });

  it('works without a profile file, on the local default URL', () => {
    expect(resolveConnection({}, { LANNER_CONFIG: join(dir, 'absent.json') })).toEqual({
      url: 'http://127.0.0.1:8080',
      token: undefined,
      tenant: 'main',
    });
  });

  it('names the file and the field that is wrong', () => {
    writeFileSync(file, JSON.stringify({ profiles: { default: { token: 42 } } }));
    expect(() => resolveConnection({}, { LANNER_CONFIG: file })).toThrow(
      `the profile file ${file}: profiles.default.token must be a string`,
    );
    writeFileSync(file, '{ not json');
    expect(() => resolveConnection({}, { LANNER_CONFIG: file })).toThrow(`the profile file ${file} is not valid JSON`);
  });

  it('refuses a server URL that is not an http(s) URL, naming where it may come from', () => {
    for (const url of ['lanner.example.com:8080', 'not a url']) {
      expect(() => resolveConnection({ server: url }, { LANNER_CONFIG: file })).toThrow(
        `the server URL '${url}' is not an http:// or https:// URL (from --server, LANNER_URL or the profile)`,
      );
    }
  });

  it('finds the file under XDG_CONFIG_HOME unless LANNER_CONFIG names one', () => {
    expect(profilePath({ XDG_CONFIG_HOME: '/x' })).toBe('/x/lanner/profile.json');
    expect(profilePath({ XDG_CONFIG_HOME: '/x', LANNER_CONFIG: '/y.json' })).toBe('/y.json');
  });
});
