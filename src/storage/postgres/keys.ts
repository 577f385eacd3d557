/**
 * The sortable keys PostgreSQL indexes and compares: one text key per JSON scalar, built by SQL
 * functions the migration creates in the adapter's schema, so stored columns, query parameters
 * and cursors are all keyed by the same code.
 *
 * A key is a type digit and an order-preserving body, compared byte-wise (`COLLATE "C"`):
 * `1` numbers (sign, biased decimal exponent, significant digits; negatives complemented),
 * `2` strings (UTF-8 bytes: code-point order), `3` booleans. So keys order null (SQL NULL) <
 * numbers < strings < booleans, the order of the other adapters, and equal keys are equal values
 * of one JSON type (`1` never equals `"1"`). Numbers are keyed from `jsonb`'s exact decimal.
 */
import { quoteIdentifier } from './names.js'

/** The key of a scalar (`NULL` for null, absent, objects and arrays). */
export const KEY_FUNCTION = 'didvault_key'
/** The keys of an array's scalar elements (JSON null elements keyed `0`); `NULL` when not an array. */
export const KEYS_FUNCTION = 'didvault_keys'

/** The first key of each JSON type: range comparisons stay between these bounds. */
export const TYPE_FLOOR = { number: '1', string: '2', boolean: '3' } as const

/** `CREATE FUNCTION` statements of both key functions in `schema` (quoted). */
export function keyFunctionsDdl(schema: string): string[] {
  const key = `${schema}.${quoteIdentifier(KEY_FUNCTION)}`
  return [
    `CREATE FUNCTION ${key}(v jsonb) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
DECLARE
  magnitude text;
  whole text;
  fraction text;
  digits text;
  exponent int;
BEGIN
  CASE jsonb_typeof(v)
    WHEN 'string' THEN RETURN '2' || (v #>> '{}');
    WHEN 'boolean' THEN RETURN CASE WHEN v = 'true'::jsonb THEN '31' ELSE '30' END;
    WHEN 'number' THEN magnitude := abs((v #>> '{}')::numeric)::text;
    ELSE RETURN NULL;
  END CASE;
  IF magnitude ~ '^0(\\.0*)?$' THEN RETURN '1m'; END IF;
  whole := split_part(magnitude, '.', 1);
  fraction := split_part(magnitude, '.', 2);
  IF whole <> '0' THEN
    exponent := length(whole) - 1;
    digits := whole || fraction;
  ELSE
    exponent := length(ltrim(fraction, '0')) - length(fraction) - 1;
    digits := ltrim(fraction, '0');
  END IF;
  digits := rtrim(digits, '0');
  IF (v #>> '{}')::numeric > 0 THEN
    RETURN '1n' || lpad((100000 + exponent)::text, 6, '0') || digits;
  END IF;
  RETURN '1k' || lpad((100000 - exponent)::text, 6, '0') || translate(digits, '0123456789', '9876543210') || '~';
END
$fn$`,
    keysFunctionDdl(schema, 'CREATE FUNCTION'),
  ]
}

/**
 * The statement making `didvault_keys` (`CREATE FUNCTION`, or `CREATE OR REPLACE FUNCTION` over a schema's older one).
 * PL/pgSQL rather than SQL: the same keys, but a SQL function whose body holds a subquery cannot be inlined, so
 * PostgreSQL planned that subquery again in every statement computing an `a_…` column (about 0.03 ms each, three times
 * per credential insert), where a PL/pgSQL function keeps its plan for the connection.
 */
export function keysFunctionDdl(schema: string, verb: 'CREATE FUNCTION' | 'CREATE OR REPLACE FUNCTION'): string {
  const key = `${schema}.${quoteIdentifier(KEY_FUNCTION)}`
  return `${verb} ${schema}.${quoteIdentifier(KEYS_FUNCTION)}(v jsonb)
RETURNS text[] LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
BEGIN
  IF jsonb_typeof(v) <> 'array' THEN RETURN NULL; END IF;
  RETURN ARRAY(
    SELECT DISTINCT COALESCE(${key}(e), '0') FROM jsonb_array_elements(v) AS e WHERE jsonb_typeof(e) NOT IN ('object', 'array')
  );
END
$fn$`
}
