import pg from 'pg';

/** A schema or table name quoted for SQL text (identifiers cannot be bound as parameters). */
export const escapeIdentifier = (name: string): string => pg.escapeIdentifier(name);

/** `"schema"."table"`. */
export const qualified = (schema: string, table: string): string => `${escapeIdentifier(schema)}.${escapeIdentifier(table)}`;

/** A value quoted as an SQL string literal, for parameter-free statements (see TransactionEdges). */
export const escapeLiteral = (value: string): string => pg.escapeLiteral(value);
