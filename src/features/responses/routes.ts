/**
 * HTTP endpoints of the responses interface: POST /api/v1/responses (sync, stream or
 * background) and GET /api/v1/responses/:id (a stored response, to the key that created it).
 */
import { authenticate } from '../../auth/authenticate.ts';
import type { Gateway } from '../../pipeline/gateway.ts';
import { readJsonBody } from '../../http/read-body.ts';
import { clientSignal } from '../../http/client-signal.ts';
import { createContext } from '../../pipeline/context.ts';
import { missingApiKey, notFound } from '../../kernel/errors.ts';
import type { Logger } from '../../pipeline/types.ts';
import type { RouteDef } from '../../http/route.ts';
import { json } from '../../http/route.ts';
import { startBackground } from './background.ts';
import { responsesRenderer } from './renderer.ts';
import { getResponse, ownerOf } from './store.ts';
import { withPreviousTurns } from './continue.ts';
import { responsesToChat } from './to-chat.ts';

export const RESPONSES_PATH = '/api/v1/responses';

/**
 * POST handler. Like the chat inference route, except that `background: true` must answer
 * before the pipeline runs, which the generic inference route cannot do.
 */
export async function handleResponses(gateway: Gateway, logger: Logger, request: Request, ip: string): Promise<Response> {
  const { snapshot, pipeline } = gateway.config.current();
  // Refuse anonymous calls before reading a body we would throw away.
  if (!request.headers.get('authorization')) throw missingApiKey();
  const raw = (await readJsonBody(request, snapshot.config.server.body_limit)) as Record<string, unknown>;
  let body = responsesToChat(raw);
  const previousId = typeof raw.previous_response_id === 'string' ? raw.previous_response_id : undefined;
  let owner = '';
  if (raw.background === true || previousId !== undefined) {
    // Authenticate now: a queued answer must never go to a caller the pipeline would refuse, and
    // a stored conversation is read only for the caller that made it.
    owner = ownerOf((await authenticate(request, gateway.runtime, snapshot, ip)).principal);
  }
  if (previousId !== undefined) body = await withPreviousTurns(gateway.runtime, body, previousId, owner, raw);
  if (raw.background === true) {
    const queued = await startBackground({ gateway, request, ip, raw, body, owner, logger });
    return json(queued);
  }
  const ctx = createContext({
    request, endpoint: 'responses', runtime: gateway.runtime, snapshot, ip, body, rawBody: raw, signal: clientSignal(request), renderer: responsesRenderer,
  });
  return pipeline.run(ctx);
}

/** GET /api/v1/responses/:id: 404 unless the caller's key created it (no existence leak). */
export const responsesRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: `${RESPONSES_PATH}/:id`,
    access: 'key',
    async handler({ params, principal, runtime }) {
      const found = await getResponse(runtime, params.id, ownerOf(principal));
      if (!found) throw notFound(`No response with id '${params.id}'.`, 'response_not_found');
      return found;
    },
  },
];
