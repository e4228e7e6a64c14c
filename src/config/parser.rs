//! The configuration-string tokenizer (config.md §1).
//!
//! A byte-level state machine with the reference's character classes: between tokens
//! ("struct" state) whitespace is skipped, `"` opens a quoted string, `( [ {` / `) ] }` nest,
//! `,` ends an item, `=` / `:` separate key and value, `-` and digits start a number, letters,
//! `_ . / %` start a bare word, and every other byte is "Unexpected character". Bare tokens end
//! at whitespace or `, : = ) ] }`; quoted strings accept printable ASCII, the escapes
//! `\" \\ \/ \b \f \n \r \t \u` (validated, never decoded) and UTF-8 sequences.
//!
//! Items are only captured at the top nesting level; deeper text is scanned (and checked
//! character by character) but returned as one `Struct` item whose text includes its brackets,
//! exactly as the reference's `WT_CONFIG_ITEM` does. Parse such a text again with
//! [`Parser::new`] to walk its keys (the outer brackets are accepted there).

use super::error::ConfigError;
use super::value::convert_number;

/// The type of an item, numbered like the reference's `WT_CONFIG_ITEM` types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum ItemKind {
    /// A quoted string (text without the quotes, escapes kept as written).
    String = 0,
    /// `true` / `false`, or a key given without a value (text "", `num` 1).
    Bool = 1,
    /// A bare word (also a number token that did not convert).
    Id = 2,
    /// A number (`num` holds the value, suffixes expanded).
    Num = 3,
    /// A bracketed group (text includes the brackets).
    Struct = 4,
}

/// One key or value of a configuration string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Item<'a> {
    /// The text as the reference gives it: a quoted string without its quotes (escapes not
    /// decoded), a bracketed group with its brackets, "" for a missing value.
    pub text: &'a str,
    /// The item type.
    pub kind: ItemKind,
    /// The numeric value: the number for `Num`, 0/1 for `Bool`; otherwise what the reference
    /// leaves there (1 for strings, words and groups; the partial conversion for a number token
    /// that became an `Id`). Always 0 for keys.
    pub num: i64,
}

/// The reason part of an "Error parsing" message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reason {
    Unexpected,
    Unbalanced,
    ValueComplete,
    NoSeparator,
}

impl Reason {
    fn text(self) -> &'static str {
        match self {
            Reason::Unexpected => "Unexpected character",
            Reason::Unbalanced => "Unbalanced brackets",
            Reason::ValueComplete => "Value already complete",
            Reason::NoSeparator => "New value starts without a separator",
        }
    }
}

/// A syntax error at a byte offset (relative to the start of the scanned text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    pub offset: usize,
    pub reason: Reason,
}

impl SyntaxError {
    /// "Error parsing '<text>' at offset N: <reason>".
    pub(crate) fn to_error(self, text: &[u8]) -> ConfigError {
        ConfigError::new(format!(
            "Error parsing '{}' at offset {}: {}",
            String::from_utf8_lossy(text),
            self.offset,
            self.reason.text()
        ))
    }
}

/// A captured token: absolute byte range in the scanned buffer plus type and value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    pub start: usize,
    pub len: usize,
    pub kind: ItemKind,
    pub num: i64,
}

impl Span {
    pub(crate) fn end(&self) -> usize {
        self.start + self.len
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Between,
    Bare,
    Quoted,
    Escape,
    Utf8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Out {
    Key,
    Value,
}

/// The raw state machine over a byte window `[begin, end)` of a buffer.
#[derive(Clone, Debug)]
pub(crate) struct Scanner<'a> {
    buf: &'a [u8],
    begin: usize,
    end: usize,
    cur: usize,
    depth: i64,
    top: i64,
    state: State,
    utf8_remain: u8,
    key: Span,
    value: Span,
    out: Out,
}

impl<'a> Scanner<'a> {
    pub(crate) fn new(buf: &'a [u8], begin: usize, end: usize) -> Scanner<'a> {
        let end = end.min(buf.len());
        let begin = begin.min(end);
        let empty = Span {
            start: begin,
            len: 0,
            kind: ItemKind::Bool,
            num: 1,
        };
        Scanner {
            buf,
            begin,
            end,
            cur: begin,
            depth: 0,
            top: -1,
            state: State::Between,
            utf8_remain: 0,
            key: empty,
            value: empty,
            out: Out::Key,
        }
    }

    /// The scanned text (for error messages).
    pub(crate) fn text(&self) -> &'a [u8] {
        &self.buf[self.begin..self.end]
    }

