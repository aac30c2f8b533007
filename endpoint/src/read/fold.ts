/**
 * "Contains, ignoring case" the same on SQLite and PostgreSQL, in one SQL expression that needs
 * nothing of either: SQLite's `lower()` and `LIKE` fold ASCII letters only (so `été` would not
 * find `Été` there, while PostgreSQL's `ILIKE` would), and PostgreSQL's folding follows the server's
 * locale. Instead, the text is compared lower-cased by `lower()` (ASCII on SQLite, every letter on
 * PostgreSQL) after `replace()` has turned every other upper-case form of the search's own letters
 * into the lower-case one JavaScript gives (`É` → `é` when searching `été`). Letters that are not in
 * the search cannot match it however they are folded, so this is the same as lower-casing the whole
 * text, on either database.
 */
import { sql, type Expression, type RawBuilder } from 'kysely';

/**
 * Upper-case (and title-case) letters whose lower case is not found by upper-casing it back:
 * `ǅ` (lower `ǆ`, whose upper is `Ǆ`), the Kelvin sign (lower `k`), `ẞ` (lower `ß`, which has no
 * one-letter upper)…, as pairs `upper lower`, for Unicode as Node knows it (a test checks it is
 * complete).
 */
export const OTHER_UPPER_CASE = 'ǅǆǈǉǋǌǲǳϴθẞßᾈᾀᾉᾁᾊᾂᾋᾃᾌᾄᾍᾅᾎᾆᾏᾇᾘᾐᾙᾑᾚᾒᾛᾓᾜᾔᾝᾕᾞᾖᾟᾗᾨᾠᾩᾡᾪᾢᾫᾣᾬᾤᾭᾥᾮᾦᾯᾧᾼᾳῌῃῼῳΩωKkÅå';

/** Every other letter that lower-cases to `lower` (one letter), beyond ASCII: what `lower()` may not fold. */
export function upperCasesOf(lower: string): string[] {
  const out: string[] = [];
  const upper = lower.toUpperCase();
  if (upper !== lower && [...upper].length === 1 && upper.toLowerCase() === lower && upper.charCodeAt(0) > 0x7f) out.push(upper);
  const pairs = [...OTHER_UPPER_CASE];
  for (let i = 0; i < pairs.length; i += 2) if (pairs[i + 1] === lower) out.push(pairs[i]);
  return out;
}

/** `%`, `_` and `\` escaped for a LIKE pattern with `escape '\'`. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Whether text `column` contains `needle`, ignoring case (as JavaScript's `toLowerCase()` folds
 * it, letter by letter), matched literally (`%` and `_` are plain characters); false for null.
 */
export function containsIgnoringCase(column: Expression<string | null>, needle: string): RawBuilder<boolean> {
  const lower = needle.toLowerCase();
  let folded: Expression<unknown> = column;
  for (const letter of new Set(lower)) {
    for (const upper of upperCasesOf(letter)) folded = sql`replace(${folded}, ${upper}, ${letter})`;
  }
  return sql<boolean>`lower(${folded}) like ${`%${likeLiteral(lower)}%`} escape '\\'`;
}
