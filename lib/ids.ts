/** Our ids' text form, defined once: a UUID as we write them (lower-case, as PostgreSQL prints them). */
export const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The same, for an id a customer typed (a path segment), which may be in capitals. */
export const UUID_ANY_CASE = new RegExp(UUID_TEXT.source, 'i');
