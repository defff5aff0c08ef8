//! JSON written by hand, for the one message written on every move: the game `state`
//! ([`crate::session::StateView::to_text`]). serde_json escapes every key and string byte by
//! byte through its generic serializer; here the keys are names known to need no escaping and
//! are copied as they are, numbers are written digit by digit, and only text that may need it
//! is escaped (by serde_json). The serde derive of the same view stays what the text must equal
//! (tested on whole games).

/// A JSON text being written.
#[derive(Debug, Default)]
pub struct JsonText {
    out: Vec<u8>,
    /// Whether the innermost open object or array has no member yet.
    empty: bool,
}

impl JsonText {
    /// An empty text with room for `capacity` bytes.
    pub fn with_capacity(capacity: usize) -> JsonText {
        JsonText {
            out: Vec::with_capacity(capacity),
            empty: true,
        }
    }

    /// Opens an object (as a value: after a key, in an array, or at the top).
    pub fn open(&mut self) {
        self.begin(b'{');
    }

    /// Closes the innermost object.
    pub fn close(&mut self) {
        self.end(b'}');
    }

    /// Opens an array.
    pub fn open_array(&mut self) {
        self.begin(b'[');
    }

    /// Closes the innermost array.
    pub fn close_array(&mut self) {
        self.end(b']');
    }

    fn begin(&mut self, bracket: u8) {
        self.out.push(bracket);
        self.empty = true;
    }

    /// A closed object or array is a member of its parent, which is then not empty.
    fn end(&mut self, bracket: u8) {
        self.out.push(bracket);
        self.empty = false;
    }

    /// Starts the next element of an array.
    pub fn item(&mut self) {
        if !self.empty {
            self.out.push(b',');
        }
        self.empty = true;
    }

    /// Starts member `name` of an object; `name` must need no escaping (ASCII letters).
    pub fn key(&mut self, name: &'static str) {
        debug_assert!(name.bytes().all(|b| b.is_ascii_alphanumeric()));
        if !self.empty {
            self.out.push(b',');
        }
        self.out.push(b'"');
        self.out.extend_from_slice(name.as_bytes());
        self.out.extend_from_slice(b"\":");
        self.empty = true;
    }

    /// An unsigned number.
    pub fn uint(&mut self, n: u64) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        let mut n = n;
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.out.extend_from_slice(&digits[i..]);
        self.empty = false;
    }

    /// A signed number.
    pub fn int(&mut self, n: i64) {
        if n < 0 {
            self.out.push(b'-');
        }
        self.uint(n.unsigned_abs());
    }

    /// A number or `null`.
    pub fn opt_uint(&mut self, n: Option<u64>) {
        match n {
            Some(n) => self.uint(n),
            None => self.null(),
        }
    }

    /// `true` or `false`.
    pub fn bool(&mut self, b: bool) {
        self.out
            .extend_from_slice(if b { b"true" } else { b"false" });
        self.empty = false;
    }

    /// `null`.
    pub fn null(&mut self) {
        self.out.extend_from_slice(b"null");
        self.empty = false;
    }

    /// A string, escaped where it needs it.
    pub fn str(&mut self, s: &str) {
        if s.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
            // Cannot fail: a string always serializes.
            let _ = serde_json::to_writer(&mut self.out, s);
        } else {
            self.out.push(b'"');
            self.out.extend_from_slice(s.as_bytes());
            self.out.push(b'"');
        }
        self.empty = false;
    }

    /// A string or `null`.
    pub fn opt_str(&mut self, s: Option<&str>) {
        match s {
            Some(s) => self.str(s),
            None => self.null(),
        }
    }

    /// An array of numbers.
    pub fn uints(&mut self, ns: impl IntoIterator<Item = u64>) {
        self.array(ns, |t, n| t.uint(n));
    }

    /// An array with one element per item, each written by `write`.
    pub fn array<I: IntoIterator>(&mut self, items: I, mut write: impl FnMut(&mut Self, I::Item)) {
        self.open_array();
        for x in items {
            self.item();
            write(self, x);
        }
        self.close_array();
    }

    /// A JSON value, written by serde_json.
    pub fn value<T: serde::Serialize + ?Sized>(&mut self, v: &T) {
        // Cannot fail: what is written here has only text keys.
        let _ = serde_json::to_writer(&mut self.out, v);
        self.empty = false;
    }

    /// A value already written out as JSON.
    pub fn raw(&mut self, json: &str) {
        self.out.extend_from_slice(json.as_bytes());
        self.empty = false;
    }

    /// The text. `None` only if a value written by serde_json was not UTF-8 (it always is).
    pub fn finish(self) -> Option<String> {
        String::from_utf8(self.out).ok()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn writes_what_serde_reads() {
        let mut t = JsonText::with_capacity(16);
        t.open();
        t.key("a");
        t.uint(0);
        t.key("b");
        t.int(-42);
        t.key("c");
        t.uints([1, 20, u64::MAX]);
        t.key("d");
        t.open_array();
        for s in ["x\"y\\z\n", "红", ""] {
            t.item();
            t.str(s);
        }
        t.item();
        t.open();
        t.key("e");
        t.bool(true);
        t.close();
        t.item();
        t.opt_str(None);
        t.close_array();
        t.key("f");
        t.value(&serde_json::json!({"g": [1, {"h": null}]}));
        t.key("i");
        t.open_array();
        t.close_array();
        t.key("j");
        t.open();
        t.close();
        t.close();
        let text = t.finish().unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"a": 0, "b": -42, "c": [1, 20, u64::MAX],
                "d": ["x\"y\\z\n", "红", "", {"e": true}, null],
                "f": {"g": [1, {"h": null}]}, "i": [], "j": {}})
        );
    }
}
