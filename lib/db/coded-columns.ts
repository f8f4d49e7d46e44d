/**
 * Seven columns of `tool_calls` are stored in a compact form since migration 0014, behind virtual
 * generated columns that keep their names: every query reads `tool_call_id`, `tool`, `status`,
 * `side_effect`, `actor`, `latency_ms` and `finished_at` as before (and the indexes on `tool` and
 * `status` index what they read), while the row holds `tool_stored`, `status_stored`, … — ~40
 * bytes a call less (docs/storage.md). Only writers name the stored columns (`writtenColumn`).
 *
 * The stored forms (`sqlite3` shows both; the `*_stored` columns are what is on disk):
 * - text with a few usual values (the statuses, side effects, the `api` actor, the built-in
 *   tools): the usual value as a one-character code (a control character, or the empty text for
 *   a status or side effect, which cannot be empty), any other value as itself — or, when it
 *   starts with a control character, as itself after CODE_ESCAPE;
 * - `tool_call_id`: a usual prefix (OpenAI's `call_`, Anthropic's `toolu_01`) as a one-character
 *   code, then the rest; escaped as above;
 * - `latency_ms`: whole microseconds, negated (an integer on disk, 1–3 bytes where a double takes
 *   8), or the milliseconds as they are when they are not whole microseconds;
 * - `finished_at`: the milliseconds after `created_at`, negated and less one (1–3 bytes where an
 *   epoch takes 6), or the epoch as it is when it is before `created_at`.
 * Every plain value reads as itself, so rows written before (and rare writes, such as marking a
 * call interrupted) need no code.
 */

/** A column stored as codes for its usual values. */
interface CodedText {
  kind: 'text';
  /** The usual values; append only: a stored code must keep meaning the same value. */
  values: readonly string[];
  /** Whether the first value is stored as the empty text (only where no real value is empty). */
  emptyFirst: boolean;
}
/** A column whose values often start with one of a few prefixes, stored as a code and the rest. */
interface CodedPrefix {
  kind: 'prefix';
  /** Longest first where one starts another; append only, as `CodedText.values`. */
  prefixes: readonly string[];
}
interface CodedNumber {
  kind: 'latency' | 'finished';
}

/** Stored text that starts with this (U+001F) is a value that itself starts with a control character. */
const CODE_ESCAPE = 31;

/** The coded columns: the name every query reads, the stored column, and how it is coded. */
export const CODED_COLUMNS = {
  tool: {
    key: 'tool',
    stored: 'tool_stored',
    storedKey: 'toolStored',
    coding: {
      kind: 'text',
      values: ['read_file', 'write_file', 'run_shell', 'http_request', 'calculator'],
      emptyFirst: false,
    },
  },
  status: {
    key: 'status',
    stored: 'status_stored',
    storedKey: 'statusStored',
    coding: {
      kind: 'text',
      values: ['succeeded', 'failed', 'running', 'denied', 'cancelled', 'awaiting_approval', 'interrupted'],
      emptyFirst: true,
    },
  },
  side_effect: {
    key: 'sideEffect',
    stored: 'side_effect_stored',
    storedKey: 'sideEffectStored',
    coding: { kind: 'text', values: ['read', 'none', 'write', 'exec'], emptyFirst: true },
  },
  actor: {
    key: 'actor',
    stored: 'actor_stored',
    storedKey: 'actorStored',
    coding: { kind: 'text', values: ['api'], emptyFirst: false },
  },
  // The call ids of OpenAI (`call_` + 24) and Anthropic (`toolu_01` + 22) models.
  tool_call_id: {
    key: 'toolCallId',
    stored: 'tool_call_id_stored',
    storedKey: 'toolCallIdStored',
    coding: { kind: 'prefix', prefixes: ['call_', 'toolu_01', 'toolu_'] },
  },
  latency_ms: { key: 'latencyMs', stored: 'latency_stored', storedKey: 'latencyStored', coding: { kind: 'latency' } },
  finished_at: {
    key: 'finishedAt',
    stored: 'finished_stored',
    storedKey: 'finishedStored',
    coding: { kind: 'finished' },
  },
} as const satisfies Record<
  string,
  { key: string; stored: string; storedKey: string; coding: CodedText | CodedPrefix | CodedNumber }
>;

export type CodedColumn = keyof typeof CODED_COLUMNS;

const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;
/** The character number of the `index`th usual value's code (0: the empty text). */
const codeNumber = (coding: CodedText, index: number) => (coding.emptyFirst ? index : index + 1);

/** The coded columns a writer codes in JS (`storedForm`); `finished_at` is coded in SQL (`finishedSql`). */
export type JsCodedColumn = Exclude<CodedColumn, 'finished_at'>;

