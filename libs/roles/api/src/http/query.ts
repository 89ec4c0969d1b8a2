import { z } from 'zod';

/** `page` (1-based) and `size` (at most 200) of a search. */
export const PageQuerySchema = z.object({
  page: z.coerce.number().int().min(1).default(1),
  size: z.coerce.number().int().min(1).max(200).default(25),
});
