/**
 * The German spellings of a word that search treats as one (docs/decisions.md, "Search"): Müller is
 * also written Mueller (ä, ö, ü as ae, oe, ue) and Muller (the dots dropped). ß needs nothing here:
 * `unaccent` folds it to ss in documents and queries alike. In lib/ because the search documents'
 * writers (domain/search-index.ts) and the migration that rewrote the stored ones apply the same rule,
 * and the substring filter of GET /v1/leads?q= (domain/leads/leads.ts) its transliteration.
 */

/**
 * The trigger that writes leads' search_text transliterates with this table as it was when its
 * migration ran (AddLeadSearchText1796100000000): a change here needs a migration that replaces it
 * and rewrites search_text, or GET /v1/leads?q= passes over leads only the new rule matches.
 */
const UMLAUT_DIGRAPHS: Record<string, string> = { ä: 'ae', ö: 'oe', ü: 'ue' };

/** Accents dropped, as `unaccent` drops them in the vector: a spelling equal to the word so adds nothing. */
const unaccented = (word: string) => word.normalize('NFD').replace(/\p{M}/gu, '');

/** ae, oe and ue as the vowel alone, but not the ue of qu (Quelle, queen), which is no umlaut. */
const withoutDigraphs = (word: string) => word.replace(/(?<!q)([aou])e/g, '$1');

export interface Spellings {
  /** Umlauts as digraphs: `müller` -> `mueller`. */
  transliterated?: string;
  /** Digraphs as the plain vowel: `mueller` (and so `müller`) -> `muller`. */
  reduced?: string;
}

/** The other spellings of a word, in lower case without accents; none when every spelling is the word's own. */
export function spellingsOf(word: string): Spellings {
  const plain = unaccented(word.toLowerCase());
  const transliterated = unaccented(word.toLowerCase().replace(/[äöü]/g, (c) => UMLAUT_DIGRAPHS[c]));
  const reduced = withoutDigraphs(transliterated);
  return {
    ...(transliterated !== plain && { transliterated }),
    ...(reduced !== plain && reduced !== transliterated && { reduced }),
  };
}

/** Text with no letter beyond ASCII and no ae, oe or ue has no other spellings: most text, spared the work below. */
const MAY_HAVE_SPELLINGS = /[\u0080-\uffff]|[aou]e/i;

/**
 * `text` followed by the other spellings of its words that it does not hold already, so a document
 * is found by each of them. Deterministic in the text alone: a stored text gets what a writer
 * appends to the same text.
 */
export function withSpellings(text: string): string {
  if (!MAY_HAVE_SPELLINGS.test(text)) return text;
  const words = text.split(/\s+/).filter(Boolean);
  const held = new Set(words.map((w) => unaccented(w.toLowerCase())));
  const extra = new Set<string>();
  for (const word of words) {
    const { transliterated, reduced } = spellingsOf(word);
    for (const spelling of [transliterated, reduced]) if (spelling && !held.has(spelling)) extra.add(spelling);
  }
  return extra.size ? `${text} ${[...extra].join(' ')}` : text;
}

/**
 * Whether a substring of GET /v1/leads?q= is also looked for transliterated: it holds an umlaut
 * (`müll` in Mueller) or, accents aside, ae, oe or ue (`ueller` in Müller). Most queries hold
 * neither and are spared the second comparison (docs/decisions.md, "Search", for what that misses).
 */
export function mayMatchTransliterated(text: string): boolean {
  const lower = text.toLowerCase();
  return /[äöü]/.test(lower) || /[aou]e/.test(unaccented(lower));
}

/**
 * SQL for the text of `expr` with its umlauts transliterated, as spellingsOf does (`Müller` ->
 * `Mueller`), for search_fold to lower and unaccent after. Upper-case umlauts are replaced as well,
 * rather than lowering first: lower() folds Ü to ü under a Unicode-aware locale only, and a
 * database made with libc's C locale leaves it as it is.
 */
export const transliteratedSql = (expr: string): string =>
  Object.entries(UMLAUT_DIGRAPHS).reduce(
    (sql, [umlaut, digraph]) => `replace(replace(${sql}, '${umlaut}', '${digraph}'), '${umlaut.toUpperCase()}', '${digraph}')`,
    expr,
  );
