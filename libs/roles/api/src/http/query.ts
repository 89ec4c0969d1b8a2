import { z } from 'zod';

/** The largest value a PostgreSQL `integer` column holds; revisions and versions are stored as one. */
export const MAX_STORED_INT = 2_147_483_647;
/** Pages beyond this are refused: (page - 1) * size stays far inside what the database takes as an offset. */
export const MAX_PAGE = 1_000_000;

/** A whole number from a query value, within [1, max]; `1e400`, `9007199254740991` or `abc` is a 400 naming the parameter. */
export function positiveIntQuery(max: number) {
  return z.coerce.number().int().min(1).max(max);
}

/** `page` (1-based) and `size` (at most 200) of a search. */
export const PageQuerySchema = z.object({
  page: positiveIntQuery(MAX_PAGE).default(1).describe('1-based'),
  size: positiveIntQuery(200).default(25).describe('At most 200, default 25'),
});
