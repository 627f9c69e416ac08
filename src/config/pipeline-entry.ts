/** A pipeline entry as written in the file (after schema validation). */
export type RawPipelineEntry =
  | string
  | { name?: string; module?: string; enabled?: boolean; options?: Record<string, unknown> };
