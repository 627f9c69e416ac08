/**
 * A PostgreSQL trigger function for the migrations, with the store's search_path kept with it: a
 * session on another path (an operator's UPDATE or DELETE, say) must still find the tables it
 * writes. Its text is part of applied migrations: never change it, add a helper instead.
 */
export function pgTriggerFunction(name: string, body: string): string {
  return triggerFunction('CREATE FUNCTION', name, body);
}

/** The same, replacing a function an earlier migration made (its triggers keep calling it). */
export function pgTriggerFunctionReplaced(name: string, body: string): string {
  return triggerFunction('CREATE OR REPLACE FUNCTION', name, body);
}

function triggerFunction(create: string, name: string, body: string): string {
  return `${create} ${name}() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      BEGIN
        ${body}
        RETURN NULL;
      END $$;`;
}
