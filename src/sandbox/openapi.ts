// openapi.json, generated from the catalog and the assumed operations (never kept by hand), built
// once per process: the schemas are the very ones the pipeline validates with.
import { z } from 'zod';
import { pathParams, TOOLSETS } from '../operation.js';
import type { SandboxOperation } from './types.js';

type Json = Record<string, unknown>;

function jsonSchema(schema: z.ZodType): Json {
  const s = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  delete s.$schema;
  return s;
}

const errorRef = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

const STANDARD_ERRORS = {
  '401': { $ref: '#/components/responses/Unauthenticated' },
  '403': { $ref: '#/components/responses/Forbidden' },
  '404': { $ref: '#/components/responses/NotFound' },
  '422': { $ref: '#/components/responses/ValidationFailed' },
  '429': { $ref: '#/components/responses/RateLimited' },
};

function successResponses(op: SandboxOperation): Json {
  if (op.response === 'file') {
    return { '200': { description: 'File content.', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } } };
  }
  const envelope = (paginated: boolean) => ({
    'application/json': { schema: { $ref: paginated ? '#/components/schemas/ListEnvelope' : '#/components/schemas/Envelope' } },
  });
  switch (op.method) {
    case 'GET':
      return { '200': { description: 'OK.', content: envelope(op.paginated) } };
    case 'DELETE':
      return { '204': { description: 'Deleted.' } };
    case 'POST':
      // The spec: creating POSTs answer 201; actions and jobs may answer 200 or 202.
      return {
        '200': { description: 'Done.', content: envelope(false) },
        '201': { description: 'Created.', content: envelope(false) },
        '202': { description: 'Accepted: a job was started.', content: envelope(false) },
      };
    default:
      return { '200': { description: 'OK.', content: envelope(false) } };
  }
}

function operationObject(op: SandboxOperation): Json {
  const paths = new Set(pathParams(op.path));
  const shape = op.input.shape as Record<string, z.ZodType>;
  const parameters: Json[] = [];
  for (const p of paths) {
    parameters.push({ name: p, in: 'path', required: true, schema: shape[p] ? jsonSchema(shape[p]) : { type: 'string' } });
  }
  const rest: Record<string, z.ZodType> = {};
  for (const [k, v] of Object.entries(shape)) if (!paths.has(k)) rest[k] = v;
  const o: Json = {
    operationId: op.name,
    summary: op.title,
    description: op.description,
    tags: [op.toolset],
    'x-scope': op.scope,
  };
  if (op.assumed) o['x-sandbox-assumed'] = true;
  if (op.body === 'query') {
    for (const [k, v] of Object.entries(rest)) {
      const s = jsonSchema(v);
      const param: Json = { name: k, in: 'query', required: !v.safeParse(undefined).success, schema: s };
      if (typeof s.description === 'string') param.description = s.description;
      parameters.push(param);
    }
  } else if (op.body === 'json' && Object.keys(rest).length > 0) {
    const s = jsonSchema(z.object(rest));
    o.requestBody = { required: Array.isArray(s.required) && s.required.length > 0, content: { 'application/json': { schema: s } } };
  } else if (op.body === 'multipart') {
    const { file: _file, ...fields } = rest;
    const s = jsonSchema(z.object(fields));
    const props = { ...((s.properties as Json | undefined) ?? {}), file: { type: 'string', format: 'binary' } };
    const required = [...((s.required as string[] | undefined) ?? []), 'file'];
    o.requestBody = { required: true, content: { 'multipart/form-data': { schema: { ...s, type: 'object', properties: props, required } } } };
  }
  if (parameters.length > 0) o.parameters = parameters;
  o.responses = { ...successResponses(op), ...STANDARD_ERRORS };
  o.security = [{ bearer: [] }];
  return o;
}

export function buildOpenApi(ops: readonly SandboxOperation[]): Json {
  const paths: Record<string, Json> = {};
  for (const op of ops) {
    let item = paths[op.path];
    if (item === undefined) {
      item = {};
      paths[op.path] = item;
    }
    item[op.method.toLowerCase()] = operationObject(op);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Workspace Consulting API',
      version: '1.0.0',
      description:
        'API of one Workspace Consulting workspace, as served by the embedded sandbox. Operations marked x-sandbox-assumed are named but not listed by the specification.',
    },
    servers: [{ url: '/api/v1' }],
    tags: TOOLSETS.map((t) => ({ name: t })),
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Personal token (pat_...) or OAuth access token.' } },
      schemas: {
        Error: {
          type: 'object',
          required: ['code', 'message', 'details'],
          properties: { code: { type: 'string' }, message: { type: 'string' }, details: { type: 'object' } },
        },
        Envelope: { type: 'object', required: ['data'], properties: { data: {} } },
        ListEnvelope: {
          type: 'object',
          required: ['data', 'meta'],
          properties: {
            data: { type: 'array', items: {} },
            meta: {
              type: 'object',
              required: ['next_cursor', 'prev_cursor', 'limit'],
              properties: {
                next_cursor: { type: ['string', 'null'] },
                prev_cursor: { type: ['string', 'null'] },
                limit: { type: 'integer', minimum: 1, maximum: 200 },
              },
            },
          },
        },
      },
      responses: {
        Unauthenticated: errorRef('Token missing, invalid, revoked or expired.'),
        Forbidden: errorRef('Not allowed by the role, a rule or the scope.'),
        NotFound: errorRef('Unknown resource, or resource outside the workspace.'),
        ValidationFailed: errorRef('Invalid data (validation.failed); details.fields maps each field to its messages.'),
        RateLimited: {
          ...errorRef('Rate limit reached (rate.limited).'),
          headers: {
            'Retry-After': { schema: { type: 'string' }, description: 'Seconds to wait.' },
            'X-RateLimit-Limit': { schema: { type: 'integer' } },
            'X-RateLimit-Remaining': { schema: { type: 'integer' } },
          },
        },
      },
    },
  };
}

let cached: string | undefined;

/** The document as sent, serialised once per process. */
export function openApiJson(ops: readonly SandboxOperation[]): string {
  cached ??= JSON.stringify(buildOpenApi(ops));
  return cached;
}
