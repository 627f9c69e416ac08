// Types of gateway-validator.generated.js (scripts/generate-validators.ts): gateway.yaml's ajv validator.
import type { ValidateFunction } from 'ajv';

declare const validate: ValidateFunction;
export default validate;