    fn err(&self, reason: Reason) -> SyntaxError {
        SyntaxError {
            offset: self.cur - self.begin,
            reason,
        }
    }

    fn out_mut(&mut self) -> &mut Span {
        match self.out {
            Out::Key => &mut self.key,
            Out::Value => &mut self.value,
        }
    }

    /// Starts a token at `cur + skip` if we are at the capture level.
    fn push(&mut self, skip: usize, kind: ItemKind) -> Result<(), SyntaxError> {
        if self.top == -1 {
            self.top = self.depth;
        }
        if self.depth == self.top {
            let at = self.cur + skip;
            if self.out_mut().len > 0 {
                return Err(self.err(Reason::NoSeparator));
            }
            let o = self.out_mut();
            o.kind = kind;
            o.start = at;
        }
        Ok(())
    }

    /// Ends the current token at `cur` (exclusive) or just after it (`inclusive`).
    fn cap(&mut self, inclusive: bool) {
        if self.depth == self.top {
            let end = self.cur + usize::from(inclusive);
            let o = self.out_mut();
            o.len = end.saturating_sub(o.start);
        }
    }

    /// The next raw (key, value) pair, values not yet converted; `Ok(None)` at the end.
    pub(crate) fn next_raw(&mut self) -> Result<Option<(Span, Span)>, SyntaxError> {
        self.value = Span {
            start: self.cur,
            len: 0,
            kind: ItemKind::Bool,
            num: 1,
        };
        self.key.len = 0;
        self.out = Out::Key;

        while self.cur < self.end {
            let c = self.buf[self.cur];
            match self.state {
                State::Between => match c {
                    b'\t' | b'\n' | b'\r' | b' ' => {}
                    b'"' => {
                        self.push(1, ItemKind::String)?;
                        self.state = State::Quoted;
                    }
                    b'(' | b'[' | b'{' => {
                        if self.top == -1 {
                            self.top = 1;
                        }
                        self.push(0, ItemKind::Struct)?;
                        self.depth += 1;
                    }
                    b')' | b']' | b'}' => {
                        if self.top == -1 {
                            return Err(self.err(Reason::Unbalanced));
                        }
                        self.depth -= 1;
                        self.cap(true);
                    }
                    b',' => {
                        if self.depth == self.top && self.key.len > 0 {
                            self.cur += 1;
                            return Ok(Some((self.key, self.value)));
                        }
                    }
                    b':' | b'=' => {
                        if self.depth == self.top {
                            // A ':' right after a complete value is tolerated (the next token
                            // then fails "without a separator"); '=' is not.
                            if self.out == Out::Value && c != b':' {
                                return Err(self.err(Reason::ValueComplete));
                            }
                            self.out = Out::Value;
                        }
                    }
                    b'-' | b'0'..=b'9' => {
                        self.push(0, ItemKind::Num)?;
                        self.state = State::Bare;
                    }
                    b'%' | b'.' | b'/' | b'_' | b'A'..=b'Z' | b'a'..=b'z' => {
                        self.push(0, ItemKind::Id)?;
                        self.state = State::Bare;
                    }
                    _ => return Err(self.err(Reason::Unexpected)),
                },
                State::Bare => match c {
                    b'\t' | b'\n' | b'\r' | b' ' | b',' | b':' | b'=' | b')' | b']' | b'}' => {
                        self.cap(false);
                        self.state = State::Between;
                        // Re-examine this byte between tokens.
                        continue;
                    }
                    0x21..=0x7e => {
                        // Skip the rest of the run of plain token bytes at once.
                        self.cur = skip_run(self.buf, self.cur + 1, self.end, is_bare_plain);
                        continue;
                    }
                    _ => return Err(self.err(Reason::Unexpected)),
                },
                State::Quoted => match c {
                    0x20..=0x7e if c != b'"' && c != b'\\' => {
                        self.cur = skip_run(self.buf, self.cur + 1, self.end, is_quoted_plain);
                        continue;
                    }
                    b'"' => {
                        self.cap(false);
                        self.state = State::Between;
                    }
                    b'\\' => self.state = State::Escape,
                    0x20..=0x7e => {}
                    0xc0..=0xdf => {
                        self.state = State::Utf8;
                        self.utf8_remain = 1;
                    }
                    0xe0..=0xef => {
                        self.state = State::Utf8;
                        self.utf8_remain = 2;
                    }
                    0xf0..=0xf7 => {
                        self.state = State::Utf8;
                        self.utf8_remain = 3;
                    }
                    _ => return Err(self.err(Reason::Unexpected)),
                },
                State::Escape => match c {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' | b'u' => {
                        self.state = State::Quoted;
                    }
                    _ => return Err(self.err(Reason::Unexpected)),
                },
                State::Utf8 => match c {
                    0x80..=0xbf => {
                        self.utf8_remain -= 1;
                        if self.utf8_remain == 0 {
                            self.state = State::Quoted;
                        }
                    }
                    _ => return Err(self.err(Reason::Unexpected)),
                },
            }
            self.cur += 1;
        }

