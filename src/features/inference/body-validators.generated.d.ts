// Types of body-validators.generated.js (scripts/generate-validators.ts): one ajv validator per schema under schemas/api.
import type { ValidateFunction } from 'ajv';

export declare const chat: ValidateFunction;
export declare const responses: ValidateFunction;
export declare const embeddings: ValidateFunction;
