/**
 * The slice of oidc-provider v9 the gateway uses (the package ships no type declarations).
 * Kept narrow on purpose: only what src/oauth and src/store/oidc-adapter.ts call.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** What the provider hands an adapter; opaque except for the index fields. */
  export interface AdapterPayload {
    [key: string]: unknown;
    jti?: string;
    grantId?: string;
    uid?: string;
    userCode?: string;
    consumed?: number;
  }

  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export interface InteractionPrompt {
    name: 'login' | 'consent' | string;
    reasons: string[];
    details: { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
  }

  export interface Interaction {
    uid: string;
    prompt: InteractionPrompt;
    params: Record<string, string | undefined>;
    session?: { accountId?: string; uid?: string };
    grantId?: string;
    lastSubmission?: Record<string, unknown>;
  }

  export interface Grant {
    accountId?: string;
    clientId?: string;
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }

  export interface AccessToken {
    accountId: string;
    clientId: string;
    grantId?: string;
    scope?: string;
    /** Issued at, epoch seconds. */
    iat?: number;
    exp: number;
    readonly isExpired: boolean;
  }

  export interface Client {
    clientId: string;
    clientName?: string;
    scope?: string;
    clientAuthMethod: string;
  }

  export interface FoundAccount {
    accountId: string;
    claims(use: string, scope: string): Record<string, unknown> | Promise<Record<string, unknown>>;
  }

  export type Configuration = Record<string, unknown>;

  /** The part of the Koa context a middleware added with `provider.use`, or `renderError`, touches. */
  export interface KoaContext {
    request: object;
    readonly originalUrl: string;
    readonly path: string;
    status: number;
    type: string;
    body: unknown;
    set(field: string, value: string): void;
    /** A request header ('' when absent). */
    get(field: string): string;
    /** The best of `types` for the request's Accept (the first when it has none), or false. */
    accepts(...types: string[]): string | false;
  }

  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    proxy: boolean;
    readonly issuer: string;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionResult(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<string>;
    readonly Grant: { new (properties: { accountId: string; clientId: string }): Grant; find(id: string): Promise<Grant | undefined> };
    readonly AccessToken: { find(token: string): Promise<AccessToken | undefined> };
    readonly Client: { find(id: string): Promise<Client | undefined> };
    on(event: string, listener: (...args: any[]) => void): this;
    /** Adds a Koa middleware in front of the provider's routes. */
    use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): this;
  }

  type OidcError = Error & { error?: string; error_description?: string; allow_redirect?: boolean };
  export const errors: Record<string, new (...args: any[]) => OidcError> & {
    InvalidClient: new (description?: string) => OidcError;
    InvalidScope: new (description: string, scope?: string) => OidcError;
  };
}
