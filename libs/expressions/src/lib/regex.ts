/**
 * Regular expressions for `replace(..., regexp=true)` and jq's regex functions, run by a
 * Pike VM (Thompson's construction, threads in priority order): one search takes time
 * linear in the text for a given pattern, so no pattern can backtrack catastrophically
 * (Kestra bounds Java's backtracking engine with a timeout; a pure library has no clock, so
 * Lanner uses an engine that cannot blow up). Every thread step is charged to the
 * rendering's budget, which also bounds a global replace whose preferred alternative runs
 * past each match and so rescans the text per match (tools/bench/expressions/regex.bench.ts).
 *
 * The syntax is Java's, without what needs backtracking: literals, `.`, classes
 * (`[a-z]`, `[^...]`, `\d \w \s \D \W \S` inside and outside), anchors `^ $ \b \B \A \z`,
 * groups `( )`, `(?: )`, `(?<name> )`, alternation `|`, quantifiers `* + ? {n} {n,} {n,m}`
 * and their lazy forms (`*?`...), escapes `\t \n \r \f \e \0oo \xhh \uhhhh` and of any
 * punctuation. Refused with a message naming the construct: backreferences, lookaround,
 * possessive quantifiers, inline flags, Unicode classes `\p{..}`. Matching is leftmost-first
 * with Java's priorities; `.` stops at line ends, `$` also matches before a final `\n`.
 */

export class RegexError extends Error {}

/** What a replacement may cost: the work counter of the rendering (thread steps). */
export interface RegexWork {
  charge(units: number): void;
}

const MAX_PATTERN_LENGTH = 1_000;

/**
 * What one thread step costs the budget, in its items (a character handled costs one): a
 * step is a few hundred nanoseconds, so the step limit lets a rendering run about two million
 * (tools/bench/expressions/regex.bench.ts).
 */
export const THREAD_STEP_COST = 10;
const MAX_PROGRAM = 20_000;

type CharTest = (code: number) => boolean;

type Node =
  | { readonly kind: 'char'; readonly test: CharTest; readonly code?: number }
  | { readonly kind: 'seq'; readonly items: readonly Node[] }
  | { readonly kind: 'alt'; readonly options: readonly Node[] }
  | { readonly kind: 'group'; readonly index: number | null; readonly body: Node }
  | { readonly kind: 'repeat'; readonly body: Node; readonly min: number; readonly max: number; readonly lazy: boolean }
  | { readonly kind: 'assert'; readonly what: 'start' | 'end' | 'word' | 'notWord' | 'textStart' | 'textEnd' };

const isDigit: CharTest = (c) => c >= 48 && c <= 57;
const isWord: CharTest = (c) => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isSpace: CharTest = (c) => c === 32 || (c >= 9 && c <= 13);
const isLineEnd = (c: number): boolean => c === 10 || c === 13 || c === 0x85 || c === 0x2028 || c === 0x2029;

class Parser {
  private at = 0;
  groups = 0;
  readonly names = new Map<string, number>();

  constructor(private readonly source: string) {}

  private fail(what: string, at = this.at): never {
    throw new RegexError(`the regular expression '${this.source}' ${what} (at character ${at + 1})`);
  }

  parse(): Node {
    const node = this.alternation();
    if (this.at < this.source.length) this.fail("has an unmatched ')'");
    return node;
  }

  private peek(): string | undefined {
    return this.source[this.at];
  }

