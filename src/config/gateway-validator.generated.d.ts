// Types of gateway-validator.generated.js (scripts/generate-validators.ts): gateway.yaml's ajv validators.
import type { ValidateFunction } from 'ajv';

/** The whole file. */
export declare const gateway: ValidateFunction;
/** One resource each, as the management API writes it (`$defs/<name>`). */
export declare const provider: ValidateFunction;
export declare const model: ValidateFunction;
export declare const group: ValidateFunction;
export declare const key: ValidateFunction;
export declare const account: ValidateFunction;
export declare const guardrail: ValidateFunction;