const codeOf = (coding: CodedText, index: number) => {
  const number = codeNumber(coding, index);
  return number === 0 ? '' : String.fromCharCode(number);
};
const CODES = new Map<JsCodedColumn, ReadonlyMap<string, string>>(
  (Object.keys(CODED_COLUMNS) as CodedColumn[]).flatMap((column) => {
    const { coding } = CODED_COLUMNS[column];
    return coding.kind === 'text'
      ? [
          [
            column as JsCodedColumn,
            new Map(coding.values.map((value, index) => [value, codeOf(coding, index)])),
          ] as const,
        ]
      : [];
  }),
);
const ESCAPE = String.fromCharCode(CODE_ESCAPE);

/**
 * What the row stores for `value` in the coded column `column` (see the forms above).
 * @example storedForm('status', 'succeeded') // ''
 * @example storedForm('tool_call_id', 'call_wKvPN') // '\u0001wKvPN'
 */
export function storedForm(column: JsCodedColumn, value: string | number | null): string | number | null {
  if (value === null) return null;
  if (typeof value === 'number') {
    // As SQLite reads it back: the negated microseconds, divided by -1000.0, give `value` again.
    const micros = Math.round(value * 1000);
    return value > 0 && micros / 1000 === value ? -micros : value;
  }
  const { coding } = CODED_COLUMNS[column];
  if (coding.kind === 'prefix') {
    for (let index = 0; index < coding.prefixes.length; index++) {
      const prefix = coding.prefixes[index] as string;
      if (value.startsWith(prefix)) return String.fromCharCode(index + 1) + value.slice(prefix.length);
    }
  } else {
    const code = CODES.get(column)?.get(value);
    if (code !== undefined) return code;
  }
  // SQLite compares text by its bytes, JS by UTF-16 units: below ' ' (U+0020), the two agree.
  return value < ' ' ? ESCAPE + value : value;
}

/**
 * SQL storing the finish time `value` (an SQL expression) of a row whose `created_at` is the
 * expression `createdAt`: in SQL, so that an update codes it against the row's own start.
 */
export function finishedSql(value: string, createdAt: string): string {
  return `CASE WHEN ${value} >= ${createdAt} AND ${createdAt} >= 0 THEN ${createdAt} - ${value} - 1 ELSE ${value} END`;
}

/** Sets on `values` (a row's values by schema key) the stored form of each coded column but `finished_at`. */
export function setStoredForms(values: Record<string, unknown>): void {
  for (const column of JS_CODED) {
    const { key, storedKey } = CODED_COLUMNS[column];
    values[storedKey] = storedForm(column, values[key] as string | number | null);
  }
}

const JS_CODED = (Object.keys(CODED_COLUMNS) as CodedColumn[]).filter(
  (column): column is JsCodedColumn => column !== 'finished_at',
);

/** SQL reading the coded column `column` from its stored column: the generated column's expression. */
export function decodedSql(column: CodedColumn): string {
  const { stored, coding } = CODED_COLUMNS[column];
  const s = `\`${stored}\``;
  if (coding.kind === 'latency') return `CASE WHEN ${s} < 0 THEN ${s} / -1000.0 ELSE ${s} END`;
  if (coding.kind === 'finished') return `CASE WHEN ${s} < 0 THEN \`created_at\` - ${s} - 1 ELSE ${s} END`;
  // `unicode` reads the first character's number without making a text of it.
  const escaped = `WHEN ${CODE_ESCAPE} THEN substr(${s}, 2) ELSE ${s} END END`;
  if (coding.kind === 'prefix') {
    const codes = coding.prefixes.map((prefix, index) => `WHEN ${index + 1} THEN ${quote(prefix)} || substr(${s}, 2)`);
    return `CASE WHEN ${s} >= ' ' THEN ${s} ELSE CASE unicode(${s}) ${codes.join(' ')} ${escaped}`;
  }
  const first = coding.emptyFirst ? ` WHEN ${s} = '' THEN ${quote(coding.values[0] as string)}` : '';
  const codes = coding.values
    .map((known, index) =>
      coding.emptyFirst && index === 0 ? '' : `WHEN ${codeNumber(coding, index)} THEN ${quote(known)} `,
    )
    .join('');
  return `CASE WHEN ${s} >= ' ' THEN ${s}${first} ELSE CASE unicode(${s}) ${codes}${escaped}`;
}

const isCoded = (name: string): name is CodedColumn => Object.hasOwn(CODED_COLUMNS, name);

/**
 * The column a writer names for the column `name` and the SQL of the value it writes there: a
 * coded column's stored column and its parameter (its stored form, see `setStoredForms`) or, for
 * `finished_at`, the finish time coded in SQL against `createdAt`; any other column and `@name`'s
 * parameter as they are. `param` is the column's schema key.
 * @example writtenColumn('status', 'status') // ['status_stored', '@statusStored']
 */