  private alternation(): Node {
    const options = [this.sequence()];
    while (this.peek() === '|') {
      this.at++;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0] : { kind: 'alt', options };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.at < this.source.length && this.peek() !== '|' && this.peek() !== ')') {
      items.push(this.quantified(this.atom()));
    }
    return items.length === 1 ? items[0] : { kind: 'seq', items };
  }

  private quantified(atom: Node): Node {
    const c = this.peek();
    let min: number;
    let max: number;
    if (c === '*') [min, max] = [0, Infinity];
    else if (c === '+') [min, max] = [1, Infinity];
    else if (c === '?') [min, max] = [0, 1];
    else if (c === '{' && /^\{\d+(,\d*)?\}/.test(this.source.slice(this.at))) {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.at)) as RegExpExecArray;
      min = Number(match[1]);
      max = match[2] === undefined ? min : match[3] === '' ? Infinity : Number(match[3]);
      if (max < min) this.fail(`has a repetition {${min},${max}} whose maximum is below its minimum`);
      if (Math.max(min, max === Infinity ? 0 : max) > 1_000) this.fail('repeats more than 1,000 times');
      this.at += match[0].length - 1;
    } else return atom;
    if (atom.kind === 'assert') this.fail('repeats an anchor');
    this.at++;
    let lazy = false;
    if (this.peek() === '?') {
      lazy = true;
      this.at++;
    } else if (this.peek() === '+') {
      this.fail('uses a possessive quantifier, which is not supported');
    }
    const next = this.peek();
    if (next === '*' || next === '+' || next === '?') this.fail(`has a quantifier '${next}' with nothing to repeat`);
    return { kind: 'repeat', body: atom, min, max, lazy };
  }

  private atom(): Node {
    const c = this.source[this.at++];
    switch (c) {
      case '(':
        return this.group();
      case '[':
        return { kind: 'char', test: this.charClass() };
      case '.':
        return { kind: 'char', test: (code) => !isLineEnd(code) };
      case '^':
        return { kind: 'assert', what: 'start' };
      case '$':
        return { kind: 'assert', what: 'end' };
      case '\\':
        return this.escape(false);
      case '*':
      case '+':
      case '?':
        this.at--;
        return this.fail(`has a quantifier '${c}' with nothing to repeat`);
      default: {
        const code = c.charCodeAt(0);
        return { kind: 'char', test: (other) => other === code, code };
      }
    }
  }

  private group(): Node {
    let index: number | null = null;
    if (this.peek() === '?') {
      const rest = this.source.slice(this.at + 1);
      if (rest.startsWith(':')) {
        this.at += 2;
      } else if (/^<[A-Za-z][A-Za-z0-9]*>/.test(rest)) {
        const name = /^<([A-Za-z][A-Za-z0-9]*)>/.exec(rest) as RegExpExecArray;
        this.at += 1 + name[0].length;
        index = ++this.groups;
        if (this.names.has(name[1])) this.fail(`names two groups '${name[1]}'`);
        this.names.set(name[1], index);
      } else if (/^(=|!|<=|<!)/.test(rest)) {
        this.fail('uses a lookaround, which is not supported');
      } else if (rest.startsWith('>')) {
        this.fail('uses an atomic group, which is not supported');
      } else {
        this.fail('uses inline flags or a group kind that is not supported');
      }
    } else {
      index = ++this.groups;
    }
    const body = this.alternation();
    if (this.peek() !== ')') this.fail("has an unclosed '('");
    this.at++;
    return { kind: 'group', index, body };
  }

  /** After a backslash: a class, an anchor, or one character. */
  private escape(inClass: boolean): Node {
    const backslash = this.at - 1;
    const c = this.source[this.at++];
    if (c === undefined) return this.fail('ends with a backslash', backslash);
    const single = (code: number): Node => ({ kind: 'char', test: (other) => other === code, code });
    switch (c) {
      case 'd':
        return { kind: 'char', test: isDigit };
      case 'D':
        return { kind: 'char', test: (code) => !isDigit(code) };
      case 'w':
        return { kind: 'char', test: isWord };
      case 'W':
        return { kind: 'char', test: (code) => !isWord(code) };
      case 's':
        return { kind: 'char', test: isSpace };
      case 'S':
        return { kind: 'char', test: (code) => !isSpace(code) };
      case 't':
        return single(9);
      case 'n':
        return single(10);
      case 'r':
        return single(13);
      case 'f':
        return single(12);
      case 'e':
        return single(27);
      case 'a':
        return single(7);
      case '0': {
        const octal = /^[0-7]{1,3}/.exec(this.source.slice(this.at));
        if (!octal) this.fail('has \\0 without octal digits', backslash);
        this.at += (octal as RegExpExecArray)[0].length;
        return single(parseInt((octal as RegExpExecArray)[0], 8));
      }
      case 'x':
      case 'u': {
        const width = c === 'x' ? 2 : 4;
        const hex = this.source.slice(this.at, this.at + width);
        if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(hex)) this.fail(`has \\${c} without ${width} hex digits`, backslash);
        this.at += width;
        return single(parseInt(hex, 16));
      }
      case 'b':
      case 'B':
      case 'A':
      case 'z':
      case 'Z':
        if (inClass) this.fail(`has \\${c} inside a class`, backslash);
        return {
          kind: 'assert',
          what: c === 'b' ? 'word' : c === 'B' ? 'notWord' : c === 'A' ? 'textStart' : c === 'z' ? 'textEnd' : 'end',
        };
      case 'p':
      case 'P':
        return this.fail(`uses \\${c}{...} (Unicode classes), which is not supported`, backslash);
      case 'k':
        return this.fail('uses a backreference (\\k<name>), which is not supported', backslash);
      case 'Q':
      case 'E':
      case 'G':
      case 'R':
      case 'X':
        return this.fail(`uses \\${c}, which is not supported`, backslash);
      default:
        if (/[1-9]/.test(c)) return this.fail(`uses a backreference (\\${c}), which is not supported`, backslash);
        if (/[A-Za-z]/.test(c)) return this.fail(`has an unknown escape \\${c}`, backslash);
        return single(c.charCodeAt(0));
    }
  }

  /** After '[': the class up to its ']'. */
  private charClass(): CharTest {
    const negated = this.peek() === '^';
    if (negated) this.at++;
    const tests: CharTest[] = [];
    let first = true;
    for (;;) {
      const c = this.source[this.at];
      if (c === undefined) this.fail("has an unclosed '['");
      if (c === ']' && !first) {
        this.at++;
        break;
      }
      first = false;
      if (c === '[') this.fail('nests a class in a class, which is not supported');
      if (c === '&' && this.source[this.at + 1] === '&') this.fail('intersects classes (&&), which is not supported');
      const low = this.classChar();
      if (typeof low !== 'number') {
        tests.push(low);
        continue;
      }
      if (this.peek() === '-' && this.source[this.at + 1] !== ']' && this.source[this.at + 1] !== undefined) {
        this.at++;
        const high = this.classChar();
        if (typeof high !== 'number') this.fail('has a range that ends with a class');
        if ((high as number) < low) this.fail('has a range whose end is below its start');
        tests.push((code) => code >= low && code <= (high as number));
      } else {
        tests.push((code) => code === low);
      }
    }
    const any: CharTest = (code) => tests.some((test) => test(code));
    return negated ? (code) => !any(code) : any;
  }

  /** One character of a class (its code) or a class escape (its test). */
  private classChar(): number | CharTest {
    const c = this.source[this.at++];
    if (c !== '\\') return c.charCodeAt(0);
    const escaped = this.escape(true);
    if (escaped.kind !== 'char') return this.fail('has an anchor inside a class');
    return escaped.code ?? escaped.test;
  }
}

