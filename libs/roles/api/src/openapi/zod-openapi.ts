import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiQuery, ApiResponse } from '@nestjs/swagger';
// Swagger's schema type is not re-exported from its index.
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import type { StoredJson } from '@lanner/model';
import { z } from 'zod';

// A body or an answer has one home: its zod schema. A body's schema is what the
// route parses it with; an answer's schema types the view that builds it. The
// OpenAPI document is generated from them here (zod's own JSON Schema output,
// OpenAPI 3.0 flavour), never written beside them by hand.

/** An ISO-8601 instant in an answer (`Date.toISOString()`). */
export const instant = () => z.string().meta({ format: 'date-time' });

/** A whole number in an answer. */
export const wholeNumber = () => z.number().int();

/** A count in an answer. */
export const count = () => z.number().int().min(0);

/** One page of a search: `{ results, total }`. */
export const pageOf = <T extends z.ZodType>(result: T) =>
  z.object({ results: z.array(result), total: z.number().int().describe('Matches in every page') });

/** A stored JSON value in an answer (a flow's inputs, a namespace's variables), documented as `documented` says. */
export const storedJson = (documented: SchemaObject) => z.custom<StoredJson>().meta(documented as Record<string, unknown>);

const SAFE_INTEGER_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);

/**
 * The OpenAPI schema of a zod schema: `input` for what a route reads (defaults
 * make a field optional), `output` for what it answers. The bounds zod adds to
 * every integer, the pattern behind every `z.iso.datetime()` (its `format`
 * says it), `readOnly` (from `.readonly()`, a TypeScript matter) and an answer's
 * closed objects (answers may gain fields) are left out.
 */
export function openApiSchemaOf(schema: z.ZodType, io: 'input' | 'output'): SchemaObject {
  const json = z.toJSONSchema(schema, {
    target: 'openapi-3.0',
    io,
    reused: 'inline',
    // A z.custom (storedJson) has no JSON Schema of its own: its metadata is its document.
    unrepresentable: 'any',
    override: ({ jsonSchema }) => {
      const node = jsonSchema as Record<string, unknown>;
      if (node['type'] === 'integer') {
        if (SAFE_INTEGER_BOUNDS.has(node['maximum'] as number)) delete node['maximum'];
        if (SAFE_INTEGER_BOUNDS.has(node['minimum'] as number)) delete node['minimum'];
      }
      if (node['format'] === 'date-time') delete node['pattern'];
      if (io === 'output' && node['additionalProperties'] === false) delete node['additionalProperties'];
      // `.readonly()` types what the code may not change; the wire has no such notion.
      delete node['readOnly'];
    },
  }) as Record<string, unknown>;
  delete json['$schema'];
  return json as SchemaObject;
}

/** A JSON body, documented from the zod schema the route parses it with; an optional schema makes the body optional. */
export function JsonBody(schema: z.ZodType, description?: string): MethodDecorator {
  return ApiBody({
    required: !schema.safeParse(undefined).success,
    ...(description === undefined ? {} : { description }),
    schema: openApiSchemaOf(schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema, 'input'),
  });
}

/** An answer with a JSON body, documented from the zod schema its view is typed by. */
export function JsonAnswer(schema: z.ZodType, options: { status?: number; description?: string } = {}): MethodDecorator {
  return applyDecorators(
    ApiResponse({
      status: options.status ?? 200,
      description: options.description ?? '',
      schema: openApiSchemaOf(schema, 'output'),
    }),
  );
}

/**
 * The query parameters of a route, documented from the zod object the route
 * parses its query with: one parameter per field, its `.describe()` as the
 * parameter's description, required unless optional or defaulted.
 */
export function QueryParameters(schema: z.ZodObject): MethodDecorator {
  const json = openApiSchemaOf(schema, 'input') as { properties?: Record<string, SchemaObject>; required?: string[] };
  return applyDecorators(
    ...Object.entries(json.properties ?? {}).map(([name, property]) => {
      const { description, ...parameterSchema } = property;
      return ApiQuery({
        name,
        required: json.required?.includes(name) ?? false,
        ...(description === undefined ? {} : { description }),
        schema: parameterSchema,
      });
    }),
  );
}
