/**
 * The OpenAPI 3.1 document of the gateway, generated from the route table (what the installed
 * features serve, src/http/route-table.ts), the OAuth scope of each route (src/auth/route-scopes.ts),
 * the catalog of summaries (operations.ts) and the JSON Schemas requests are validated with
 * (schemas/api/*.schema.json and the resources of schemas/gateway.schema.json).
 */
import chatSchema from '../../../schemas/api/chat-completions.schema.json' with { type: 'json' };
import embeddingsSchema from '../../../schemas/api/embeddings.schema.json' with { type: 'json' };
import responsesSchema from '../../../schemas/api/responses.schema.json' with { type: 'json' };
import gatewaySchema from '../../../schemas/gateway.schema.json' with { type: 'json' };
import { ROUTE_SCOPES } from '../../auth/route-scopes.ts';
import { PLATFORM_SCOPES } from '../../auth/scopes.ts';
import { routeKey, type RouteEntry } from '../../http/route-table.ts';
import { OPERATIONS, type Expansion, type OperationDoc, type Tag } from './operations.ts';

type Json = Record<string, unknown>;

/** An operation as documented: its method and OpenAPI path, with the route it comes from. */
export interface DocumentedOperation extends OperationDoc {
  method: string;
  /** OpenAPI syntax: `/v1/admin/models/{id}`. */
  path: string;
  route: RouteEntry;
}

const isExpansion = (doc: OperationDoc | Expansion): doc is Expansion => 'expands' in doc;
const openApiPath = (h3Path: string) => h3Path.replace(/:([A-Za-z_]+)/g, '{$1}');

/** The routes of `table` without a catalog entry, and the catalog entries no route serves. */
export function coverage(table: readonly RouteEntry[]): { undocumented: string[]; stale: string[] } {
  const served = new Set(table.map(routeKey));
  return {
    undocumented: [...served].filter((key) => !OPERATIONS[key]),
    stale: Object.keys(OPERATIONS).filter((key) => !served.has(key)),
  };
}

/** Every documented operation of the routes in `table`, catch-alls expanded. */
export function documentedOperations(table: readonly RouteEntry[]): DocumentedOperation[] {
  const found: DocumentedOperation[] = [];
  for (const route of table) {
    const doc = OPERATIONS[routeKey(route)];
    if (!doc) continue;
    if (isExpansion(doc)) found.push(...doc.expands.map((op) => ({ ...op, route })));
    else found.push({ ...doc, method: route.method, path: openApiPath(route.path), route });
  }
  return found;
}

/** `#/$defs/x` of a schema file -> `#/components/schemas/<prefix>x`; its own `$id`/`$schema` dropped. */
function rehome(schema: Json, prefix: string): Json {
  const { $id: _id, $schema: _schema, $defs: _defs, ...rest } = schema;
  return JSON.parse(JSON.stringify(rest).replaceAll('"#/$defs/', `"#/components/schemas/${prefix}`)) as Json;
}

function componentSchemas(): Json {
  const schemas: Json = {
    ChatCompletionRequest: rehome(chatSchema, ''),
    EmbeddingsRequest: rehome(embeddingsSchema, 'Embeddings_'),
    ResponsesRequest: rehome(responsesSchema, ''),
    // Validated field by field in src/features/messages and generate-content, not by a schema file.
    MessagesRequest: {
      type: 'object',
      required: ['model', 'messages', 'max_tokens'],
      properties: { model: { type: 'string' }, messages: { type: 'array' }, max_tokens: { type: 'integer', minimum: 1 }, system: {}, stream: { type: 'boolean' }, tools: { type: 'array' } },
      description: "A request of Anthropic's Messages API.",
    },
    GenerateContentRequest: {
      type: 'object',
      required: ['contents'],
      properties: { contents: { type: 'array' }, systemInstruction: { type: 'object' }, generationConfig: { type: 'object' }, tools: { type: 'array' } },
      description: "A request of Google's generateContent API; the model is in the path.",
    },
    ApiKeyInput: {
      type: 'object',
      description: 'An API key as a client may set it: the gateway sets its id, secret, hash, hint and account (an admin may name `account_id`). Checked against the `key` schema of gateway.yaml.',
      properties: {
        name: { type: 'string', maxLength: 256 },
        status: { $ref: '#/components/schemas/key/properties/status' },
        permissions: { $ref: '#/components/schemas/key/properties/permissions' },
        scopes: { $ref: '#/components/schemas/key/properties/scopes' },
        account_id: { type: 'string', description: 'Admins only: the account the key is created for.' },
      },
    },
    Error: {
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['message', 'type', 'param', 'code'],
          properties: { message: { type: 'string' }, type: { type: 'string' }, param: { type: ['string', 'null'] }, code: { type: ['string', 'null'] } },
        },
      },
    },
  };
  for (const [name, def] of Object.entries(embeddingsSchema.$defs ?? {})) schemas[`Embeddings_${name}`] = rehome(def as Json, 'Embeddings_');
  for (const [name, def] of Object.entries(gatewaySchema.$defs)) schemas[name] = rehome(def as Json, '');
  return schemas;
}