type Instruction =
  | { readonly op: 'char'; readonly test: CharTest }
  | { readonly op: 'split'; readonly first: number; readonly second: number }
  | { readonly op: 'jump'; readonly to: number }
  | { readonly op: 'save'; readonly slot: number }
  | { readonly op: 'assert'; readonly what: Extract<Node, { kind: 'assert' }>['what'] }
  | { readonly op: 'match' };

class Compiler {
  readonly program: Instruction[] = [];

  constructor(private readonly source: string) {}

  private emit(instruction: Instruction): number {
    if (this.program.length >= MAX_PROGRAM) {
      throw new RegexError(`the regular expression '${this.source}' is too large once its repetitions are counted`);
    }
    this.program.push(instruction);
    return this.program.length - 1;
  }

  private patch(at: number, instruction: Instruction): void {
    this.program[at] = instruction;
  }

  compile(node: Node): void {
    switch (node.kind) {
      case 'char':
        this.emit({ op: 'char', test: node.test });
        break;
      case 'assert':
        this.emit({ op: 'assert', what: node.what });
        break;
      case 'seq':
        node.items.forEach((item) => this.compile(item));
        break;
      case 'group':
        if (node.index !== null) this.emit({ op: 'save', slot: node.index * 2 });
        this.compile(node.body);
        if (node.index !== null) this.emit({ op: 'save', slot: node.index * 2 + 1 });
        break;
      case 'alt': {
        const jumps: number[] = [];
        node.options.forEach((option, i) => {
          if (i === node.options.length - 1) {
            this.compile(option);
            return;
          }
          const split = this.emit({ op: 'jump', to: -1 });
          this.compile(option);
          jumps.push(this.emit({ op: 'jump', to: -1 }));
          this.patch(split, { op: 'split', first: split + 1, second: this.program.length });
        });
        jumps.forEach((at) => this.patch(at, { op: 'jump', to: this.program.length }));
        break;
      }
      case 'repeat':
        this.repeat(node);
        break;
    }
  }

