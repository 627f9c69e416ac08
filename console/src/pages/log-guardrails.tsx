/**
 * The guardrail verdicts of one call, in its log detail: which guardrails ran on the request and
 * the answer, what each did, and the categories found (the matched text is never stored).
 */
import type { LogDetail } from '../types.ts';

const RESULT_LABEL: Record<string, string> = {
  pass: 'passed',
  blocked: 'blocked',
  redacted: 'redacted',
  flagged: 'flagged',
  error: 'could not check',
};

export function LogGuardrails({ verdicts }: { verdicts: LogDetail['guardrails'] }) {
  if (!verdicts?.length) return null;
  return (
    <section aria-labelledby="guardrails">
      <h2 id="guardrails">Guardrails</h2>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">guardrail</th>
              <th scope="col">check</th>
              <th scope="col">stage</th>
              <th scope="col">action</th>
              <th scope="col">result</th>
              <th scope="col">categories</th>
            </tr>
          </thead>
          <tbody>
            {verdicts.map((v, i) => (
              <tr key={i}>
                <th scope="row">{v.guardrail}</th>
                <td>{v.check}</td>
                <td>{v.stage}</td>
                <td>{v.action}</td>
                <td>
                  {RESULT_LABEL[v.result] ?? v.result}
                  {v.failed ? ` (failed ${v.failed})` : ''}
                </td>
                <td>{v.categories.length ? v.categories.join(', ') : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