        // A bare token may run to the end of the text.
        if self.state == State::Bare {
            self.cap(false);
            self.state = State::Between;
        }
        if self.depth <= self.top && self.key.len > 0 {
            return Ok(Some((self.key, self.value)));
        }
        if self.depth == 0 {
            return Ok(None);
        }
        Err(self.err(Reason::Unbalanced))
    }

    /// The next (key, value) pair with the value converted (`true`/`false` → Bool, numbers).
    pub(crate) fn next_pair(&mut self) -> Result<Option<(Span, Span)>, SyntaxError> {
        Ok(self
            .next_raw()?
            .map(|(k, v)| (k, convert_value(self.buf, v))))
    }
}

/// A byte that continues a bare token and needs no action.
#[inline]
fn is_bare_plain(c: u8) -> bool {
    matches!(c, 0x21..=0x7e) && !matches!(c, b',' | b':' | b'=' | b')' | b']' | b'}')
}

/// A byte inside quotes that needs no action.
#[inline]
fn is_quoted_plain(c: u8) -> bool {
    matches!(c, 0x20..=0x7e) && c != b'"' && c != b'\\'
}

/// The first position in `[from, end)` whose byte is not `plain` (or `end`).
#[inline]
fn skip_run(buf: &[u8], mut from: usize, end: usize, plain: fn(u8) -> bool) -> usize {
    while from < end && plain(buf[from]) {
        from += 1;
    }
    from
}

/// The reference's value post-processing.
pub(crate) fn convert_value(buf: &[u8], mut v: Span) -> Span {
    if v.len == 0 {
        return v;
    }
    match v.kind {
        ItemKind::Id => match buf.get(v.start..v.end()) {
            Some(b"false") => {
                v.kind = ItemKind::Bool;
                v.num = 0;
            }
            Some(b"true") => {
                v.kind = ItemKind::Bool;
                v.num = 1;
            }
            _ => {}
        },
        ItemKind::Num => {
            let (ok, n) = convert_number(buf, v.start, v.len);
            v.num = n;
            if !ok {
                v.kind = ItemKind::Id;
            }
        }
        _ => {}
    }
    v
}