export function writtenColumn(name: string, param: string, createdAt = '@createdAt'): readonly [string, string] {
  if (!isCoded(name)) return [name, `@${param}`];
  const { stored, storedKey } = CODED_COLUMNS[name];
  return [stored, name === 'finished_at' ? finishedSql(`@${param}`, createdAt) : `@${storedKey}`];
}

/** The coded columns in the order migration 0014 adds their generated columns (schema.ts's order). */
const ADDED_ORDER: readonly CodedColumn[] = [
  'tool_call_id',
  'actor',
  'tool',
  'status',
  'side_effect',
  'latency_ms',
  'finished_at',
];
const GENERATED_TYPE: Record<CodedColumn, string> = {
  tool_call_id: 'text',
  actor: 'text',
  tool: 'text',
  status: 'text',
  side_effect: 'text',
  latency_ms: 'real',
  finished_at: 'integer',
};

/**
 * A trigger of `tool_calls` as it must be once the coded columns are stored apart: the same SQL,
 * its `UPDATE OF` list naming the stored columns (an update writes those; a generated column is
 * never in an UPDATE's SET) — and `created_at` with `finished_stored`, which `finished_at` reads.
 */
export function triggerOnStoredColumns(sql: string): string {
  return sql.replace(/AFTER UPDATE OF (.+?) ON `tool_calls`/, (_, list: string) => {
    const names = list.split(',').map((name) => name.trim().replaceAll('`', ''));
    const stored = names.map((name) => (isCoded(name) ? CODED_COLUMNS[name].stored : name));
    if (names.includes('finished_at') && !names.includes('created_at')) stored.push('created_at');
    return `AFTER UPDATE OF ${stored.map((name) => `\`${name}\``).join(', ')} ON \`tool_calls\``;
  });
}

/** Whether a trigger's SQL reads a coded column (its name as a whole word, outside other names). */
export function readsCodedColumn(sql: string): boolean {
  return ADDED_ORDER.some((column) => new RegExp(`(^|[^\\w])\`?${column}\`?($|[^\\w])`).test(sql));
}

const storedName = (column: CodedColumn) => `\`${CODED_COLUMNS[column].stored}\``;
const startsWithControlSql = (column: CodedColumn) => `(${storedName(column)} < ' ' AND ${storedName(column)} != '')`;
const escapeSql = (column: CodedColumn) =>
  `${storedName(column)} = iif(${startsWithControlSql(column)}, char(${CODE_ESCAPE}) || ${storedName(column)}, ${storedName(column)})`;

/**
 * The SQL of migration 0014, given the triggers of `tool_calls` that read a coded column as
 * migration 0013 left them (`drizzle/0014_coded_columns.sql` holds exactly the output for those):
 * 1. the seven columns renamed to their stored names (rows keep their values: plain values read as
 *    themselves);
 * 2. the triggers dropped, so that 3. moves nothing: a call id, tool or actor that starts with a
 *    control character is escaped (see CODE_ESCAPE; only an imported file can hold one);
 * 4. the generated columns added under the old names;
 * 5. the indexes on `tool` and `status` built again on the generated columns (one scan of the table);
 * 6. the triggers again, their `UPDATE OF` lists naming the stored columns.
 */
export function codedColumnsMigrationSql(triggers: readonly { name: string; sql: string }[]): string {
  const statements = [
    ...ADDED_ORDER.map(
      (column) => `ALTER TABLE \`tool_calls\` RENAME COLUMN \`${column}\` TO \`${CODED_COLUMNS[column].stored}\`;`,
    ),
    ...triggers.map((trigger) => `DROP TRIGGER \`${trigger.name}\`;`),
    // `tool` through its index; the other two in one scan of the table.
    `UPDATE \`tool_calls\` SET ${escapeSql('tool')} WHERE ${startsWithControlSql('tool')};`,
    `UPDATE \`tool_calls\` SET ${escapeSql('tool_call_id')}, ${escapeSql('actor')} WHERE ${startsWithControlSql('tool_call_id')} OR ${startsWithControlSql('actor')};`,
    ...ADDED_ORDER.map(
      (column) =>
        `ALTER TABLE \`tool_calls\` ADD COLUMN \`${column}\` ${GENERATED_TYPE[column]} GENERATED ALWAYS AS (${decodedSql(column)}) VIRTUAL;`,
    ),
    'DROP INDEX `tool_calls_tool_seq_idx`;',
    'CREATE INDEX `tool_calls_tool_seq_idx` ON `tool_calls` (`tool`);',
    'DROP INDEX `tool_calls_status_seq_idx`;',
    "CREATE INDEX `tool_calls_status_seq_idx` ON `tool_calls` (`status`) WHERE status != 'succeeded';",
    ...triggers.map((trigger) => `${triggerOnStoredColumns(trigger.sql)};`),
  ];
  return statements.join('\n--> statement-breakpoint\n');
}
