/**
 * A model's configured `fallbacks` name other models the way a request's `fallbacks` do
 * (src/routing/resolve.ts): an exact model-config id first, else `provider_id/upstream_model`
 * of a declared provider that lists the upstream model or has a model config for it. Shared by
 * the load-time checks (checks.ts) and the management API, so both refuse the same lists.
 */

/** The fields of a model config a fallback reference is resolved against. */
export interface ModelRef {
  id: string;
  provider: string;
  upstream_model?: string;
}

/** The fields of a provider a `provider/model` reference is resolved against. */
export interface ProviderRef {
  id: string;
  models?: string[];
}

/**
 * Why `fallback` cannot be one of `model`'s fallbacks (a sentence fragment for the problem
 * report), or undefined when it names another routable model. Status is not considered: an
 * inactive fallback is skipped at request time, as a request's own fallbacks are.
 */
export function fallbackProblem(model: ModelRef, fallback: string, models: readonly ModelRef[], providers: readonly ProviderRef[]): string | undefined {
  if (fallback === model.id) return `names the model itself ("${fallback}")`;
  if (models.some((m) => m.id === fallback)) return undefined;
  const slash = fallback.indexOf('/');
  const provider = slash > 0 ? providers.find((p) => p.id === fallback.slice(0, slash)) : undefined;
  const upstream = fallback.slice(slash + 1);
  if (!provider || !upstream) return `names "${fallback}", which is neither a declared model id nor provider_id/model of a declared provider`;
  const configured = models.find((m) => m.provider === provider.id && (m.upstream_model ?? m.id) === upstream);
  if (configured?.id === model.id) return `names the model itself ("${fallback}" is ${model.id}'s own provider and upstream model)`;
  if (!configured && !(provider.models ?? []).includes(upstream)) {
    return `names "${fallback}", but provider "${provider.id}" does not list model "${upstream}" and no model config names it`;
  }
  return undefined;
}
