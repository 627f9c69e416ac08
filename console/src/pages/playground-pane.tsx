/** One model's side of the playground: its conversation, the answer streaming in, and its figures. */
import { formatInt, formatMoney, formatMs } from '../format.ts';
import { Alert } from '../components/ui.tsx';
import type { Answer, Message } from './playground-call.ts';

export interface Turn {
  user: string;
  answer: Answer;
}

function Figures(props: { answer: Answer; model: string }) {
  const { answer } = props;
  return (
    <dl class="figures" aria-label={`Figures of the answer from ${props.model}`}>
      <div>
        <dt>First token</dt>
        <dd>{formatMs(answer.ttftMs)}</dd>
      </div>
      <div>
        <dt>Total</dt>
        <dd>{answer.done ? formatMs(answer.totalMs) : '…'}</dd>
      </div>
      <div>
        <dt>Tokens in / out</dt>
        <dd>{answer.usage ? `${formatInt(answer.usage.prompt_tokens)} / ${formatInt(answer.usage.completion_tokens)}` : '—'}</dd>
      </div>
      <div>
        <dt>Cost</dt>
        <dd>{answer.cost ? formatMoney(answer.cost.total, answer.cost.currency) : answer.done && answer.logId ? '…' : '—'}</dd>
      </div>
    </dl>
  );
}

export function Pane(props: { model: string; history: Message[]; turns: Turn[] }) {
  return (
    <section class="panel pane" aria-label={`Conversation with ${props.model}`}>
      <h2>{props.model || 'No model chosen'}</h2>
      {props.history.length > 0 && (
        <details class="history">
          <summary>Earlier messages ({props.history.length})</summary>
          {props.history.map((m, i) => (
            <p key={i} class={`bubble bubble-${m.role}`}>
              <strong>{m.role}:</strong> {m.content}
            </p>
          ))}
        </details>
      )}
      {props.turns.length === 0 && <p class="muted">Send a message to see this model's answer.</p>}
      {props.turns.map((turn, i) => {
        const last = i === props.turns.length - 1;
        return (
          <div key={i} class="turn">
            <p class="bubble bubble-user">
              <strong class="visually-hidden">You:</strong>
              {turn.user}
            </p>
            <div class="bubble bubble-assistant" aria-live={last ? 'polite' : undefined} aria-busy={last && !turn.answer.done}>
              <strong class="visually-hidden">{props.model}:</strong>
              {turn.answer.text || (turn.answer.done ? <span class="muted">(no text)</span> : <span class="muted">Waiting for the first token…</span>)}
            </div>
            {turn.answer.error && <Alert kind="error">{turn.answer.error}</Alert>}
            <Figures answer={turn.answer} model={props.model} />
          </div>
        );
      })}
    </section>
  );
}
