/** The overview's CSV export of the statistics (usage or cost per day, usage per model) for its range. */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Alert, SelectField } from '../components/ui.tsx';

const EXPORTS: Array<[string, string]> = [
  ['usage', 'Usage per day'],
  ['cost', 'Cost per day'],
  ['models', 'Usage per model'],
];

export function Export(props: { start: string; end: string }) {
  const [type, setType] = useState('usage');
  const [error, setError] = useState<string | null>(null);
  const download = async () => {
    setError(null);
    try {
      const { blob, name } = await api.download('/v1/statistics/export', { format: 'csv', type, start_date: props.start, end_date: props.end });
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = name;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <section class="panel" aria-labelledby="export">
      <h2 id="export">Export</h2>
      <div class="inline-form">
        <SelectField label="Statistics" options={EXPORTS} value={type} onChange={(e) => setType(e.currentTarget.value)} />
        <button type="button" onClick={download}>
          Download CSV
        </button>
      </div>
      <p class="muted small">
        {props.start} to {props.end}, the range above.
      </p>
      {error && <Alert kind="error">{error}</Alert>}
    </section>
  );
}
