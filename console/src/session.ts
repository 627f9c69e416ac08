/** What every page may need about the signed-in session: the account and whether writes work. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Account } from './auth.ts';

export interface Session {
  account: Account;
  isAdmin: boolean;
  /** Null while management writes work; otherwise the gateway's reason (read-only mode). */
  readOnly: string | null;
}

export const SessionContext = createContext<Session | null>(null);

export const useSession = () => useContext(SessionContext)!;
