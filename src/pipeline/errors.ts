/**
 * The error catalog for plugin authors, beside the plugin types (src/pipeline/types.ts): the one
 * catalog lives in src/kernel/errors.ts; this door keeps custom plugins' imports short and stable.
 */
export * from '../kernel/errors.ts';
