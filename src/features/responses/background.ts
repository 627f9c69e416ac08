/**
 * `background: true`: answer at once with status `queued`, run the call through the pipeline
 * detached from the client's connection, and keep the result (in_progress → completed or
 * failed) in the state store for GET /api/v1/responses/{id}. A cancel (or delete) aborts the
 * run when it is on this instance, and the result of a cancelled or deleted response is never
 * stored, whichever instance ran it.
 */
import type { Gateway } from '../../pipeline/gateway.ts';
import { responsesRenderer } from './renderer.ts';
import { createContext } from '../../pipeline/context.ts';
import type { Logger } from '../../pipeline/types.ts';
import type { ChatRequest } from '../../providers/openai-types.ts';
import { responseSkeleton } from './object.ts';
import { putResponse, saveResponse, stillWanted } from './store.ts';
import type { ResponseObject } from './types.ts';

export interface BackgroundInput {
  gateway: Gateway;
  request: Request;
  ip: string;
  raw: Record<string, unknown>;
  body: ChatRequest;
  /** The caller, resolved before answering (see ownerOf). */
  owner: string;
  logger: Logger;
  /** This instance's running background calls by response id, so a cancel can abort one. */
  running: BackgroundRuns;
}

/** The abort handles of this instance's running background calls, by response id (one per feature install). */
export type BackgroundRuns = Map<string, AbortController>;

/** Start the call and return the `queued` object to answer with. */
export async function startBackground(input: BackgroundInput): Promise<ResponseObject> {
  const { gateway, logger, owner } = input;
  const { snapshot, pipeline } = gateway.config.current();
  // The client's connection ends with this answer: the call must not die with it.
  const controller = new AbortController();
  const ctx = createContext({
    request: input.request,
    endpoint: 'responses',
    runtime: gateway.runtime,
    snapshot,
    ip: input.ip,
    body: { ...input.body, stream: false },
    rawBody: { ...input.raw, stream: false },
    signal: controller.signal,
    renderer: responsesRenderer,
  });
  const queued = responseSkeleton(ctx, 'queued');
  await putResponse(gateway.runtime, owner, { ...queued, status: 'in_progress' });
  input.running.set(queued.id, controller);
  void run()
    .catch((error) => logger.error('background response failed', { error: String(error), id: queued.id }))
    .finally(() => input.running.delete(queued.id));
  return queued;

  async function run() {
    const answer = await pipeline.run(ctx);
    const text = await answer.text();
    if (!(await stillWanted(gateway.runtime, queued.id))) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (answer.ok && parsed && (parsed as ResponseObject).object === 'response') {
      await saveResponse(ctx, parsed as ResponseObject, owner);
      return;
    }
    const error = (parsed as { error?: { code?: string | null; message?: string; type?: string } } | undefined)?.error;
    const failed: ResponseObject = {
      ...queued,
      status: 'failed',
      error: { code: error?.code ?? 'upstream_unavailable', message: error?.message ?? `The call failed (HTTP ${answer.status}).`, type: error?.type },
    };
    await putResponse(gateway.runtime, owner, failed);
  }
}
