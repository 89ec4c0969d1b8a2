// How much work `replace(..., regexp=true)` does as its text grows, for patterns that make a
// backtracking engine (Java's, JavaScript's) take exponential time: counted in thread steps
// of the Pike VM (what the rendering's budget is charged), with the wall time beside it.
// A linear engine's steps per character stay flat as the text doubles.
import { compileRegex, replaceAll, THREAD_STEP_COST } from '@lanner/expressions';

interface Case {
  readonly name: string;
  readonly pattern: string;
  readonly text: (n: number) => string;
}

const CASES: readonly Case[] = [
  { name: '(a+)+$ on a…a!', pattern: '(a+)+$', text: (n) => `${'a'.repeat(n)}!` },
  { name: '(a|aa)*b on a…a', pattern: '(a|aa)*b', text: (n) => 'a'.repeat(n) },
  {
    name: '(\\w+\\s?)*$ on words then !',
    pattern: '(\\w+\\s?)*$',
    text: (n) => `${'ab '.repeat(Math.ceil(n / 3)).slice(0, n)}!`,
  },
  // The preferred alternative runs to the end before the other's match is taken: every match
  // rescans the rest of the text, so this one grows as text × matches (the budget stops it).
  { name: 'a*b|a on a…a (quadratic: a scan per match)', pattern: 'a*b|a', text: (n) => 'a'.repeat(n) },
  { name: '[0-9]+ on digits and letters', pattern: '[0-9]+', text: (n) => 'a1b22c333'.repeat(Math.ceil(n / 9)).slice(0, n) },
];

const SIZES = [1_000, 2_000, 4_000, 8_000];

function main(): void {
  for (const bench of CASES) {
    const regex = compileRegex(bench.pattern);
    console.log(`\n${bench.name}  (program: ${regex.program.length} instructions)`);
    console.log('   chars   thread steps   steps/char   ms');
    for (const n of SIZES) {
      const text = bench.text(n);
      let steps = 0;
      const started = process.hrtime.bigint();
      replaceAll(text, regex, 'x', { charge: (units) => (steps += units / THREAD_STEP_COST) }, () => undefined);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      console.log(
        `${String(n).padStart(8)} ${String(steps).padStart(14)} ${(steps / n).toFixed(2).padStart(12)} ${ms.toFixed(1).padStart(6)}`,
      );
    }
  }
}

main();