/// Iterates the top-level items of a configuration string.
///
/// Yields `Ok((key, value))` per item, or one `Err` (an "Error parsing …" message) after which
/// iteration stops. An empty string yields nothing.
#[derive(Clone, Debug)]
pub struct Parser<'a> {
    src: &'a str,
    scan: Scanner<'a>,
    done: bool,
}

impl<'a> Parser<'a> {
    /// A parser over a whole string (or over a `Struct` item's text).
    pub fn new(src: &'a str) -> Parser<'a> {
        Parser {
            src,
            scan: Scanner::new(src.as_bytes(), 0, src.len()),
            done: false,
        }
    }

    pub(crate) fn item(&self, s: Span) -> Item<'a> {
        Item {
            text: self.src.get(s.start..s.end()).unwrap_or(""),
            kind: s.kind,
            num: s.num,
        }
    }

    /// The next item with the key as a full [`Item`] (its type shows whether it was quoted,
    /// a bare word, a number or a group).
    pub fn next_pair(&mut self) -> Option<Result<(Item<'a>, Item<'a>), ConfigError>> {
        if self.done {
            return None;
        }
        match self.scan.next_pair() {
            Ok(Some((k, v))) => {
                let mut key = self.item(k);
                key.num = 0;
                Some(Ok((key, self.item(v))))
            }
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e.to_error(self.scan.text())))
            }
        }
    }

    /// Finds the value of `key` the way the reference's look-up does: the last occurrence wins;
    /// a dotted key (`log.enabled`) descends into every occurrence of the category, so repeated
    /// categories merge by sub-key. Keys that are not strings or words are skipped; a syntax
    /// error ends the search.
    pub fn find(src: &'a str, key: &str) -> Option<Item<'a>> {
        let mut parser = Parser::new(src);
        let mut found = None;
        while let Some(Ok((k, v))) = parser.next_pair() {
            if k.kind != ItemKind::String && k.kind != ItemKind::Id {
                continue;
            }
            if k.text == key {
                found = Some(v);
            } else if key.len() > k.text.len()
                && key.as_bytes()[k.text.len()] == b'.'
                && key.starts_with(k.text)
            {
                if let Some(sub) = Parser::find(v.text, &key[k.text.len() + 1..]) {
                    found = Some(sub);
                }
            }
        }
        found
    }
}

impl<'a> Iterator for Parser<'a> {
    type Item = Result<(&'a str, Item<'a>), ConfigError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_pair().map(|r| r.map(|(k, v)| (k.text, v)))
    }
}

/// The elements of a list value: the keys of a bracketed group, a bare value as a single
/// element, nothing for an empty value.
pub fn list_elements(text: &str) -> Vec<&str> {
    match text.as_bytes().first() {
        None => Vec::new(),
        Some(b'(' | b'[' | b'{') => Parser::new(text)
            .map_while(Result::ok)
            .map(|(k, _)| k)
            .collect(),
        Some(_) => vec![text],
    }
}

/// Checks that C-string bytes are usable as a configuration string.
///
/// Valid UTF-8 is returned as `&str`. Otherwise the error is the syntax error the reference's
/// scanner reports for the bytes ("Unexpected character" at the offending byte, or an earlier
/// syntax error); sequences the reference tolerates but Rust strings cannot hold (overlong or
/// surrogate encodings inside quotes) are reported as "Unexpected character" at the first
/// invalid byte.
pub fn config_from_bytes(bytes: &[u8]) -> Result<&str, ConfigError> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(s),
        Err(utf8) => {
            let mut scan = Scanner::new(bytes, 0, bytes.len());
            loop {
                match scan.next_pair() {
                    Ok(Some(_)) => continue,
                    Ok(None) => break,
                    Err(e) => return Err(e.to_error(bytes)),
                }
            }
            Err(SyntaxError {
                offset: utf8.valid_up_to(),
                reason: Reason::Unexpected,
            }
            .to_error(bytes))
        }
    }
}
