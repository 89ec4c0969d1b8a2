import { javaMajorVersion } from './java-version';

describe('reading the Java version', () => {
  it.each([
    ['openjdk version "17.0.15" 2025-04-15\nOpenJDK Runtime Environment', 17],
    ['openjdk version "25" 2025-09-16', 25],
    ['java version "1.8.0_402"', 8],
    ['openjdk version "11.0.22" 2024-01-16', 11],
  ])('finds the major version in %j', (output, major) => {
    expect(javaMajorVersion(output)).toBe(major);
  });

  it('finds nothing in output that is not a version banner', () => {
    expect(javaMajorVersion('bash: java: command not found')).toBeUndefined();
  });
});