  private choice(at: number, body: number, exit: number, lazy: boolean): void {
    this.patch(at, lazy ? { op: 'split', first: exit, second: body } : { op: 'split', first: body, second: exit });
  }

  private repeat(node: Extract<Node, { kind: 'repeat' }>): void {
    for (let i = 0; i < node.min; i++) this.compile(node.body);
    if (node.max === Infinity) {
      const split = this.emit({ op: 'jump', to: -1 });
      this.compile(node.body);
      this.emit({ op: 'jump', to: split });
      this.choice(split, split + 1, this.program.length, node.lazy);
      return;
    }
    const splits: number[] = [];
    for (let i = node.min; i < node.max; i++) {
      splits.push(this.emit({ op: 'jump', to: -1 }));
      this.compile(node.body);
    }
    splits.forEach((at) => this.choice(at, at + 1, this.program.length, node.lazy));
  }
}

export interface CompiledRegex {
  readonly program: readonly Instruction[];
  readonly groups: number;
  readonly names: ReadonlyMap<string, number>;
}

export function compileRegex(source: string): CompiledRegex {
  if (source.length > MAX_PATTERN_LENGTH) {
    throw new RegexError(`the regular expression is ${source.length} characters long; at most ${MAX_PATTERN_LENGTH}`);
  }
  const parser = new Parser(source);
  const tree = parser.parse();
  const compiler = new Compiler(source);
  compiler.compile({ kind: 'group', index: 0, body: tree });
  compiler.program.push({ op: 'match' });
  return { program: compiler.program, groups: parser.groups, names: parser.names };
}

function holds(what: Extract<Instruction, { op: 'assert' }>['what'], text: string, at: number): boolean {
  const word = (i: number): boolean => i >= 0 && i < text.length && isWord(text.charCodeAt(i));
  switch (what) {
    case 'start':
    case 'textStart':
      return at === 0;
    case 'end':
      return at === text.length || (at === text.length - 1 && text.charCodeAt(at) === 10);
    case 'textEnd':
      return at === text.length;
    case 'word':
      return word(at - 1) !== word(at);
    case 'notWord':
      return word(at - 1) === word(at);
  }
}

interface Thread {
  readonly pc: number;
  readonly slots: readonly number[];
}

