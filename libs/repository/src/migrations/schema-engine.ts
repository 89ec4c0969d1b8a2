import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import type { SchemaEngine } from '@prisma/schema-engine-wasm';
import { Pool } from 'pg';
import { evaluateModuleGlue } from './engine-glue';

type WasmExports = Record<string, unknown>;

/** The part of the WebAssembly JS API used here; the workspace's `lib` (ES2022, no DOM) does not declare it. */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: Record<string, Record<string, unknown>>) => { exports: WasmExports };
}
const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** The subset of the glue module this runner uses. */
interface EngineGlue {
  __wbg_set_wasm(exports: WasmExports): void;
  SchemaEngine: { new: typeof SchemaEngine.new };
}

interface PanicRegistry {
  message: string;
  set_message(message: string): void;
}

declare global {
  // The engine reports the reason for a Rust panic here before it aborts.
  var PRISMA_WASM_PANIC_REGISTRY: PanicRegistry | undefined;
}

let glue: EngineGlue | undefined;

/**
 * Instantiates the wasm module once per process: wasm-bindgen keeps module
 * state and fails (`unwrap_throw failed`) when started twice.
 */
function loadGlue(): EngineGlue {
  if (glue !== undefined) return glue;
  const glueFile = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
  const runtime = evaluateModuleGlue(readFileSync(glueFile, 'utf8'));
  const imports: Record<string, unknown> = { ...runtime };
  for (const [name, value] of Object.entries(runtime)) {
    if (name.startsWith('__wbg_setTimeout') && typeof value === 'function') {
      // The engine arms a 10 s timer it never clears; unreferenced, it no
      // longer keeps Node (and Jest) alive after the work is done.
      const arm = value as (callback: () => void, ms: number) => NodeJS.Timeout;
      imports[name] = (callback: () => void, ms: number) => arm(callback, ms).unref();
    }
  }
  const module = new wasmApi.Module(readFileSync(join(dirname(glueFile), 'schema_engine_bg.wasm')));
  const instance = new wasmApi.Instance(module, { './schema_engine_bg.js': imports });
  const loaded = runtime as unknown as EngineGlue;
  loaded.__wbg_set_wasm(instance.exports);
  (instance.exports['__wbindgen_start'] as () => void)();
  glue = loaded;
  return loaded;
}

function panicRegistry(): PanicRegistry {
  globalThis.PRISMA_WASM_PANIC_REGISTRY ??= {
    message: '',
    set_message(message: string) {
      this.message = message;
    },
  };
  return globalThis.PRISMA_WASM_PANIC_REGISTRY;
}

export interface EngineSession {
  readonly engine: SchemaEngine;
  /** The engine's own log lines (JSON), kept for error reports. */
  readonly log: string[];
}

/**
 * Runs `work` with a schema engine bound to `databaseUrl` through the pg driver
 * adapter, then frees the engine and ends the pool. Diffing two schemas never
 * connects, so any syntactically valid URL does for that.
 */
export async function withSchemaEngine<T>(
  databaseUrl: string,
  schema: string,
  work: (session: EngineSession) => Promise<T>,
): Promise<T> {
  const registry = panicRegistry();
  const runtime = loadGlue();
  const pool = new Pool({ connectionString: databaseUrl, max: 2 });
  // Errors of idle clients are reported through the engine's own calls.
  pool.on('error', () => undefined);
  const log: string[] = [];
  let engine: SchemaEngine | undefined;
  try {
    const adapter = bindMigrationAwareSqlAdapterFactory(new PrismaPg(pool));
    engine = await runtime.SchemaEngine.new(
      { datamodels: [['schema.prisma', schema]] },
      (line: string) => log.push(line),
      adapter,
    );
    return await work({ engine, log });
  } catch (error) {
    if (registry.message !== '') {
      const message = registry.message;
      registry.message = '';
      throw new Error(`the schema engine panicked: ${message}`);
    }
    throw error;
  } finally {
    engine?.free();
    await pool.end();
  }
}
