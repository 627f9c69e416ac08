/** undici's Agent by its own module path (src/providers/transport.ts): the package types it only at the index. */
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const AgentClass: typeof Agent;
  export default AgentClass;
}
