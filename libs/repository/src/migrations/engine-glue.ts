/**
 * The wasm schema engine ships its JavaScript glue as an ES module with no
 * imports, only `export function` / `export class` declarations. Jest's module
 * registry cannot `require()` an ES module on Node 20 (and Node cannot import
 * the `.wasm` it references without a flag), so the glue is evaluated by hand:
 * the `export` keywords are dropped and the declarations are returned as an
 * object. `new Function` (not `vm`) keeps the glue in the caller's realm, so
 * its `instanceof Promise` checks see the adapter's promises.
 */
export function evaluateModuleGlue(source: string): Record<string, unknown> {
  const exported: string[] = [];
  const body = source.replace(/^export (function|class) ([A-Za-z0-9_$]+)/gm, (_match, kind: string, name: string) => {
    exported.push(name);
    return `${kind} ${name}`;
  });
  if (/^\s*(export|import)\b/m.test(body)) {
    throw new Error('the schema engine glue has an import or export form this loader does not handle');
  }
  if (exported.length === 0) {
    throw new Error('the schema engine glue exports nothing');
  }
  // The glue is the pinned package's own generated code, evaluated once per process.
  const evaluate = new Function(`${body}\nreturn { ${exported.join(', ')} };`) as () => Record<string, unknown>;
  return evaluate();
}
