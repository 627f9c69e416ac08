// Types of options-validators.generated.js (scripts/generate-validators.ts): each built-in plugin's options validator.
import type { ValidateFunction } from 'ajv';

export declare const auth: ValidateFunction;
export declare const cache: ValidateFunction;
export declare const concurrency: ValidateFunction;
export declare const log: ValidateFunction;
export declare const permission: ValidateFunction;
export declare const rateLimit: ValidateFunction;
export declare const route: ValidateFunction;
export declare const semanticCache: ValidateFunction;
export declare const upstream: ValidateFunction;
export declare const guardrails: ValidateFunction;