/** The leftmost-first match at or after `from`: the slots of every group (-1 where a group took no part). */
export function searchRegex(regex: CompiledRegex, text: string, from: number, work: RegexWork): number[] | null {
  const size = regex.program.length;
  let current: Thread[] = [];
  let matched: number[] | null = null;
  const emptySlots = new Array<number>((regex.groups + 1) * 2).fill(-1);

  // Adds a thread and what it reaches without reading a character, in priority order.
  const add = (list: Thread[], seen: Uint8Array, thread: Thread, at: number): void => {
    const stack: Thread[] = [thread];
    while (stack.length > 0) {
      const { pc, slots } = stack.pop() as Thread;
      if (seen[pc] === 1) continue;
      seen[pc] = 1;
      const instruction = regex.program[pc];
      switch (instruction.op) {
        case 'jump':
          stack.push({ pc: instruction.to, slots });
          break;
        case 'split':
          stack.push({ pc: instruction.second, slots }, { pc: instruction.first, slots });
          break;
        case 'save': {
          const copy = slots.slice();
          copy[instruction.slot] = at;
          stack.push({ pc: pc + 1, slots: copy });
          break;
        }
        case 'assert':
          if (holds(instruction.what, text, at)) stack.push({ pc: pc + 1, slots });
          break;
        default:
          list.push({ pc, slots });
      }
    }
  };

  let seen = new Uint8Array(size);
  for (let at = from; ; at++) {
    if (matched === null) add(current, seen, { pc: 0, slots: emptySlots }, at);
    if (current.length === 0 || at > text.length) break;
    work.charge(current.length * THREAD_STEP_COST);
    const next: Thread[] = [];
    seen = new Uint8Array(size);
    const code = at < text.length ? text.charCodeAt(at) : -1;
    for (const thread of current) {
      const instruction = regex.program[thread.pc];
      if (instruction.op === 'match') {
        matched = thread.slots.slice();
        // Lower-priority threads lose to this match.
        break;
      }
      if (instruction.op === 'char' && code >= 0 && instruction.test(code))
        add(next, seen, { pc: thread.pc + 1, slots: thread.slots }, at + 1);
    }
    current = next;
  }
  return matched;
}

/** Java's replacement text: `$n` and `${name}` a group, `\x` the character x. */
function expand(replacement: string, regex: CompiledRegex, text: string, slots: readonly number[]): string {
  let out = '';
  for (let i = 0; i < replacement.length; i++) {
    const c = replacement[i];
    if (c === '\\') {
      i++;
      if (i >= replacement.length) throw new RegexError('the replacement ends with a backslash (write \\\\ for one)');
      out += replacement[i];
    } else if (c === '$') {
      let group: number;
      if (replacement[i + 1] === '{') {
        const close = replacement.indexOf('}', i + 2);
        const name = close < 0 ? '' : replacement.slice(i + 2, close);
        const index = regex.names.get(name);
        if (index === undefined) throw new RegexError(`the replacement names a group '${name}' the expression does not have`);
        group = index;
        i = close;
      } else {
        const digits = /^\d+/.exec(replacement.slice(i + 1));
        if (!digits) throw new RegexError("the replacement has a '$' without a group number (write \\$ for a dollar sign)");
        // As Java: the longest prefix of the digits that is a group number.
        let text = digits[0];
        while (text.length > 1 && Number(text) > regex.groups) text = text.slice(0, -1);
        group = Number(text);
        if (group > regex.groups)
          throw new RegexError(`the replacement refers to group ${group}, which the expression does not have`);
        i += text.length;
      }
      const start = slots[group * 2];
      const end = slots[group * 2 + 1];
      if (start >= 0 && end >= 0) out += text.slice(start, end);
    } else {
      out += c;
    }
  }
  return out;
}

/** Java's String.replaceAll with a compiled pattern; `limit` bounds the text it builds. */
export function replaceAll(
  text: string,
  regex: CompiledRegex,
  replacement: string,
  work: RegexWork,
  limit: (length: number) => void,
): string {
  let out = '';
  let at = 0;
  while (at <= text.length) {
    const slots = searchRegex(regex, text, at, work);
    if (slots === null) break;
    const [start, end] = slots;
    out += text.slice(at, start) + expand(replacement, regex, text, slots);
    limit(out.length);
    if (end === start) {
      if (start < text.length) out += text[start];
      at = start + 1;
    } else {
      at = end;
    }
  }
  if (at < text.length) out += text.slice(at);
  limit(out.length);
  return out;
}
