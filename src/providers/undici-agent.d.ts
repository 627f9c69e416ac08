/** undici's Agent and connector by their own module paths (src/providers/transport.ts): the package types them only at the index. */
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const AgentClass: typeof Agent;
  export default AgentClass;
}

/** undici's connector factory by its module path (src/providers/transport.ts), for the same reason. */
declare module 'undici/lib/core/connect.js' {
  import type { buildConnector } from 'undici';
  const build: typeof buildConnector;
  export default build;
}
