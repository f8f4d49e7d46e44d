import { defineConfig } from 'drizzle-kit';

/** `npm run db:generate` turns changes to the schema into a new SQL migration in `drizzle/`. */
export default defineConfig({
  dialect: 'sqlite',
  schema: './lib/db/schema.ts',
  out: './drizzle',
});
