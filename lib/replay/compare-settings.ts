import { z } from 'zod';
import { parseGlob } from './volatile-paths';

/** The most `compare.ignore_paths` entries the config takes. */
const MAX_IGNORE_PATHS = 100;

/** One path glob of `compare.ignore_paths`, checked as `parseGlob` reads it. */
const ignorePath = z
  .string({ error: 'a path such as "headers.date", "*.timestamp" or "**.request_id"' })
  .superRefine((pattern, ctx) => {
    const parsed = parseGlob(pattern);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.message });
  });

/**
 * The config's `compare` section: `ignore_paths`, output paths whose differences the comparisons
 * leave out of "output changed", beside the default ones (volatile headers, timestamps).
 */
export const compareSection = z
  .object({
    ignore_paths: z
      .array(ignorePath)
      .max(MAX_IGNORE_PATHS, { error: `at most ${MAX_IGNORE_PATHS} paths` })
      .default([]),
  })
  .strict();
