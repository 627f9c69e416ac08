/**
 * Playground: chat with a model the signed-in account may use (GET /api/v1/models with the
 * console's own credential), streamed through the gateway's /api/v1/chat/completions, with the
 * system prompt, temperature, top_p and max tokens; optionally the same messages to a second model
 * side by side; each answer's TTFT, total time, tokens and cost; the call as curl or SDK code.
 * `?log=<id>` opens a logged call here: its model, parameters and messages.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type List } from '../api.ts';
import { CodeDialog } from '../components/code-dialog.tsx';
import { TextAreaField } from '../components/textarea.tsx';
import { Alert, Field, Loading, SelectField } from '../components/ui.tsx';
import { useLoad } from '../hooks.ts';
import { useLocation } from '../router.ts';
import { useSession } from '../session.ts';
import { logsPath } from './logs.tsx';
import { DEFAULT_PARAMS, EMPTY_ANSWER, requestBody, streamAnswer, type Message, type Params } from './playground-call.ts';
import { fromLoggedRequest } from './playground-log.ts';
import { Pane, type Turn } from './playground-pane.tsx';
import type { LogDetail } from '../types.ts';

/** A pane's messages so far: the shared earlier ones, then each turn's question and answer. */
const conversation = (history: Message[], turns: Turn[]): Message[] =>
  history.concat(turns.flatMap((t): Message[] => [{ role: 'user', content: t.user }, { role: 'assistant', content: t.answer.text }]));

export function PlaygroundPage() {
  const { isAdmin } = useSession();
  const { search } = useLocation();
  const logId = new URLSearchParams(search).get('log');
  const models = useLoad(() => api.get<List<{ id: string }>>('/api/v1/models'), []);
  const [model, setModel] = useState('');
  const [compare, setCompare] = useState(false);
  const [second, setSecond] = useState('');
  const [params, setParams] = useState<Params>(DEFAULT_PARAMS);
  const [message, setMessage] = useState('');
  const [history, setHistory] = useState<Message[]>([]);
  const [turns, setTurns] = useState<Turn[][]>([[], []]);
  const [running, setRunning] = useState(0);
  const [showCode, setShowCode] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const stop = useRef<AbortController | null>(null);

  const ids = models.data?.data.map((m) => m.id) ?? [];
  useEffect(() => {
    if (!model && ids.length) setModel(ids[0]!);
    if (!second && ids.length) setSecond(ids[1] ?? ids[0]!);
  }, [models.data]);

  // A logged call, opened from the log page: its model, parameters and messages.
  useEffect(() => {
    if (!logId) return;
    api.get<LogDetail>(`${logsPath(isAdmin)}/${encodeURIComponent(logId)}`).then(
      (entry) => {
        const loaded = fromLoggedRequest(entry);
        if (!loaded) return setNotice('That call kept no request body (request logging was off), so only its model is filled in.');
        setModel(loaded.model || entry.model);
        setParams(loaded.params);
        setHistory(loaded.history);
        setMessage(loaded.message);
        setTurns([[], []]);
        setNotice(`Opened the call ${logId}: edit and send it again.`);
      },
      (e: Error) => setNotice(e.message),
    );
  }, [logId]);

  const chosen = compare ? [model, second] : [model];
  const setParam = (name: keyof Params) => (value: string) => setParams({ ...params, [name]: value });
  const bodyFor = (which: string, paneTurns: Turn[], next: string, stream = true) =>
    requestBody(which, params, [...conversation(history, paneTurns), ...(next ? [{ role: 'user' as const, content: next }] : [])], stream);

  const send = async (event: Event) => {
    event.preventDefault();
    if (!message.trim() || !model) return;
    const text = message;
    const controller = new AbortController();
    stop.current = controller;
    setMessage('');
    setRunning(chosen.length);
    await Promise.all(
      chosen.map(async (which, pane) => {
        const body = bodyFor(which, turns[pane]!, text);
        setTurns((all) => all.map((t, i) => (i === pane ? [...t, { user: text, answer: EMPTY_ANSWER }] : t)));
        await streamAnswer(
          body,
          isAdmin,
          (answer) => setTurns((all) => all.map((t, i) => (i === pane ? [...t.slice(0, -1), { user: text, answer }] : t))),
          controller.signal,
        );
        setRunning((n) => n - 1);
      }),
    );
  };

  if (models.error) return <Alert kind="error">{models.error.message}</Alert>;
  if (!models.data) return <Loading />;
  if (ids.length === 0) return <Alert kind="info">No model is open to this account: an admin can add models or widen the group's list.</Alert>;
  const options = ids.map((id): [string, string] => [id, id]);
  return (
    <>
      {notice && <Alert kind="info">{notice}</Alert>}
      <form class="playground" aria-label="Playground" onSubmit={send}>
        <fieldset>
          <legend>Models</legend>
          <div class="form-grid">
            <SelectField label={compare ? 'First model' : 'Model'} value={model} onChange={(e) => setModel(e.currentTarget.value)} options={options} />
            {compare && <SelectField label="Second model" value={second} onChange={(e) => setSecond(e.currentTarget.value)} options={options} />}
          </div>
          <Field label="Compare with a second model" type="checkbox" checked={compare} onChange={(e) => setCompare(e.currentTarget.checked)} />
        </fieldset>
        <fieldset>
          <legend>Parameters</legend>
          <TextAreaField label="System prompt" value={params.system} rows={2} onInput={(e) => setParam('system')(e.currentTarget.value)} />
          <div class="form-grid">
            <Field label="Temperature" inputMode="decimal" placeholder="model default" value={params.temperature} onInput={(e) => setParam('temperature')(e.currentTarget.value)} />
            <Field label="Top p" inputMode="decimal" placeholder="model default" value={params.top_p} onInput={(e) => setParam('top_p')(e.currentTarget.value)} />
            <Field label="Max tokens" inputMode="numeric" placeholder="model default" value={params.max_tokens} onInput={(e) => setParam('max_tokens')(e.currentTarget.value)} />
          </div>
        </fieldset>
        <TextAreaField
          label="Message"
          value={message}
          rows={3}
          onInput={(e) => setMessage(e.currentTarget.value)}
          hint="Sent with the conversation so far; each model keeps its own answers."
        />
        <div class="actions">
          <button type="submit" class="primary" disabled={running > 0 || !message.trim()}>
            Send
          </button>
          <button type="button" disabled={running === 0} onClick={() => stop.current?.abort()}>
            Stop
          </button>
          <button type="button" onClick={() => setShowCode(true)}>
            Copy as code
          </button>
          <button
            type="button"
            class="ghost"
            disabled={running > 0}
            onClick={() => {
              setTurns([[], []]);
              setHistory([]);
            }}
          >
            New conversation
          </button>
        </div>
      </form>
      <div class={compare ? 'panes two' : 'panes'}>
        {chosen.map((which, pane) => (
          <Pane key={pane} model={which} history={history} turns={turns[pane]!} />
        ))}
      </div>
      {showCode && <CodeDialog body={bodyFor(model, turns[0]!, message || 'Hello!')} onClose={() => setShowCode(false)} />}
    </>
  );
}
