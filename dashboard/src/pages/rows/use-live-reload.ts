/** Live updates of the rows grid through realtime. */
import { useEffect, useState } from 'preact/hooks';
import { watchTable } from '../../api';
import type { Session } from '../../session';

/** Waits this long after a change for more: a bulk write is one reload, not hundreds. */
const COALESCE_MS = 150;

/** Calls `reload` when the table changes (coalesced); returns whether the subscription is live. */
export function useLiveReload(session: Session, projectId: string, tableName: string, reload: () => void): boolean {
  const [live, setLive] = useState(false);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const changed = () => {
      clearTimeout(timer);
      timer = setTimeout(reload, COALESCE_MS);
    };
    const stop = watchTable(session, projectId, tableName, changed, setLive);
    return () => {
      clearTimeout(timer);
      stop();
    };
  }, [projectId, tableName, session.token]);
  return live;
}
