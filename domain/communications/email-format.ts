import type { EmailFormat } from '../../db/entities/message';

/**
 * A complete tag: `<`, an optional `/`, a letter, then anything but `<` or `>` up to `>`. Linear:
 * from each `<` the scan stops at the next `<` or `>`, so no character is read from two starts
 * (the former `<\/?[a-z][\s\S]*>` read to the end of the body from every `<`: quadratic).
 */
const TAG = /<\/?[a-z][^<>]*>/i;

/**
 * The format of an author's body when the author did not say: HTML when it holds a tag. Called
 * once, when a template, a sequence's email node or a one-off body is saved, and only ever on
 * what the author wrote: never on a rendered body, where a lead's data could change the answer.
 */
export const inferEmailFormat = (body: string): EmailFormat => (TAG.test(body) ? 'html' : 'text');
