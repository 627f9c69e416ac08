/**
 * JSON Schema → the OpenAPI-subset `Schema` that generateContent accepts in `parameters` and
 * `responseSchema`. Unknown keywords make the API reject the whole request, so they are dropped;
 * schemas with references go out unchanged in the `*JsonSchema` fields instead (see `geminiSchema`).
 */

/** The keywords of the API's Schema object. */
const KEEP = new Set([
  'type', 'format', 'title', 'description', 'nullable', 'enum', 'maxItems', 'minItems', 'properties', 'required',
  'minProperties', 'maxProperties', 'minLength', 'maxLength', 'pattern', 'example', 'anyOf', 'propertyOrdering',
  'default', 'items', 'minimum', 'maximum',
]);

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Does the schema use `$ref` anywhere (which the Schema subset cannot express)? */
export function hasRefs(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(hasRefs);
  if (!isObject(schema)) return false;
  return '$ref' in schema || Object.values(schema).some(hasRefs);
}

/** Reduce one JSON Schema node to the Schema subset. */
export function toGeminiSchema(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' && Array.isArray(value)) {
      // ["string", "null"] is how JSON Schema says nullable.
      const types = value.filter((t) => t !== 'null');
      if (types.length !== value.length) out.nullable = true;
      if (types.length === 1) out.type = types[0];
      else if (types.length > 1) out.anyOf = types.map((type) => ({ type }));
    } else if (key === 'const') out.enum = [value];
    else if (key === 'oneOf') out.anyOf = (value as unknown[]).map(toGeminiSchema);
    else if (!KEEP.has(key)) continue;
    else if (key === 'properties' && isObject(value))
      out.properties = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, toGeminiSchema(sub)]));
    else if (key === 'items' || key === 'anyOf')
      out[key] = Array.isArray(value) ? value.map(toGeminiSchema) : toGeminiSchema(value);
    else out[key] = value;
  }
  return out;
}

/**
 * The schema under the field name that can carry it: `{ [field]: subset }` normally, or the
 * full JSON Schema under `{ [field]JsonSchema }` when it needs `$ref`, which the subset lacks.
 */
export function geminiSchema(field: 'parameters' | 'responseSchema', schema: unknown): Json {
  if (hasRefs(schema)) return { [field === 'parameters' ? 'parametersJsonSchema' : 'responseJsonSchema']: schema };
  return { [field]: toGeminiSchema(schema) };
}

/**
 * The Schema subset → JSON Schema, the other way (the generateContent ingress): upper-case types
 * (`STRING`) lower-cased, `nullable` as a `"null"` type, and the keywords JSON Schema lacks
 * (`propertyOrdering`, `example`) dropped, since they only order or illustrate.
 */
export function fromGeminiSchema(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' && typeof value === 'string') out.type = value.toLowerCase();
    else if (key === 'nullable' || key === 'propertyOrdering' || key === 'example') continue;
    else if (key === 'properties' && isObject(value))
      out.properties = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, fromGeminiSchema(sub)]));
    else if (key === 'items' || key === 'anyOf') out[key] = Array.isArray(value) ? value.map(fromGeminiSchema) : fromGeminiSchema(value);
    else out[key] = value;
  }
  if (schema.nullable === true && typeof out.type === 'string' && out.type !== 'null') out.type = [out.type, 'null'];
  return out;
}
