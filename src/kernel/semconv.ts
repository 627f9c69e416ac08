/**
 * The semantic-convention names the traces use, each typed as the constant of
 * @opentelemetry/semantic-conventions it copies, so that `tsc` fails if one ever differs. Copied,
 * not imported: the GenAI names live in the package's `incubating` entry point (1.2 MB of
 * JavaScript), which the package asks instrumentations to copy from rather than load at run time;
 * and with tracing off nothing of OpenTelemetry may load at all.
 */
import type * as Stable from '@opentelemetry/semantic-conventions';
import type * as Incubating from '@opentelemetry/semantic-conventions/incubating';

export const ATTR_CLIENT_ADDRESS: typeof Stable.ATTR_CLIENT_ADDRESS = 'client.address';
export const ATTR_ERROR_TYPE: typeof Stable.ATTR_ERROR_TYPE = 'error.type';
export const ATTR_HTTP_REQUEST_METHOD: typeof Stable.ATTR_HTTP_REQUEST_METHOD = 'http.request.method';
export const ATTR_HTTP_RESPONSE_STATUS_CODE: typeof Stable.ATTR_HTTP_RESPONSE_STATUS_CODE = 'http.response.status_code';
export const ATTR_SERVER_ADDRESS: typeof Stable.ATTR_SERVER_ADDRESS = 'server.address';
export const ATTR_SERVER_PORT: typeof Stable.ATTR_SERVER_PORT = 'server.port';
export const ATTR_SERVICE_VERSION: typeof Stable.ATTR_SERVICE_VERSION = 'service.version';
export const ATTR_URL_PATH: typeof Stable.ATTR_URL_PATH = 'url.path';

export const ATTR_GEN_AI_OPERATION_NAME: typeof Incubating.ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_GEN_AI_PROVIDER_NAME: typeof Incubating.ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
export const ATTR_GEN_AI_REQUEST_MODEL: typeof Incubating.ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const ATTR_GEN_AI_REQUEST_MAX_TOKENS: typeof Incubating.ATTR_GEN_AI_REQUEST_MAX_TOKENS = 'gen_ai.request.max_tokens';
export const ATTR_GEN_AI_REQUEST_TEMPERATURE: typeof Incubating.ATTR_GEN_AI_REQUEST_TEMPERATURE = 'gen_ai.request.temperature';
export const ATTR_GEN_AI_REQUEST_TOP_P: typeof Incubating.ATTR_GEN_AI_REQUEST_TOP_P = 'gen_ai.request.top_p';
export const ATTR_GEN_AI_RESPONSE_ID: typeof Incubating.ATTR_GEN_AI_RESPONSE_ID = 'gen_ai.response.id';
export const ATTR_GEN_AI_RESPONSE_MODEL: typeof Incubating.ATTR_GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
export const ATTR_GEN_AI_RESPONSE_FINISH_REASONS: typeof Incubating.ATTR_GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS: typeof Incubating.ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS: typeof Incubating.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';

export const GEN_AI_OPERATION_CHAT: typeof Incubating.GEN_AI_OPERATION_NAME_VALUE_CHAT = 'chat';
export const GEN_AI_OPERATION_GENERATE_CONTENT: typeof Incubating.GEN_AI_OPERATION_NAME_VALUE_GENERATE_CONTENT = 'generate_content';
export const GEN_AI_OPERATION_EMBEDDINGS: typeof Incubating.GEN_AI_OPERATION_NAME_VALUE_EMBEDDINGS = 'embeddings';

/**
 * `gen_ai.provider.name` by provider type: the well-known value of the wire format spoken. compat
 * is the OpenAI format, whoever serves it (the conventions name the API's owner: the actual host
 * shows in server.address). `custom` has no well-known value: its provider id stands in.
 */
export const GEN_AI_PROVIDER_BY_TYPE: Readonly<Record<string, string>> = {
  compat: 'openai' satisfies typeof Incubating.GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
  vendor_b: 'anthropic' satisfies typeof Incubating.GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
  vendor_c: 'gcp.gemini' satisfies typeof Incubating.GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI,
  vendor_d: 'azure.ai.openai' satisfies typeof Incubating.GEN_AI_PROVIDER_NAME_VALUE_AZURE_AI_OPENAI,
};
