/** "Export CSV" for the log list: every call the filters in force match (log-export.ts). */
import { useState } from 'preact/hooks';
import { Alert } from '../components/ui.tsx';
import { useSession } from '../session.ts';
import { allMatching, logsCsv, MAX_EXPORT_ROWS, saveFile } from './log-export.ts';
import { apiQuery, type Filters } from './log-query.ts';
import { logsPath } from './logs.tsx';

export function LogExport(props: { filters: Filters }) {
  const { isAdmin } = useSession();
  const [state, setState] = useState<{ busy: boolean; note: string | null; error: string | null }>({ busy: false, note: null, error: null });
  const exportCsv = async () => {
    setState({ busy: true, note: null, error: null });
    try {
      const { items, more } = await allMatching(logsPath(isAdmin), apiQuery(props.filters));
      saveFile(logsCsv(items), `logs-${new Date().toISOString().slice(0, 19).replace(/:/g, '')}.csv`);
      setState({ busy: false, error: null, note: more ? `Exported the newest ${MAX_EXPORT_ROWS.toLocaleString('en')} calls; narrow the filters for the rest.` : `Exported ${items.length.toLocaleString('en')} calls.` });
    } catch (e) {
      setState({ busy: false, note: null, error: (e as Error).message });
    }
  };
  return (
    <div class="toolbar log-export">
      <button type="button" onClick={exportCsv} disabled={state.busy}>
        {state.busy ? 'Exporting…' : 'Export CSV'}
      </button>
      <p class="muted small" role="status">
        {state.note ?? ''}
      </p>
      {state.error && <Alert kind="error">{state.error}</Alert>}
    </div>
  );
}
