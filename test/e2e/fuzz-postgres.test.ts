/**
 * The fuzz suite (fuzz.test.ts), every property of it, with the call log and statistics in
 * PostgreSQL (a throwaway schema): PostgreSQL refuses values SQLite takes (NUL, lone surrogates in
 * JSONB), so a property that holds on the embedded store may not hold here. Same `FUZZ_RUNS`.
 */
process.env.FUZZ_STORE = 'postgres';
await import('./fuzz.test.ts');