const errorAnswer = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

function responsesOf(op: DocumentedOperation): Json {
  const media = op.produces ?? 'application/json';
  const success = { description: 'Success.', content: { [media]: { schema: media === 'application/json' ? { type: ['object', 'array'] } : { type: 'string' } } } };
  const answers: Json = { [String(op.status ?? 200)]: success };
  if (op.body || op.query) answers['400'] = errorAnswer('Invalid request: `param` names the field.');
  if (op.route.access !== 'public' && op.route.access !== 'mount') {
    answers['401'] = errorAnswer('Missing or invalid credential.');
    answers['403'] = errorAnswer('Not allowed: role, scope, model permission or IP allow-list.');
    answers['429'] = errorAnswer('Rate limit or quota exceeded (`Retry-After`).');
  }
  if (op.path.includes('{')) answers['404'] = errorAnswer('Not found.');
  return answers;
}

function securityOf(op: DocumentedOperation): Json[] {
  const { access } = op.route;
  if (access === 'public' || access === 'mount') return [];
  const scope = ROUTE_SCOPES.get(routeKey(op.route)) ?? ROUTE_SCOPES.get(`${op.method} ${op.path.replace(/\{([^}:]+)\}.*$/, ':$1')}`);
  return [{ bearer: [] }, { oauth2: scope ? [scope] : [] }];
}

function operationId(method: string, path: string): string {
  const words = path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

function operationObject(op: DocumentedOperation): Json {
  const parameters = [
    ...[...op.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...(op.query ?? []).map(([name, description, schema]) => ({ name, in: 'query', description, schema: schema ?? { type: 'string' } })),
  ];
  return {
    tags: [op.tag],
    summary: op.summary,
    ...(op.description && { description: op.description }),
    operationId: operationId(op.method, op.path),
    ...(parameters.length && { parameters }),
    ...(op.body && { requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${op.body}` } } } } }),
    responses: responsesOf(op),
    security: securityOf(op),
  };
}

const TAGS: ReadonlyArray<[Tag, string]> = [
  ['Inference', 'Model calls, run through the plugin pipeline (OpenAI, Messages API and generateContent dialects).'],
  ['Models', 'The models a caller may route to.'],
  ['API keys', "The caller's own API keys."],
  ['Logs', 'The call log.'],
  ['Statistics', 'Usage and cost from the call log.'],
  ['Settings', 'Account settings.'],
  ['Security', 'Second factor, login alerts, trusted devices.'],
  ['Admin', 'Providers, models, groups and users (admin role), written back to gateway.yaml.'],
  ['System', 'Health, status, configuration in force, metrics.'],
  ['OAuth', 'The OAuth 2.0 authorization server.'],
  ['Console', 'The web console.'],
  ['Documentation', 'This document.'],
];

/**
 * The OpenAPI 3.1 document for the routes of `table`; `baseUrl` (server.base_url, the OAuth issuer)
 * makes the OAuth endpoints absolute, as OpenAPI wants them.
 */
export function buildOpenApi(table: readonly RouteEntry[], version: string, baseUrl: string): Json {
  const paths: Record<string, Json> = {};
  for (const op of documentedOperations(table)) {
    const item = (paths[op.path] ??= {});
    item[op.method.toLowerCase()] = operationObject(op);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'LLM gateway',
      version,
      description: 'An OpenAI-compatible LLM API gateway. Errors are `{"error":{"message","type","param","code"}}`.',
    },
    // Relative: the document describes the gateway that serves it, whatever its public address.
    servers: [{ url: '/' }],
    tags: TAGS.map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key, the master key or an OAuth access token.' },
        oauth2: {
          type: 'oauth2',
          flows: {
            authorizationCode: {
              authorizationUrl: `${baseUrl}/oauth/authorize`,
              tokenUrl: `${baseUrl}/oauth/token`,
              scopes: { ...PLATFORM_SCOPES },
            },
          },
        },
      },
    },
  };
}

/** The text of docs/openapi.json (`npm run docs:openapi`): for the default address, stable for a given table. */
export const committedOpenApi = (table: readonly RouteEntry[], version: string) => `${JSON.stringify(buildOpenApi(table, version, 'http://localhost:8080'), null, 2)}\n`;
