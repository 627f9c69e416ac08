/**
 * HTTP endpoints of the responses interface: POST /api/v1/responses (sync, stream or
 * background), and for a stored response, to the key that created it only: GET and DELETE
 * /api/v1/responses/:id, POST /api/v1/responses/:id/cancel (a background one).
 */
import { authenticate } from '../../auth/authenticate.ts';
import { requireScope, scopeOf } from '../../auth/route-scopes.ts';
import type { Gateway } from '../../pipeline/gateway.ts';
import { readJsonBody } from '../../http/read-body.ts';
import { clientSignal } from '../../http/client-signal.ts';
import { createContext, type GatewayContext } from '../../pipeline/context.ts';
import { missingApiKey, notFound, unsupportedParameter } from '../../kernel/errors.ts';
import type { Logger } from '../../pipeline/types.ts';
import type { RouteDef } from '../../http/route.ts';
import { json } from '../../http/route.ts';
import { startBackground, type BackgroundRuns } from './background.ts';
import { responsesRenderer } from './renderer.ts';
import { cancelResponse, deleteResponse, getResponse, ownerOf } from './store.ts';
import { withPreviousTurns } from './continue.ts';
import { responsesToChat } from './to-chat.ts';
import { refuseDeepBody } from '../../http/json-depth.ts';
import { readBodyCredentialFirst } from '../inference/credential-first.ts';
import { beforePipeline } from '../inference/ingress.ts';

export const RESPONSES_PATH = '/api/v1/responses';
const RESPONSES_SCOPE = scopeOf('POST', RESPONSES_PATH);

/**
 * POST handler. Like the chat inference route, except that `background: true` must answer
 * before the pipeline runs, which the generic inference route cannot do.
 */
export async function handleResponses(gateway: Gateway, logger: Logger, running: BackgroundRuns, request: Request, ip: string): Promise<Response> {
  const { snapshot, pipeline } = gateway.config.current();
  const ctx = await beforePipeline(gateway, 'responses', async (): Promise<GatewayContext | Response> => {
    // Refuse anonymous calls before reading a body we would throw away.
    if (!request.headers.get('authorization')) throw missingApiKey();
    const read = await readBodyCredentialFirst(gateway, request, async () => {
      const raw = (await readJsonBody(request, snapshot.config.server.body_limit)) as Record<string, unknown>;
      refuseDeepBody(raw);
      return { raw, body: responsesToChat(raw) };
    });
    const raw = read.raw;
    let body = read.body;
    const previousId = typeof raw.previous_response_id === 'string' ? raw.previous_response_id : undefined;
    let owner = '';
    if (raw.background === true || previousId !== undefined) {
      // Authenticate now: a queued answer must never go to a caller the pipeline would refuse, and
      // a stored conversation is read only for the caller that made it.
      // The scope too, as the auth step would: a read-only token neither queues a run nor reads a conversation.
      const { principal } = await authenticate(request, gateway.runtime, snapshot, ip);
      requireScope(principal, RESPONSES_SCOPE);
      owner = ownerOf(principal);
    }
    if (previousId !== undefined) body = await withPreviousTurns(gateway.runtime, body, previousId, owner, raw);
    if (raw.background === true) {
      // OpenAI streams a background run's events too; here it is polled (GET) instead.
      if (raw.stream === true) throw unsupportedParameter("A background response is not streamed here: send 'stream' false and poll GET /api/v1/responses/{id}.", 'stream');
      const queued = await startBackground({ gateway, request, ip, raw, body, owner, logger, running });
      return json(queued);
    }
    return createContext({
      request, endpoint: 'responses', runtime: gateway.runtime, snapshot, ip, body, rawBody: raw, signal: clientSignal(request), renderer: responsesRenderer,
    });
  });
  // A background run is answered at once (queued), not through the pipeline here.
  return ctx instanceof Response ? ctx : pipeline.run(ctx);
}

const notStored = (id: string) => notFound(`No response with id '${id}'.`, 'response_not_found');

/** GET, DELETE and cancel of a stored response: 404 unless the caller's key created it (no existence leak). */
export function responsesRoutes(running: BackgroundRuns): RouteDef[] {
  return [
    {
      method: 'GET',
      path: `${RESPONSES_PATH}/:id`,
      access: 'key',
      async handler({ params, principal, runtime, query }) {
        const stream = query.get('stream');
        if (stream !== null && stream !== 'false') {
          throw unsupportedParameter('A stored response is not replayed as a stream here: retrieve it without `stream`.', 'stream');
        }
        const found = await getResponse(runtime, params.id, ownerOf(principal));
        if (!found) throw notStored(params.id);
        return found;
      },
    },
    {
      method: 'DELETE',
      path: `${RESPONSES_PATH}/:id`,
      access: 'key',
      async handler({ params, principal, runtime }) {
        if (!(await deleteResponse(runtime, params.id, ownerOf(principal)))) throw notStored(params.id);
        running.get(params.id)?.abort(); // nobody can read its result any more
        return { id: params.id, object: 'response', deleted: true };
      },
    },
    {
      method: 'POST',
      path: `${RESPONSES_PATH}/:id/cancel`,
      access: 'key',
      async handler({ params, principal, runtime }) {
        const response = await cancelResponse(runtime, params.id, ownerOf(principal));
        if (!response) throw notStored(params.id);
        // Stored as cancelled first: the aborted run then finds it so and keeps it so.
        if (response.status === 'cancelled') running.get(params.id)?.abort();
        return response;
      },
    },
  ];
}
