import 'reflect-metadata';
import { z } from 'zod';
import { instant, JsonAnswer, JsonBody, openApiSchemaOf, pageOf, storedJson } from './zod-openapi';

// The OpenAPI document of a body or an answer is generated from its zod schema:
// what a client reads there is what the route parses, or what its view is typed by.

// Where @nestjs/swagger keeps what its decorators declare (its constants are not exported).
const DECORATORS = { API_PARAMETERS: 'swagger/apiParameters', API_RESPONSE: 'swagger/apiResponse' };

function documented(decorator: MethodDecorator, key: string): unknown {
  class Probe {
    route(): string {
      return 'probe';
    }
  }
  const descriptor = Object.getOwnPropertyDescriptor(Probe.prototype, 'route') as PropertyDescriptor;
  decorator(Probe.prototype, 'route', descriptor);
  return Reflect.getMetadata(key, descriptor.value);
}

describe('a body documented from its zod schema', () => {
  const Body = z
    .object({
      name: z.string().min(1).max(200).describe('Shown in the list'),
      size: z.number().int(),
      mode: z.enum(['STRICT', 'ELASTIC']).default('STRICT'),
      until: z.iso.datetime({ offset: true }).optional(),
    })
    .strict();

  it('names its required fields, bounds, enum and default, and refuses unknown fields as the parser does', () => {
    expect(openApiSchemaOf(Body, 'input')).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 200, description: 'Shown in the list' },
        size: { type: 'integer' },
        mode: { type: 'string', enum: ['STRICT', 'ELASTIC'], default: 'STRICT' },
        until: { type: 'string', format: 'date-time' },
      },
      required: ['name', 'size'],
      additionalProperties: false,
    });
  });

  it('is required unless the route also reads no body at all', () => {
    const [required] = documented(JsonBody(Body), DECORATORS.API_PARAMETERS) as { required: boolean }[];
    const [optional] = documented(JsonBody(Body.optional()), DECORATORS.API_PARAMETERS) as {
      required: boolean;
      schema: object;
    }[];
    expect(required.required).toBe(true);
    expect(optional).toEqual(expect.objectContaining({ required: false, schema: openApiSchemaOf(Body, 'input') }));
  });
});

describe('an answer documented from the schema its view is typed by', () => {
  const View = z.object({
    id: z.string(),
    createdAt: instant(),
    endedAt: instant().nullable(),
    settings: storedJson({ type: 'object', nullable: true }),
  });

  it('lists every field as present, instants as date-time, and leaves the object open to new fields', () => {
    expect(openApiSchemaOf(pageOf(View), 'output')).toEqual({
      type: 'object',
      properties: {
        results: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              createdAt: { type: 'string', format: 'date-time' },
              endedAt: { type: 'string', format: 'date-time', nullable: true },
              settings: { type: 'object', nullable: true },
            },
            required: ['id', 'createdAt', 'endedAt', 'settings'],
          },
        },
        total: { type: 'integer', description: 'Matches in every page' },
      },
      required: ['results', 'total'],
    });
  });

  it('is the answer of the status it is given', () => {
    const answers = documented(JsonAnswer(View, { status: 201, description: 'Created' }), DECORATORS.API_RESPONSE) as Record<
      string,
      { description: string; schema: object }
    >;
    expect(answers['201']).toEqual(expect.objectContaining({ description: 'Created', schema: openApiSchemaOf(View, 'output') }));
  });
});
