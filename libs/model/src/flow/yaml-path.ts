// YAML paths in problems read like property access: `tasks[2].retry.maxAttempts`.

const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

export function childPath(parent: string, key: string): string {
  if (PLAIN_KEY.test(key)) return parent === '' ? key : `${parent}.${key}`;
  return `${parent}[${JSON.stringify(key)}]`;
}

export function itemPath(parent: string, index: number): string {
  return `${parent}[${index}]`;
}
