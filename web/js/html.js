// Text into HTML: the one escape every template of the front end uses for what it did not write
// itself (nicknames, client seeds, server messages, record fields).

/** `x` as HTML text: & < > " ' escaped, null and undefined as the empty string. @param {unknown} x */
export const esc = (x) => String(x ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c] || c));
